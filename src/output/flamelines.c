/*
 * flamelines.c: see flamelines.h. Per profile frame: its file (the map's
 * path and build id) and its leaf addresses with their samples; one
 * exact-key hash map of frames and one of addresses per frame.
 */
#include "output/flamelines.h"
#include "analyze/dwarf/inlines.h"
#include "analyze/symbols/symbols.h"
#include "util/hash.h"
#include "util/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FL_MAX_FUNCS 200        /* functions with lines in one graph */
#define FL_MAX_TEXT 160         /* characters of a source line kept */
#define FL_INNER_OUTERMOST 0xff /* the address's own function (last entry) */

struct faddr {
	uint64_t rel, samples, period;
	uint8_t inner;          /* entry of the inline chain, or FL_INNER_OUTERMOST */
};

struct ffunc {
	uint32_t frame;
	const char *filename;
	uint8_t bid[20], bid_size;
	uint64_t samples, period;
	struct hmap at;         /* rel -> index + 1 in a */
	struct faddr *a;
	size_t n, cap;
};

struct flamelines {
	const struct flamelines_config *cfg;
	bool time_mode;
	const struct profile_sink_config *sc;
	struct profile *prof;   /* set by the first sample: the sink's */
	struct ffunc *f;
	size_t nr, cap;
	struct hmap by_frame;   /* frame -> index + 1 in f */
	struct fline_func *out;
	size_t nr_out;
	struct symbols *files;
};

static uint64_t weight_of(const struct flamelines *fl, const struct resolved_sample *rs)
{
	if (fl->time_mode)
		return rs->time_ns;
	uint64_t period = rs->ev ? rs->ev->s.period : 0;
	if (!period && rs->attr && !rs->attr->attr.freq)
		period = rs->attr->attr.sample_period;
	return period ? period : 1;
}

/* The frame the sink made the leaf of (profile_sink_sample's choices). */
static int32_t kept_leaf(const struct profile_sink_config *sc, const struct resolved_sample *rs)
{
	for (uint32_t i = 0; i < rs->nr_frames; i++) {
		const struct frame *fr = &rs->frames[i];
		if (fr->inlined && !sc->inline_frames && i + 1 < rs->nr_frames &&
		    rs->frames[i + 1].ip == fr->ip)
			continue;
		if (!sc->kernel && fr->kind != FRAME_USER && fr->kind != FRAME_GUEST_USER)
			continue;
		return (int32_t)i;
	}
	return -1;
}

static void on_sample(void *ctx, uint32_t leaf, const struct resolved_sample *rs)
{
	struct flamelines *fl = ctx;
	if (rs->off_cpu || !leaf)
		return;
	int32_t j = kept_leaf(fl->sc, rs);
	if (j < 0)
		return;
	const struct frame *fr = &rs->frames[j];
	if (fr->kind != FRAME_USER || !fr->map || !fr->dso_ident || !fr->sym)
		return;
	/* the leaf node's frame: profile_sink passes the node; the frame
	 * index is read at the end (the node array may move) */
	uint64_t key = leaf;
	uintptr_t k = (uintptr_t)hmap_get(&fl->by_frame, key);
	if (!k) {
		if (fl->nr == fl->cap) {
			fl->cap = fl->cap ? fl->cap * 2 : 64;
			fl->f = xrealloc(fl->f, fl->cap * sizeof(*fl->f));
		}
		struct ffunc *f = &fl->f[fl->nr];
		memset(f, 0, sizeof(*f));
		f->frame = leaf; /* a node until flamelines_compute */
		f->filename = fr->map->filename;
		f->bid_size = fr->map->build_id_size <= 20 ? fr->map->build_id_size : 20;
		memcpy(f->bid, fr->map->build_id, f->bid_size);
		hmap_init(&f->at);
		k = ++fl->nr;
		hmap_put(&fl->by_frame, key, (void *)k);
	}
	struct ffunc *f = &fl->f[k - 1];
	uint64_t w = weight_of(fl, rs);
	uintptr_t i = (uintptr_t)hmap_get(&f->at, fr->rel);
	if (!i) {
		if (f->n == f->cap) {
			f->cap = f->cap ? f->cap * 2 : 8;
			f->a = xrealloc(f->a, f->cap * sizeof(*f->a));
		}
		/* an inlined frame is entry (its place among the frames at its
		 * ip) of the chain; any other the address's own function */
		uint8_t inner = FL_INNER_OUTERMOST;
		if (fr->inlined) {
			uint32_t d = 0;
			for (int32_t b = j; b > 0 && rs->frames[b - 1].ip == fr->ip; b--)
				d++;
			inner = d < FL_INNER_OUTERMOST ? (uint8_t)d : FL_INNER_OUTERMOST;
		}
		f->a[f->n] = (struct faddr){ .rel = fr->rel, .inner = inner };
		i = ++f->n;
		hmap_put(&f->at, fr->rel, (void *)i);
	}
	f->a[i - 1].samples++;
	f->a[i - 1].period += w;
}

