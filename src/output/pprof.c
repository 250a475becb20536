/*
 * pprof.c: see pprof.h. profile.proto field numbers used here:
 *
 *   Profile   1 sample_type (ValueType)  2 sample  3 mapping  4 location
 *             5 function  6 string_table  9 time_nanos  10 duration_nanos
 *             11 period_type  12 period  13 comment  14 default_sample_type
 *   ValueType 1 type (string index)  2 unit (string index)
 *   Sample    1 location_id (packed, leaf first)  2 value (packed)  3 label
 *   Label     1 key  2 str  3 num  (string indices / int64)
 *   Mapping   1 id  2 memory_start  3 memory_limit  4 file_offset  5 filename
 *             6 build_id  7 has_functions  8 has_filenames
 *             9 has_line_numbers  10 has_inline_frames
 *   Location  1 id  2 mapping_id  3 address  4 line (Line)
 *   Line      1 function_id  2 line
 *   Function  1 id  2 name  3 system_name  4 filename  5 start_line
 *
 * Wire types: 0 varint, 2 length-delimited. Zero values are omitted
 * (proto3), except string_table entries, which are positional.
 */
#include "output/pprof.h"
#include "util/xalloc.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---- protobuf writing ---- */

struct pbw {
	struct buf b;
	int err;
};

static void pbw_init(struct pbw *w)
{
	buf_init(&w->b, 0);
	w->err = 0;
}

static void put_raw(struct pbw *w, const void *p, size_t n)
{
	if (!w->err)
		w->err = buf_append(&w->b, p, n);
}

