/*
 * perfparser.c: the perfparser stream encoder (see perfparser.h); the
 * pipeline sink that drives it is perfparser_sink.c.
 *
 * Output is built in one buffer and written to the fd in large chunks; an
 * event is framed in place (a 4-byte size placeholder patched when the event
 * is complete). Task events go to a second buffer and are moved to the
 * output when a sample at or after their time is written, so hotspot gets
 * them in the order hotspot-perfparser sends them (it sorts its buffer by
 * time and sends task events just before the first later sample).
 *
 * Interning: strings by content (and, for strings that live as long as the
 * pipeline, by pointer first), locations by their full key (struct
 * perfparser_loc_key: what is written plus the identity of the function it
 * stands for). Every id is defined (its event written) the first time it is
 * interned, so ids count up in order of definition.
 */
#include "output/perfparser.h"
#include "output/perfparser_trace.h"
#include "output/qdatastream.h"
#include "util/hash.h"
#include "util/sys.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OUT_FLUSH_AT (1u << 20)

/* ---- interning tables ---- */

struct str_entry {
	char *s;
	size_t n;
	uint64_t hash;
	int32_t id;
};

struct str_table {
	struct str_entry *e; /* open addressing, cap power of two */
	size_t cap, len;
};

/* Locations: the keys in id order (ids are dense, from 0), and an open
 * addressing index of 8-byte slots over them (id + 1 and the hash's low
 * half): a big stream's hundreds of thousands of locations cost ~60 bytes
 * each instead of a table of whole keys kept half empty. */
struct loc_table {
	struct perfparser_loc_key *keys;
	size_t len, keys_cap;
	uint64_t *slot;      /* the hash's low half << 32 | id + 1; 0: empty (one
			      * array: a probe is one cache miss, not two) */
	size_t cap;          /* a power of two */
};

struct pending {
	uint64_t time;
	size_t end;          /* end offset of its bytes in pp->task */
};

struct perfparser {
	struct perfparser_opts o;
	int fd;
	int err;
	struct buf out;
	struct buf task;          /* held-back task events */
	size_t task_head;
	struct pending *pend;
	size_t pend_head, pend_len, pend_cap;
	struct str_table strs;
	struct hmap str_by_ptr;   /* pointer of a pipeline-lifetime string -> id + 1 */
	int32_t next_string;
	struct loc_table locs;    /* location ids are positions in locs.keys */
	struct perfparser_counts counts;
	struct perfparser_trace *trace;   /* tracepoint formats of the tracing data */
};

static void set_err(struct perfparser *pp, int rc)
{
	if (rc && !pp->err)
		pp->err = rc;
}

void perfparser_opts_init(struct perfparser_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->fd = 1;
	o->header = true;
}

struct perfparser *perfparser_new(const struct perfparser_opts *o)
{
	struct perfparser *pp = xcalloc(1, sizeof(*pp));
	pp->o = *o;
	pp->fd = o->fd;
	buf_init(&pp->out, 0);
	buf_init(&pp->task, 0);
	hmap_init(&pp->str_by_ptr);
	if (o->header) {
		static const char magic[] = "QPERFSTREAM";
		buf_append(&pp->out, magic, sizeof(magic));
		uint8_t v[4] = { PERFPARSER_QDS_VERSION, 0, 0, 0 };
		set_err(pp, buf_append(&pp->out, v, 4));
	}
	return pp;
}

void perfparser_free(struct perfparser *pp)
{
	if (!pp)
		return;
	for (size_t i = 0; i < pp->strs.cap; i++)
		free(pp->strs.e[i].s);
	free(pp->strs.e);
	free(pp->locs.keys);
	free(pp->locs.slot);
	free(pp->pend);
	perfparser_trace_free(pp->trace);
	hmap_release(&pp->str_by_ptr);
	buf_release(&pp->out);
	buf_release(&pp->task);
	free(pp);
}

const struct buf *perfparser_buffer(const struct perfparser *pp)
{
	return &pp->out;
}