struct flamelines *flamelines_new(const struct flamelines_config *c, struct profile_sink_config *sc)
{
	struct flamelines *fl = xcalloc(1, sizeof(*fl));
	fl->cfg = c;
	fl->sc = sc;
	fl->time_mode = sc->filter.time_mode != OFFCPU_MODE_NONE;
	hmap_init(&fl->by_frame);
	sc->on_sample = on_sample;
	sc->on_sample_ctx = fl;
	return fl;
}

/* Line l (1-based) of path, at most FL_MAX_TEXT characters, tabs as
 * spaces, trailing blanks cut; NULL when not readable. */
static char *source_text(const char *path, uint32_t l)
{
	FILE *in = path && l ? fopen(path, "r") : NULL;
	if (!in)
		return NULL;
	char *line = NULL, *res = NULL;
	size_t cap = 0;
	ssize_t len;
	uint32_t at = 0;
	while ((len = getline(&line, &cap, in)) >= 0)
		if (++at == l) {
			while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r' ||
					   line[len - 1] == ' ' || line[len - 1] == '\t'))
				len--;
			if (len > FL_MAX_TEXT)
				len = FL_MAX_TEXT;
			res = xmalloc((size_t)len + 1);
			for (ssize_t c = 0; c < len; c++)
				res[c] = line[c] == '\t' ? ' ' : line[c];
			res[len] = 0;
			break;
		}
	free(line);
	fclose(in);
	return res;
}