static void put_varint(struct pbw *w, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;
	do {
		tmp[n] = v & 0x7f;
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	put_raw(w, tmp, n);
}

static void pb_u64(struct pbw *w, unsigned field, uint64_t v)
{
	if (!v)
		return;
	put_varint(w, (uint64_t)field << 3);
	put_varint(w, v);
}

static void pb_bool(struct pbw *w, unsigned field, bool v)
{
	pb_u64(w, field, v ? 1 : 0);
}

static void pb_bytes(struct pbw *w, unsigned field, const void *p, size_t n)
{
	put_varint(w, (uint64_t)field << 3 | 2);
	put_varint(w, n);
	put_raw(w, p, n);
}

static void pb_msg(struct pbw *w, unsigned field, struct pbw *m)
{
	if (m->err && !w->err)
		w->err = m->err;
	pb_bytes(w, field, m->b.data, m->b.len);
	m->b.len = 0;
	m->err = 0;
}

static void pb_packed(struct pbw *w, unsigned field, const uint64_t *v, size_t n, struct pbw *tmp)
{
	for (size_t i = 0; i < n; i++)
		put_varint(tmp, v[i]);
	pb_msg(w, field, tmp);
}

/* ---- string table ---- */

struct strtab {
	struct profile canon;   /* only its string interning is used */
	struct hmap idx;        /* canonical pointer -> index + 1 */
	const char **v;
	size_t n, cap;
};

static void strtab_init(struct strtab *t)
{
	memset(t, 0, sizeof(*t));
	profile_init(&t->canon);
	hmap_init(&t->idx);
}

static void strtab_release(struct strtab *t)
{
	profile_release(&t->canon);
	hmap_release(&t->idx);
	free(t->v);
}

static uint64_t str_index(struct strtab *t, const char *s)
{
	if (!s || !*s)
		s = "";
	const char *c = profile_str(&t->canon, s);
	uintptr_t got = (uintptr_t)hmap_get(&t->idx, (uintptr_t)c);
	if (got)
		return got - 1;
	if (!t->n) {
		/* index 0 is "" */
		if (ARRAY_GROW(t->v, t->cap, 1, SIZE_MAX / 16))
			xalloc_die();
		t->v[t->n++] = "";
		hmap_put(&t->idx, (uintptr_t)profile_str(&t->canon, ""), (void *)(uintptr_t)1);
		if (!*s)
			return 0;
	}
	if (ARRAY_GROW(t->v, t->cap, t->n + 1, SIZE_MAX / 16))
		xalloc_die();
	t->v[t->n] = c;
	hmap_put(&t->idx, (uintptr_t)c, (void *)(uintptr_t)(t->n + 1));
	return t->n++;
}

/* ---- mappings, collected during the run ---- */

void pprof_init(struct pprof *pp)
{
	memset(pp, 0, sizeof(*pp));
	hmap_init(&pp->map_by_dso);
}

void pprof_release(struct pprof *pp)
{
	free(pp->maps);
	hmap_release(&pp->map_by_dso);
}

static void on_sample(void *ctx, uint32_t leaf, const struct resolved_sample *rs)
{
	struct pprof *pp = ctx;
	(void)leaf;
	for (uint32_t i = 0; i < rs->nr_frames; i++) {
		const struct frame *fr = &rs->frames[i];
		if (!fr->dso)
			continue;
		uintptr_t got = (uintptr_t)hmap_get(&pp->map_by_dso, (uintptr_t)fr->dso);
		struct pprof_mapping *m;
		if (got) {
			m = &pp->maps[got - 1];
		} else {
			if (ARRAY_GROW(pp->maps, pp->cap_maps, pp->nr_maps + 1, 1u << 20))
				continue;
			m = &pp->maps[pp->nr_maps++];
			memset(m, 0, sizeof(*m));
			m->dso = fr->dso;
			m->kind = fr->kind;
			if (fr->map) {
				m->start = fr->map->start;
				m->limit = fr->map->end;
				m->pgoff = fr->map->pgoff;
				for (unsigned k = 0; k < fr->map->build_id_size && k < 20; k++)
					snprintf(m->build_id + 2 * k, 3, "%02x", fr->map->build_id[k]);
			}
			hmap_put(&pp->map_by_dso, (uintptr_t)fr->dso, (void *)(uintptr_t)pp->nr_maps);
		}
		if (i == 0 || (i == 1 && rs->frames[0].kind != FRAME_USER))
			m->hits++;
		if (fr->sym)
			m->has_functions = true;
		if (fr->file)
			m->has_filenames = true;
		if (fr->line)
			m->has_lines = true;
		if (fr->inlined)
			m->has_inline = true;
	}
}

void pprof_sink_config(struct pprof *pp, struct profile_sink_config *c)
{
	c->root = PROFILE_ROOT_THREAD;
	c->inline_frames = true;
	c->by_addr = true;
	c->unknown_by_addr = true;
	c->on_sample = on_sample;
	c->on_sample_ctx = pp;
}

/* ---- encoding ---- */

static int cmp_map(const void *a, const void *b, void *arg)
{
	const struct pprof *sort_pp = arg;
	const struct pprof_mapping *x = &sort_pp->maps[*(const uint32_t *)a];
	const struct pprof_mapping *y = &sort_pp->maps[*(const uint32_t *)b];
	bool ux = x->kind == FRAME_USER, uy = y->kind == FRAME_USER;
	if (ux != uy)
		return ux ? -1 : 1;
	if (x->hits != y->hits)
		return x->hits > y->hits ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* One encoding: the messages being written and what numbers them. */
struct enc {
	struct pprof *pp;
	const struct profile_sink *s;
	const struct profile *p;
	struct pbw w;          /* the Profile */
	struct pbw m, tmp;     /* the message being built, scratch */
	struct pbw funs, locs; /* Functions and Locations, in the order met */
	struct strtab st;
	bool tm; /* --off-cpu, --wall: cpu, off_cpu and wall values */
	uint64_t s_vtype, s_vunit, s_off, s_wall, s_pid, s_tid, s_comm, s_host, s_hostv;
	/* functions (name, file) and locations (outer frame, innermost frame)
	 * are numbered as they are first met while the samples are written */
	struct hmap fun_ids, loc_ids;
	uint64_t next_fun, next_loc;
	uint64_t *loc_list, *fr_list;
	size_t cap_loc, cap_fr;
};

/* A ValueType {type, unit} as field of w. */
static void put_value_type(struct enc *e, struct pbw *w, unsigned field, uint64_t type,
			   uint64_t unit)
{
	pb_u64(&e->m, 1, type);
	pb_u64(&e->m, 2, unit);
	pb_msg(w, field, &e->m);
}

/* A Label {key, str or num} of the sample in e->m. */
static void put_label(struct enc *e, uint64_t key, uint64_t str, uint64_t num)
{
	pb_u64(&e->tmp, 1, key);
	pb_u64(&e->tmp, 2, str);
	pb_u64(&e->tmp, 3, num);
	pb_msg(&e->m, 3, &e->tmp);
}

/* The strings every profile names (first in the table), then
 * sample_type: samples/count, cpu/nanoseconds (or event/count); with
 * --off-cpu or --wall also off_cpu/nanoseconds and wall/nanoseconds, a
 * stack being off-CPU when its leaf is PF_OFFCPU. */
static void put_sample_types(struct enc *e)
{
	struct strtab *st = &e->st;
	bool ns = profile_sink_period_is_ns(e->s);
	str_index(st, "");
	uint64_t s_samples = str_index(st, "samples"), s_count = str_index(st, "count");
	e->s_vtype = str_index(st, ns || e->tm ? "cpu"
				  : (e->s->event_name ? e->s->event_name : "events"));
	e->s_vunit = str_index(st, ns || e->tm ? "nanoseconds" : "count");
	e->s_off = e->tm ? str_index(st, "off_cpu") : 0;
	e->s_wall = e->tm ? str_index(st, "wall") : 0;
	e->s_pid = str_index(st, "pid");
	e->s_tid = str_index(st, "tid");
	e->s_comm = str_index(st, "comm");
	e->s_host = e->pp->host ? str_index(st, "host") : 0;
	e->s_hostv = e->pp->host ? str_index(st, e->pp->host) : 0;
	put_value_type(e, &e->w, 1, s_samples, s_count);
	put_value_type(e, &e->w, 1, e->s_vtype, e->s_vunit);
	if (e->tm) {
		put_value_type(e, &e->w, 1, e->s_off, e->s_vunit);
		put_value_type(e, &e->w, 1, e->s_wall, e->s_vunit);
	}
}

/* The mappings: readers take the first for the main binary, so the one
 * with the most samples (user space before the kernel) goes first. */
static void put_mappings(struct enc *e)
{
	struct pprof *pp = e->pp;
	uint32_t *mo = xcalloc(pp->nr_maps ? pp->nr_maps : 1, sizeof(uint32_t));
	for (size_t i = 0; i < pp->nr_maps; i++)
		mo[i] = (uint32_t)i;
	qsort_r(mo, pp->nr_maps, sizeof(uint32_t), cmp_map, pp);
	for (size_t i = 0; i < pp->nr_maps; i++)
		pp->maps[mo[i]].id = (uint32_t)i + 1;
	for (size_t i = 0; i < pp->nr_maps; i++) {
		const struct pprof_mapping *mp = &pp->maps[mo[i]];
		pb_u64(&e->m, 1, mp->id);
		pb_u64(&e->m, 2, mp->start);
		pb_u64(&e->m, 3, mp->limit);
		pb_u64(&e->m, 4, mp->pgoff);
		pb_u64(&e->m, 5, str_index(&e->st, mp->dso));
		pb_u64(&e->m, 6, str_index(&e->st, mp->build_id));
		pb_bool(&e->m, 7, mp->has_functions);
		pb_bool(&e->m, 8, mp->has_filenames);
		pb_bool(&e->m, 9, mp->has_lines);
		pb_bool(&e->m, 10, mp->has_inline);
		pb_msg(&e->w, 3, &e->m);
	}
	free(mo);
}

/* The id of f's Function, written to e->funs when first met. */
static uint64_t function_id(struct enc *e, const struct pframe *f)
{
	uintptr_t fid = (uintptr_t)hmap_get(&e->fun_ids, (uintptr_t)f->name);
	if (fid)
		return fid;
	fid = e->next_fun++;
	hmap_put(&e->fun_ids, (uintptr_t)f->name, (void *)fid);
	pb_u64(&e->tmp, 1, fid);
	pb_u64(&e->tmp, 2, str_index(&e->st, f->name));
	pb_u64(&e->tmp, 3, str_index(&e->st, f->name));
	pb_u64(&e->tmp, 4, str_index(&e->st, f->file));
	pb_msg(&e->funs, 5, &e->tmp);
	return fid;
}

/* The id of the Location of frames fr_list[k..g] (inlined frames, then
 * their caller, at one address), written to e->locs when first met. */
static uint64_t location_id(struct enc *e, size_t k, size_t g)
{
	const struct profile *p = e->p;
	struct pprof *pp = e->pp;
	uint64_t key = e->fr_list[g] << 32 | e->fr_list[k];
	uintptr_t lid = (uintptr_t)hmap_get(&e->loc_ids, key);
	if (lid)
		return lid;
	lid = e->next_loc++;
	hmap_put(&e->loc_ids, key, (void *)lid);
	const struct pframe *outer = &p->frames[e->fr_list[g]];
	uintptr_t mi = outer->dso ? (uintptr_t)hmap_get(&pp->map_by_dso, (uintptr_t)outer->dso) : 0;
	uint64_t mid = mi ? pp->maps[mi - 1].id : 0;
	/* processes map a DSO at different addresses: give the address in
	 * the mapping that is written (the first seen), through the file
	 * offset, so readers symbolize it right */
	uint64_t addr = outer->ip;
	if (mi && outer->file_off) {
		const struct pprof_mapping *mp = &pp->maps[mi - 1];
		uint64_t a = mp->start + outer->file_off - mp->pgoff;
		if (outer->file_off >= mp->pgoff && a >= mp->start && a < mp->limit)
			addr = a;
	}
	pb_u64(&e->m, 1, lid);
	pb_u64(&e->m, 2, mid);
	pb_u64(&e->m, 3, addr);
	for (size_t j = k; j <= g; j++) {
		const struct pframe *f = &p->frames[e->fr_list[j]];
		if (f->unknown)
			continue; /* address only: readers show it as hex */
		uint64_t fid = function_id(e, f);
		struct pbw line;
		pbw_init(&line);
		pb_u64(&line, 1, fid);
		pb_u64(&line, 2, f->line);
		pb_msg(&e->m, 4, &line);
		buf_release(&line.b);
	}
	pb_msg(&e->locs, 4, &e->m);
	return lid;
}

/* The Sample of node id (which has samples of its own): its locations,
 * leaf first, its values, its thread's labels. */
static void put_sample(struct enc *e, size_t id)
{
	const struct profile *p = e->p;
	const struct pnode *n = &p->nodes[id];
	/* frames leaf first, up to (not including) the thread node */
	size_t nf = 0;
	uint32_t thread_node = PROFILE_NONE;
	for (uint32_t a = (uint32_t)id; a && a != PROFILE_NONE; a = p->nodes[a].parent) {
		if (p->nodes[a].depth == 1) {
			thread_node = a;
			break;
		}
		if (ARRAY_GROW(e->fr_list, e->cap_fr, nf + 1, PROFILE_MAX_NODES))
			xalloc_die();
		e->fr_list[nf++] = p->nodes[a].frame;
	}
	size_t nl = 0;
	for (size_t k = 0; k < nf;) {
		/* the group at one address: inlined frames, then their caller */
		size_t g = k;
		const uint64_t *fl = e->fr_list;
		while (g + 1 < nf && p->frames[fl[g]].inlined &&
		       p->frames[fl[g + 1]].addr == p->frames[fl[g]].addr &&
		       p->frames[fl[g + 1]].dso == p->frames[fl[g]].dso)
			g++;
		uint64_t lid = location_id(e, k, g);
		if (ARRAY_GROW(e->loc_list, e->cap_loc, nl + 1, PROFILE_MAX_NODES))
			xalloc_die();
		e->loc_list[nl++] = lid;
		k = g + 1;
	}
	pb_packed(&e->m, 1, e->loc_list, nl, &e->tmp);
	uint64_t values[4] = { n->self_samples, n->self_period };
	if (e->tm) {
		bool off = p->frames[n->frame].kind == PF_OFFCPU;
		values[1] = off ? 0 : n->self_period;
		values[2] = off ? n->self_period : 0;
		values[3] = n->self_period;
	}
	pb_packed(&e->m, 2, values, e->tm ? 4 : 2, &e->tmp);
	if (thread_node != PROFILE_NONE) {
		const struct pframe *t = &p->frames[p->nodes[thread_node].frame];
		put_label(e, e->s_pid, 0, t->addr >> 32);
		put_label(e, e->s_tid, 0, t->addr & 0xffffffffu);
		put_label(e, e->s_comm, str_index(&e->st, t->name), 0);
		if (e->pp->host)
			put_label(e, e->s_host, e->s_hostv, 0);
	}
	pb_msg(&e->w, 2, &e->m);
}

/* After the samples: the times, period_type and period, the comment,
 * default_sample_type, and the string table last (every index is known
 * now). */
static void put_trailer(struct enc *e)
{
	const struct profile_sink *s = e->s;
	struct pprof *pp = e->pp;
	if (pp->time_nanos)
		pb_u64(&e->w, 9, (uint64_t)pp->time_nanos);
	if (pp->duration_nanos)
		pb_u64(&e->w, 10, (uint64_t)pp->duration_nanos);
	else if (s->time_last > s->time_first)
		pb_u64(&e->w, 10, s->time_last - s->time_first);
	put_value_type(e, &e->w, 11, e->tm ? e->s_wall : e->s_vtype, e->s_vunit);
	if (e->p->samples)
		pb_u64(&e->w, 12, e->p->period / e->p->samples);
	char comment[600];
	if (pp->comment)
		snprintf(comment, sizeof(comment), "%s", pp->comment);
	else
		snprintf(comment, sizeof(comment), "scorch export -f pprof%s%s", pp->input ? " -i " : "",
			 pp->input ? pp->input : "");
	pb_u64(&e->w, 13, str_index(&e->st, comment));
	pb_u64(&e->w, 14, !e->tm ? e->s_vtype
			   : s->cfg.filter.time_mode == OFFCPU_MODE_OFF_CPU ? e->s_off : e->s_wall);
	for (size_t i = 0; i < e->st.n; i++)
		pb_bytes(&e->w, 6, e->st.v[i], strlen(e->st.v[i]));
}

/* The len bytes at p, gzip'd, appended to out. 0 or -errno. */
static int gzip_into(const uint8_t *p, size_t len, struct buf *out)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	uLong bound = deflateBound(&z, (uLong)len);
	int rc = buf_reserve(out, bound + 64);
	if (!rc) {
		z.next_in = (Bytef *)p;
		z.avail_in = (uInt)len;
		z.next_out = out->data + out->len;
		z.avail_out = (uInt)(out->cap - out->len);
		if (deflate(&z, Z_FINISH) != Z_STREAM_END)
			rc = -EIO;
		else
			out->len += z.total_out;
	}
	deflateEnd(&z);
	return rc;
}

int pprof_encode(struct pprof *pp, const struct profile_sink *s, bool gzip, struct buf *out)
{
	struct enc e = { .pp = pp, .s = s, .p = &s->prof, .tm = s->offcpu != NULL,
			 .next_fun = 1, .next_loc = 1 };
	pbw_init(&e.w);
	pbw_init(&e.m);
	pbw_init(&e.tmp);
	pbw_init(&e.funs);
	pbw_init(&e.locs);
	strtab_init(&e.st);
	hmap_init(&e.fun_ids);
	hmap_init(&e.loc_ids);

	put_sample_types(&e);
	put_mappings(&e);
	for (size_t id = 1; id < e.p->nr_nodes; id++)
		if (e.p->nodes[id].self_samples)
			put_sample(&e, id);
	put_raw(&e.w, e.locs.b.data, e.locs.b.len);
	put_raw(&e.w, e.funs.b.data, e.funs.b.len);
	if (e.locs.err || e.funs.err)
		e.w.err = e.w.err ? e.w.err : -E2BIG;
	put_trailer(&e);

	int rc = e.w.err;
	if (!rc)
		rc = gzip ? gzip_into(e.w.b.data, e.w.b.len, out)
			  : buf_append(out, e.w.b.data, e.w.b.len);
	free(e.loc_list);
	free(e.fr_list);
	hmap_release(&e.fun_ids);
	hmap_release(&e.loc_ids);
	buf_release(&e.funs.b);
	buf_release(&e.locs.b);
	buf_release(&e.w.b);
	buf_release(&e.m.b);
	buf_release(&e.tmp.b);
	strtab_release(&e.st);
	return rc;
}

int pprof_write(struct pprof *pp, const struct profile_sink *s, FILE *out)
{
	struct buf b;
	buf_init(&b, 0);
	int rc = pprof_encode(pp, s, true, &b);
	if (!rc && fwrite(b.data, 1, b.len, out) != b.len)
		rc = -EIO;
	buf_release(&b);
	return rc;
}