int perfparser_error_state(const struct perfparser *pp)
{
	return pp->err;
}

const struct perfparser_counts *perfparser_counts(const struct perfparser *pp)
{
	return &pp->counts;
}

static void out_maybe_flush(struct perfparser *pp)
{
	if (pp->fd < 0 || pp->out.len < OUT_FLUSH_AT || pp->err)
		return;
	set_err(pp, sys_write_all(pp->fd, pp->out.data, pp->out.len, false));
	pp->counts.bytes += pp->out.len;
	pp->out.len = 0;
}

/* Frame an event in b: returns the offset of its size field. */
static size_t ev_begin(struct buf *b, uint8_t type)
{
	size_t at = b->len;
	qds_put_u32(b, 0);
	qds_put_u8(b, type);
	return at;
}

static void ev_end(struct perfparser *pp, struct buf *b, size_t at)
{
	if (b->len < at + 5) { /* an append failed */
		set_err(pp, -ENOMEM);
		b->len = at;
		return;
	}
	uint32_t n = (uint32_t)(b->len - at - 4);
	b->data[at] = (uint8_t)n; /* little endian */
	b->data[at + 1] = (uint8_t)(n >> 8);
	b->data[at + 2] = (uint8_t)(n >> 16);
	b->data[at + 3] = (uint8_t)(n >> 24);
}

/* Move held-back task events with time <= t (all when all) to the output. */
static void release_tasks(struct perfparser *pp, uint64_t t, bool all)
{
	size_t from = pp->task_head, to = from;
	while (pp->pend_head < pp->pend_len && (all || pp->pend[pp->pend_head].time <= t)) {
		to = pp->pend[pp->pend_head].end;
		pp->pend_head++;
	}
	if (to > from) {
		set_err(pp, buf_append(&pp->out, pp->task.data + from, to - from));
		pp->task_head = to;
	}
	if (pp->pend_head == pp->pend_len) {
		pp->pend_head = pp->pend_len = 0;
		pp->task.len = pp->task_head = 0;
	} else if (pp->task_head > (1u << 20) && pp->task_head * 2 > pp->task.len) {
		size_t shift = pp->task_head;
		buf_consume(&pp->task, shift);
		for (size_t i = pp->pend_head; i < pp->pend_len; i++)
			pp->pend[i - pp->pend_head].end = pp->pend[i].end - shift;
		pp->pend_len -= pp->pend_head;
		pp->pend_head = 0;
		pp->task_head = 0;
	}
	out_maybe_flush(pp);
}

int perfparser_flush(struct perfparser *pp, bool all)
{
	if (all)
		release_tasks(pp, 0, true);
	if (pp->fd >= 0 && !pp->err && pp->out.len) {
		set_err(pp, sys_write_all(pp->fd, pp->out.data, pp->out.len, false));
		pp->counts.bytes += pp->out.len;
		pp->out.len = 0;
	}
	return pp->err;
}

/* ---- strings ---- */

static int32_t str_lookup(struct perfparser *pp, const char *s, size_t n, bool *isnew)
{
	struct str_table *t = &pp->strs;
	*isnew = false;
	if (t->len * 2 >= t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 1024;
		struct str_entry *ne = xcalloc(nc, sizeof(*ne));
		for (size_t i = 0; i < t->cap; i++) {
			if (!t->e[i].s)
				continue;
			size_t j = t->e[i].hash & (nc - 1);
			while (ne[j].s)
				j = (j + 1) & (nc - 1);
			ne[j] = t->e[i];
		}
		free(t->e);
		t->e = ne;
		t->cap = nc;
	}
	uint64_t h = hash_bytes(s, n);
	size_t j = h & (t->cap - 1);
	while (t->e[j].s) {
		if (t->e[j].hash == h && t->e[j].n == n && !memcmp(t->e[j].s, s, n))
			return t->e[j].id;
		j = (j + 1) & (t->cap - 1);
	}
	t->e[j].s = xstrndup(s, n);
	t->e[j].n = n;
	t->e[j].hash = h;
	t->e[j].id = pp->next_string++;
	t->len++;
	*isnew = true;
	return t->e[j].id;
}