static int cmp_line_key(const void *x, const void *y)
{
	const struct fline *a = x, *b = y;
	if (a->file != b->file)
		return (uintptr_t)a->file < (uintptr_t)b->file ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

static int cmp_line_weight(const void *x, const void *y)
{
	const struct fline *a = x, *b = y;
	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

static int cmp_func(const void *x, const void *y)
{
	const struct fline_func *a = x, *b = y;
	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	return a->frame < b->frame ? -1 : a->frame > b->frame;
}

static void quiet(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg; /* the analysis warned about the files already */
}

const struct fline_func *flamelines_compute(struct flamelines *fl, struct profile_sink *s,
					    bool by_samples, size_t *nr)
{
	const struct profile *p = &s->prof;
	/* nodes to frames: several leaf nodes share one function */
	struct hmap merged;
	hmap_init(&merged);
	struct fline_func *out = xcalloc(fl->nr ? fl->nr : 1, sizeof(*out));
	size_t no = 0;
	uint32_t *owner = xmalloc((fl->nr ? fl->nr : 1) * sizeof(*owner));
	for (size_t i = 0; i < fl->nr; i++) {
		struct ffunc *f = &fl->f[i];
		uint32_t frame = p->nodes[f->frame].frame;
		f->frame = frame;
		for (size_t k = 0; k < f->n; k++) {
			f->samples += f->a[k].samples;
			f->period += f->a[k].period;
		}
		uintptr_t m = (uintptr_t)hmap_get(&merged, frame);
		if (!m) {
			out[no] = (struct fline_func){ .frame = frame };
			m = ++no;
			hmap_put(&merged, frame, (void *)m);
		}
		owner[i] = (uint32_t)(m - 1);
		out[m - 1].samples += f->samples;
		out[m - 1].weight += by_samples ? f->samples : f->period;
	}
	hmap_release(&merged);
	uint64_t total = by_samples ? p->nodes[0].samples : p->nodes[0].period;
	uint64_t min = (uint64_t)((double)total * fl->cfg->min_percent / 100.0);
	/* which merged functions are hot enough (and not too many) */
	bool *hot = xcalloc(no ? no : 1, sizeof(*hot));
	{
		struct fline_func *tmp = xmalloc((no ? no : 1) * sizeof(*tmp));
		memcpy(tmp, out, no * sizeof(*tmp));
		qsort(tmp, no, sizeof(*tmp), cmp_func);
		for (size_t i = 0; i < no && i < FL_MAX_FUNCS; i++)
			if (tmp[i].weight && tmp[i].weight >= min)
				for (size_t k = 0; k < no; k++)
					if (out[k].frame == tmp[i].frame)
						hot[k] = true;
		free(tmp);
	}
	struct symbols_config syc = { 0 };
	const struct pipeline_config *pc = fl->cfg->pc;
	if (pc) {
		syc.sysroot = pc->sysroot;
		syc.debug_paths = pc->debug_paths;
		syc.extra_paths = pc->extra_paths;
		syc.app_path = pc->app_path;
	}
	syc.warn = quiet;
	fl->files = symbols_new(&syc);
	if (s->pipeline) {
		const struct perf_header *h = input_header(pipeline_input(s->pipeline));
		for (uint32_t i = 0; h && i < h->nr_build_ids; i++)
			symbols_add_build_id(fl->files, h->build_ids[i].filename, h->build_ids[i].id,
					     h->build_ids[i].size);
	}
	/* per merged function: its addresses' lines */
	struct fline **ls = xcalloc(no ? no : 1, sizeof(*ls));
	size_t *nl = xcalloc(no ? no : 1, sizeof(*nl)), *cl = xcalloc(no ? no : 1, sizeof(*cl));
	for (size_t i = 0; i < fl->nr; i++) {
		struct ffunc *f = &fl->f[i];
		uint32_t o = owner[i];
		if (!hot[o])
			continue;
		struct dso *dd = symbols_dso(fl->files, f->filename, f->bid_size ? f->bid : NULL,
					     f->bid_size);
		if (!dd || dd->missing)
			continue;
		for (size_t k = 0; k < f->n; k++) {
			const struct inline_entry *e;
			unsigned ne = dso_inlines(dd, f->a[k].rel, &e);
			if (!ne)
				continue;
			unsigned x = f->a[k].inner < ne ? f->a[k].inner : ne - 1;
			if (!e[x].file || !e[x].line)
				continue;
			if (nl[o] == cl[o]) {
				cl[o] = cl[o] ? cl[o] * 2 : 16;
				ls[o] = xrealloc(ls[o], cl[o] * sizeof(**ls));
			}
			ls[o][nl[o]++] = (struct fline){ .file = e[x].file, .line = e[x].line,
							 .samples = f->a[k].samples,
							 .weight = by_samples ? f->a[k].samples
									      : f->a[k].period };
		}
	}
	size_t kept = 0;
	for (size_t o = 0; o < no; o++) {
		struct fline *l = ls[o];
		size_t m = 0;
		if (!nl[o])
			continue; /* no line found for this function: l is NULL */
		qsort(l, nl[o], sizeof(*l), cmp_line_key);
		for (size_t i = 0; i < nl[o]; i++) {
			if (m && l[m - 1].file == l[i].file && l[m - 1].line == l[i].line) {
				l[m - 1].samples += l[i].samples;
				l[m - 1].weight += l[i].weight;
			} else {
				l[m++] = l[i];
			}
		}
		if (!m) {
			free(l);
			continue;
		}
		qsort(l, m, sizeof(*l), cmp_line_weight);
		if (m > fl->cfg->max_lines)
			m = fl->cfg->max_lines;
		for (size_t i = 0; i < m; i++)
			l[i].text = source_text(l[i].file, l[i].line);
		out[kept] = out[o];
		out[kept].lines = l;
		out[kept].nr_lines = m;
		kept++;
	}
	free(ls);
	free(nl);
	free(cl);
	free(hot);
	free(owner);
	qsort(out, kept, sizeof(*out), cmp_func);
	fl->out = out;
	fl->nr_out = kept;
	*nr = kept;
	return out;
}

void flamelines_free(struct flamelines *fl)
{
	if (!fl)
		return;
	for (size_t i = 0; i < fl->nr; i++) {
		hmap_release(&fl->f[i].at);
		free(fl->f[i].a);
	}
	for (size_t i = 0; i < fl->nr_out; i++) {
		for (size_t k = 0; k < fl->out[i].nr_lines; k++)
			free(fl->out[i].lines[k].text);
		free(fl->out[i].lines);
	}
	free(fl->out);
	free(fl->f);
	hmap_release(&fl->by_frame);
	if (fl->files)
		symbols_free(fl->files);
	free(fl);
}