int32_t perfparser_string_n(struct perfparser *pp, const char *s, size_t n)
{
	if (!s || !n)
		return -1;
	bool isnew;
	int32_t id = str_lookup(pp, s, n, &isnew);
	if (isnew) {
		size_t at = ev_begin(&pp->out, PPE_STRING);
		qds_put_u32(&pp->out, (uint32_t)id);
		qds_put_bytes(&pp->out, s, n);
		ev_end(pp, &pp->out, at);
		pp->counts.strings++;
		out_maybe_flush(pp);
	}
	return id;
}

int32_t perfparser_string(struct perfparser *pp, const char *s)
{
	return s ? perfparser_string_n(pp, s, strlen(s)) : -1;
}

int32_t perfparser_string_stable(struct perfparser *pp, const char *s)
{
	if (!s || !*s)
		return -1;
	void *v = hmap_get(&pp->str_by_ptr, (uint64_t)(uintptr_t)s);
	if (v)
		return (int32_t)((intptr_t)v - 1);
	int32_t id = perfparser_string(pp, s);
	hmap_put(&pp->str_by_ptr, (uint64_t)(uintptr_t)s, (void *)(intptr_t)(id + 1));
	return id;
}

/* ---- locations and symbols ---- */

static uint64_t loc_hash(const struct perfparser_loc_key *k)
{
	uint64_t h = hash_u64(k->address ^ ((uint64_t)k->pid << 32 | (uint32_t)k->parent));
	h ^= hash_u64(((uint64_t)(uint32_t)k->file << 32 | (uint32_t)k->line) ^
		      ((uint64_t)(uint32_t)k->sym_name << 21) ^ ((uint64_t)(uint32_t)k->column << 7) ^
		      (uint64_t)(uint32_t)k->sym_binary ^ ((uint64_t)(uint32_t)k->dso_id << 40));
	return h;
}

int32_t perfparser_location_intern(struct perfparser *pp, const struct perfparser_loc_key *k,
				  uint64_t address, uint32_t pid, bool *isnew)
{
	struct loc_table *t = &pp->locs;
	*isnew = false;
	if (t->len * 2 >= t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 4096;
		uint64_t *ns = xcalloc(nc, sizeof(*ns));
		for (size_t id = 0; id < t->len; id++) {
			uint64_t h = loc_hash(&t->keys[id]);
			size_t j = h & (nc - 1);
			while (ns[j])
				j = (j + 1) & (nc - 1);
			ns[j] = h << 32 | (id + 1);
		}
		free(t->slot);
		t->slot = ns;
		t->cap = nc;
	}
	uint64_t h = loc_hash(k);
	size_t j = h & (t->cap - 1);
	for (uint64_t v; (v = t->slot[j]); j = (j + 1) & (t->cap - 1)) {
		uint32_t id = (uint32_t)v - 1;
		if (v >> 32 == (uint32_t)h && !memcmp(&t->keys[id], k, sizeof(*k)))
			return (int32_t)id;
	}
	if (t->len == t->keys_cap) {
		t->keys_cap = t->keys_cap ? t->keys_cap * 2 : 4096;
		t->keys = xrealloc(t->keys, t->keys_cap * sizeof(*t->keys));
	}
	int32_t id = (int32_t)t->len;
	t->keys[t->len] = *k;
	t->slot[j] = h << 32 | (t->len + 1);
	t->len++;
	*isnew = true;
	const struct perfparser_loc_key *l = k;
	size_t at = ev_begin(&pp->out, PPE_LOCATION);
	qds_put_u32(&pp->out, (uint32_t)id);
	qds_put_u64(&pp->out, address);
	qds_put_u32(&pp->out, (uint32_t)l->file);
	qds_put_u32(&pp->out, pid);
	qds_put_u32(&pp->out, (uint32_t)l->line);
	qds_put_u32(&pp->out, (uint32_t)l->column);
	qds_put_u32(&pp->out, (uint32_t)l->parent);
	ev_end(pp, &pp->out, at);
	pp->counts.locations++;
	return id;
}

int32_t perfparser_location(struct perfparser *pp, const struct perfparser_location *loc)
{
	struct perfparser_loc_key k;
	memset(&k, 0, sizeof(k));
	k.address = loc->address;
	k.file = loc->file;
	k.pid = loc->pid;
	k.line = loc->line;
	k.column = loc->column;
	k.parent = loc->parent;
	k.sym_name = k.sym_binary = -2;
	bool isnew;
	int32_t id = perfparser_location_intern(pp, &k, k.address, k.pid, &isnew);
	out_maybe_flush(pp);
	return id;
}

void perfparser_symbol(struct perfparser *pp, int32_t location, int32_t name, int32_t binary,
		       int32_t path, bool is_kernel)
{
	size_t at = ev_begin(&pp->out, PPE_SYMBOL);
	qds_put_u32(&pp->out, (uint32_t)location);
	qds_put_u32(&pp->out, (uint32_t)name);
	qds_put_u32(&pp->out, (uint32_t)binary);
	qds_put_u32(&pp->out, (uint32_t)path);
	qds_put_u8(&pp->out, is_kernel);
	ev_end(pp, &pp->out, at);
	pp->counts.symbols++;
	out_maybe_flush(pp);
}

/* ---- task events (held back) ---- */

static size_t task_begin(struct perfparser *pp, uint8_t type, uint32_t pid, uint32_t tid,
			 uint64_t time, uint32_t cpu)
{
	size_t at = ev_begin(&pp->task, type);
	qds_put_u32(&pp->task, pid);
	qds_put_u32(&pp->task, tid);
	qds_put_u64(&pp->task, time);
	qds_put_u32(&pp->task, cpu);
	return at;
}

static void task_end(struct perfparser *pp, size_t at, uint64_t time)
{
	ev_end(pp, &pp->task, at);
	if (pp->pend_len == pp->pend_cap &&
	    ARRAY_GROW(pp->pend, pp->pend_cap, pp->pend_len + 1, (size_t)1 << 28)) {
		set_err(pp, -ENOMEM);
		return;
	}
	pp->pend[pp->pend_len].time = time;
	pp->pend[pp->pend_len].end = pp->task.len;
	pp->pend_len++;
	pp->counts.task_events++;
}

void perfparser_thread_start(struct perfparser *pp, uint32_t pid, uint32_t tid, uint64_t time,
			     uint32_t cpu, uint32_t ppid)
{
	size_t at = task_begin(pp, PPE_THREAD_START, pid, tid, time, cpu);
	qds_put_u32(&pp->task, ppid);
	task_end(pp, at, time);
}

void perfparser_thread_end(struct perfparser *pp, uint32_t pid, uint32_t tid, uint64_t time,
			   uint32_t cpu)
{
	task_end(pp, task_begin(pp, PPE_THREAD_END, pid, tid, time, cpu), time);
}

void perfparser_command(struct perfparser *pp, uint32_t pid, uint32_t tid, uint64_t time,
			uint32_t cpu, const char *comm)
{
	int32_t id = perfparser_string(pp, comm);
	size_t at = task_begin(pp, PPE_COMMAND, pid, tid, time, cpu);
	qds_put_u32(&pp->task, (uint32_t)id);
	task_end(pp, at, time);
}

void perfparser_lost(struct perfparser *pp, uint32_t pid, uint32_t tid, uint64_t time, uint32_t cpu)
{
	task_end(pp, task_begin(pp, PPE_LOST, pid, tid, time, cpu), time);
}

void perfparser_context_switch(struct perfparser *pp, uint32_t pid, uint32_t tid, uint64_t time,
			       uint32_t cpu, bool switch_out)
{
	size_t at = task_begin(pp, PPE_CONTEXT_SWITCH, pid, tid, time, cpu);
	qds_put_u8(&pp->task, switch_out);
	task_end(pp, at, time);
}

/* ---- header-like events ---- */

static void put_str_or_null(struct buf *b, const char *s)
{
	if (s)
		qds_put_bytes(b, s, strlen(s));
	else
		qds_put_null_bytes(b);
}

static void put_strlist(struct buf *b, const struct perf_strlist *l)
{
	qds_put_u32(b, l->nr);
	for (uint32_t i = 0; i < l->nr; i++)
		put_str_or_null(b, l->s[i] ? l->s[i] : "");
}

void perfparser_features(struct perfparser *pp, const struct perf_header *h, const char *arch)
{
	struct buf *b = &pp->out;
	size_t at = ev_begin(b, PPE_FEATURES);
	put_str_or_null(b, h->hostname);
	put_str_or_null(b, h->osrelease);
	put_str_or_null(b, h->version);
	put_str_or_null(b, h->arch ? h->arch : arch);
	/* hotspot reads online first, then available */
	qds_put_u32(b, h->nr_cpus_online);
	qds_put_u32(b, h->nr_cpus_avail);
	put_str_or_null(b, h->cpudesc);
	put_str_or_null(b, h->cpuid);
	qds_put_u64(b, h->total_mem);
	put_strlist(b, &h->cmdline);
	qds_put_u32(b, h->nr_build_ids);
	for (uint32_t i = 0; i < h->nr_build_ids; i++) {
		const struct perf_build_id *bi = &h->build_ids[i];
		qds_put_u32(b, (uint32_t)bi->pid);
		/* the file's 20-byte field, as hotspot-perfparser passes it on */
		qds_put_bytes(b, bi->id, sizeof(bi->id));
		put_str_or_null(b, bi->filename ? bi->filename : "");
	}
	put_strlist(b, &h->cpu_topo.core_siblings);
	put_strlist(b, &h->cpu_topo.thread_siblings);
	qds_put_u32(b, h->nr_numa);
	for (uint32_t i = 0; i < h->nr_numa; i++) {
		qds_put_u32(b, h->numa[i].node);
		qds_put_u64(b, h->numa[i].mem_total);
		qds_put_u64(b, h->numa[i].mem_free);
		put_str_or_null(b, h->numa[i].cpus ? h->numa[i].cpus : "");
	}
	qds_put_u32(b, h->nr_pmu);
	for (uint32_t i = 0; i < h->nr_pmu; i++) {
		qds_put_u32(b, h->pmu[i].type);
		put_str_or_null(b, h->pmu[i].name ? h->pmu[i].name : "");
	}
	qds_put_u32(b, h->nr_groups);
	for (uint32_t i = 0; i < h->nr_groups; i++) {
		put_str_or_null(b, h->groups[i].name ? h->groups[i].name : "");
		qds_put_u32(b, h->groups[i].leader_idx);
		qds_put_u32(b, h->groups[i].nr_members);
	}
	ev_end(pp, b, at);
	out_maybe_flush(pp);
}

void perfparser_error(struct perfparser *pp, int32_t code, const char *message)
{
	size_t at = ev_begin(&pp->out, PPE_ERROR);
	qds_put_u32(&pp->out, (uint32_t)code);
	qds_put_qstring(&pp->out, message ? message : "");
	ev_end(pp, &pp->out, at);
	pp->counts.errors++;
	out_maybe_flush(pp);
}

void perfparser_progress(struct perfparser *pp, double fraction)
{
	size_t at = ev_begin(&pp->out, PPE_PROGRESS);
	/* hotspot-perfparser's float goes through QDataStream as a double */
	qds_put_f64(&pp->out, (double)(float)fraction);
	ev_end(pp, &pp->out, at);
	out_maybe_flush(pp);
}

void perfparser_tracepoint_format(struct perfparser *pp, int32_t id, int32_t system, int32_t name,
				  uint32_t flags)
{
	size_t at = ev_begin(&pp->out, PPE_TRACEPOINT_FORMAT);
	qds_put_u32(&pp->out, (uint32_t)id);
	qds_put_u32(&pp->out, (uint32_t)system);
	qds_put_u32(&pp->out, (uint32_t)name);
	qds_put_u32(&pp->out, flags);
	ev_end(pp, &pp->out, at);
	out_maybe_flush(pp);
}

void perfparser_attributes(struct perfparser *pp, int32_t id, uint32_t type, uint64_t config,
			   int32_t name, bool uses_frequency, uint64_t frequency_or_period)
{
	size_t at = ev_begin(&pp->out, PPE_ATTRIBUTES);
	qds_put_u32(&pp->out, (uint32_t)id);
	qds_put_u32(&pp->out, type);
	qds_put_u64(&pp->out, config);
	qds_put_u32(&pp->out, (uint32_t)name);
	qds_put_u8(&pp->out, uses_frequency);
	qds_put_u64(&pp->out, frequency_or_period);
	ev_end(pp, &pp->out, at);
	out_maybe_flush(pp);
}

void perfparser_sample(struct perfparser *pp, bool tracepoint, uint32_t pid, uint32_t tid,
		       uint64_t time, uint32_t cpu, const int32_t *frames, uint32_t nr_frames,
		       uint8_t guessed, const struct perfparser_cost *costs, uint32_t nr_costs,
		       const uint8_t *trace_fields, size_t trace_fields_len)
{
	release_tasks(pp, time, false);
	struct buf *b = &pp->out;
	size_t at = ev_begin(b, tracepoint ? PPE_TRACEPOINT_SAMPLE : PPE_SAMPLE);
	qds_put_u32(b, pid);
	qds_put_u32(b, tid);
	qds_put_u64(b, time);
	qds_put_u32(b, cpu);
	qds_put_u32(b, nr_frames);
	if (buf_reserve(b, (size_t)nr_frames * 4) == 0) {
		uint8_t *p = b->data + b->len;
		for (uint32_t i = 0; i < nr_frames; i++, p += 4) {
			uint32_t v = (uint32_t)frames[i];
			p[0] = (uint8_t)(v >> 24);
			p[1] = (uint8_t)(v >> 16);
			p[2] = (uint8_t)(v >> 8);
			p[3] = (uint8_t)v;
		}
		b->len += (size_t)nr_frames * 4;
	}
	qds_put_u8(b, guessed);
	qds_put_u32(b, nr_costs);
	for (uint32_t i = 0; i < nr_costs; i++) {
		qds_put_u32(b, (uint32_t)costs[i].attr);
		qds_put_u64(b, costs[i].cost);
	}
	if (tracepoint) {
		if (trace_fields && trace_fields_len)
			buf_append(b, trace_fields, trace_fields_len);
		else
			qds_put_u32(b, 0);
	}
	ev_end(pp, b, at);
	pp->counts.samples++;
	out_maybe_flush(pp);
}

/* ---- tracepoints ---- */

void perfparser_trace_formats(struct perfparser *pp, const uint8_t *data, size_t size)
{
	struct perfparser_trace *t = perfparser_trace_parse(data, size);
	if (!t)
		return;
	perfparser_trace_free(pp->trace);
	pp->trace = t;
	for (size_t i = 0; i < t->nr; i++) {
		struct perfparser_trace_format *f = &t->formats[i];
		int32_t sys = perfparser_string(pp, f->system);
		int32_t name = perfparser_string(pp, f->name);
		for (uint32_t k = 0; k < f->nr_common; k++)
			f->common[k].name_id = perfparser_string(pp, f->common[k].name);
		for (uint32_t k = 0; k < f->nr_fields; k++)
			f->fields[k].name_id = perfparser_string(pp, f->fields[k].name);
		perfparser_tracepoint_format(pp, f->id, sys, name, f->flags);
	}
}

void perfparser_trace_fields(struct perfparser *pp, uint64_t config, const uint8_t *raw,
			     size_t raw_size, struct buf *out)
{
	struct perfparser_trace_format *f =
		config <= INT32_MAX ? perfparser_trace_find(pp->trace, (int32_t)config) : NULL;
	perfparser_trace_encode_fields(pp->trace, f, raw, raw_size, out);
}
