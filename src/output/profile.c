/*
 * profile.c: see profile.h. Three index tables (util/hash.h: struct itab)
 * of frames, nodes and strings, each keyed by the full key compared on
 * lookup (no 64-bit hash is trusted to be unique).
 */
#include "output/profile.h"
#include "util/buf.h"
#include "util/fmt.h"
#include "util/xalloc.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


void profile_init(struct profile *p)
{
	memset(p, 0, sizeof(*p));
	/* node 0: the root */
	p->cap_nodes = 1024;
	p->nodes = xcalloc(p->cap_nodes, sizeof(*p->nodes));
	p->nodes[0] = (struct pnode){ .parent = PROFILE_NONE, .frame = PROFILE_NONE,
				      .first_child = PROFILE_NONE, .next_sibling = PROFILE_NONE };
	p->nr_nodes = 1;
}

void profile_release(struct profile *p)
{
	for (size_t i = 0; i < p->nr_strs; i++)
		free(p->strs[i]);
	free(p->strs);
	itab_release(&p->stab);
	free(p->frames);
	free(p->nodes);
	itab_release(&p->ftab);
	itab_release(&p->ntab);
	memset(p, 0, sizeof(*p));
}

/* ---- strings ---- */

static uint64_t str_hash(const char *s)
{
	return hash_bytes(s, strlen(s));
}

static uint64_t str_hash_at(const void *ctx, size_t i)
{
	return str_hash(((const struct profile *)ctx)->strs[i]);
}

const char *profile_str(struct profile *p, const char *s)
{
	itab_reserve(&p->stab, p->nr_strs, 0, 256, str_hash_at, p);
	struct itab *t = &p->stab;
	size_t j;
	for (j = itab_first(t, str_hash(s)); t->slot[j] != ITAB_EMPTY; j = itab_next(t, j))
		if (!strcmp(p->strs[t->slot[j]], s))
			return p->strs[t->slot[j]];
	if (ARRAY_GROW(p->strs, p->cap_strs, p->nr_strs + 1, PROFILE_MAX_FRAMES))
		return "[too many names]";
	p->strs[p->nr_strs] = xstrdup(s);
	t->slot[j] = (uint32_t)p->nr_strs;
	return p->strs[p->nr_strs++];
}

/* ---- frames ---- */

static uint64_t frame_hash(const struct pframe *f)
{
	uint64_t h = hash_u64((uintptr_t)f->name);
	h = hash_u64(h ^ (uintptr_t)f->dso);
	h = hash_u64(h ^ f->addr);
	return h ^ ((uint64_t)f->kind << 1) ^ f->inlined;
}

static bool frame_eq(const struct pframe *a, const struct pframe *b)
{
	return a->name == b->name && a->dso == b->dso && a->addr == b->addr &&
	       a->kind == b->kind && a->inlined == b->inlined;
}

static uint64_t frame_hash_at(const void *ctx, size_t i)
{
	return frame_hash(&((const struct profile *)ctx)->frames[i]);
}

uint32_t profile_frame(struct profile *p, const struct pframe *f)
{
	itab_reserve(&p->ftab, p->nr_frames, 0, 1024, frame_hash_at, p);
	struct itab *t = &p->ftab;
	size_t j;
	for (j = itab_first(t, frame_hash(f)); t->slot[j] != ITAB_EMPTY; j = itab_next(t, j))
		if (frame_eq(&p->frames[t->slot[j]], f))
			return t->slot[j];
	if (ARRAY_GROW(p->frames, p->cap_frames, p->nr_frames + 1, PROFILE_MAX_FRAMES))
		return PROFILE_NONE;
	p->frames[p->nr_frames] = *f;
	t->slot[j] = (uint32_t)p->nr_frames;
	return (uint32_t)p->nr_frames++;
}

uint32_t profile_frame_find(const struct profile *p, const struct pframe *f)
{
	const struct itab *t = &p->ftab;
	if (!t->cap)
		return PROFILE_NONE;
	for (size_t j = itab_first(t, frame_hash(f)); t->slot[j] != ITAB_EMPTY; j = itab_next(t, j))
		if (frame_eq(&p->frames[t->slot[j]], f))
			return t->slot[j];
	return PROFILE_NONE;
}

/* ---- nodes ---- */

static uint64_t node_hash(uint32_t parent, uint32_t frame)
{
	return hash_u64(((uint64_t)parent << 32) | frame);
}

static uint64_t node_hash_at(const void *ctx, size_t i)
{
	const struct pnode *n = &((const struct profile *)ctx)->nodes[i];
	return node_hash(n->parent, n->frame);
}

uint32_t profile_child(struct profile *p, uint32_t parent, uint32_t frame)
{
	if (frame == PROFILE_NONE || parent >= p->nr_nodes)
		return parent;
	/* node 0, the root, is in no table */
	itab_reserve(&p->ntab, p->nr_nodes, 1, 4096, node_hash_at, p);
	struct itab *t = &p->ntab;
	size_t j;
	for (j = itab_first(t, node_hash(parent, frame)); t->slot[j] != ITAB_EMPTY; j = itab_next(t, j)) {
		const struct pnode *n = &p->nodes[t->slot[j]];
		if (n->parent == parent && n->frame == frame)
			return t->slot[j];
	}
	if (ARRAY_GROW(p->nodes, p->cap_nodes, p->nr_nodes + 1, PROFILE_MAX_NODES))
		return parent; /* full: the sample is charged to the prefix */
	uint32_t id = (uint32_t)p->nr_nodes++;
	struct pnode *n = &p->nodes[id];
	*n = (struct pnode){ .parent = parent, .frame = frame, .first_child = PROFILE_NONE,
			     .next_sibling = PROFILE_NONE, .depth = p->nodes[parent].depth + 1 };
	/* append to the parent's child list, keeping creation order: walk from
	 * the first child is O(children); instead prepend and fix order in
	 * profile_preorder (which sorts or reverses). */
	n->next_sibling = p->nodes[parent].first_child;
	p->nodes[parent].first_child = id;
	t->slot[j] = id;
	return id;
}

uint32_t profile_child_find(const struct profile *p, uint32_t parent, uint32_t frame)
{
	const struct itab *t = &p->ntab;
	if (frame == PROFILE_NONE || parent >= p->nr_nodes || !t->cap)
		return PROFILE_NONE;
	for (size_t j = itab_first(t, node_hash(parent, frame)); t->slot[j] != ITAB_EMPTY; j = itab_next(t, j)) {
		const struct pnode *n = &p->nodes[t->slot[j]];
		if (n->parent == parent && n->frame == frame)
			return t->slot[j];
	}
	return PROFILE_NONE;
}

void profile_add(struct profile *p, uint32_t node, uint64_t samples, uint64_t period)
{
	if (node >= p->nr_nodes)
		return;
	p->nodes[node].self_samples += samples;
	p->nodes[node].self_period += period;
	for (uint32_t n = node; n != PROFILE_NONE; n = p->nodes[n].parent) {
		p->nodes[n].samples += samples;
		p->nodes[n].period += period;
	}
	p->samples += samples;
	p->period += period;
}

static int cmp_by_value(const void *a, const void *b, void *arg)
{
	const struct profile *sort_prof = arg;
	const struct pnode *x = &sort_prof->nodes[*(const uint32_t *)a];
	const struct pnode *y = &sort_prof->nodes[*(const uint32_t *)b];
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static int cmp_by_name(const void *a, const void *b, void *arg)
{
	const struct profile *sort_prof = arg;
	const struct pnode *x = &sort_prof->nodes[*(const uint32_t *)a];
	const struct pnode *y = &sort_prof->nodes[*(const uint32_t *)b];
	const struct pframe *fx = &sort_prof->frames[x->frame], *fy = &sort_prof->frames[y->frame];
	int r = fx->name == fy->name ? 0 : strcmp(fx->name, fy->name);
	if (r)
		return r;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

uint32_t *profile_preorder(const struct profile *p, int order)
{
	size_t n = p->nr_nodes;
	uint32_t *out = xcalloc(n, sizeof(uint32_t));
	uint32_t *stack = xcalloc(n, sizeof(uint32_t));
	uint32_t *kids = NULL;
	size_t cap_kids = 0, o = 0, sp = 0;
	stack[sp++] = 0;
	while (sp) {
		uint32_t id = stack[--sp];
		out[o++] = id;
		size_t nk = 0;
		for (uint32_t c = p->nodes[id].first_child; c != PROFILE_NONE; c = p->nodes[c].next_sibling) {
			if (ARRAY_GROW(kids, cap_kids, nk + 1, SIZE_MAX / 8))
				xalloc_die();
			kids[nk++] = c;
		}
		/* the list is newest first; creation order is its reverse */
		if (order != PROFILE_ORDER_CREATION) {
			if (nk > 1)
				qsort_r(kids, nk, sizeof(uint32_t),
					order == PROFILE_ORDER_NAME ? cmp_by_name : cmp_by_value,
					(void *)p);
			for (size_t i = nk; i-- > 0;)
				stack[sp++] = kids[i];
		} else {
			for (size_t i = 0; i < nk; i++)
				stack[sp++] = kids[i];
		}
	}
	free(kids);
	free(stack);
	return out;
}

const char *profile_basename(const char *path)
{
	if (!path)
		return "[unknown]";
	if (path[0] == '[')
		return path;
	const char *s = strrchr(path, '/');
	return s && s[1] ? s + 1 : path;
}

/* ---- the collector ---- */

void profile_sink_config_init(struct profile_sink_config *c)
{
	memset(c, 0, sizeof(*c));
	c->root = PROFILE_ROOT_COMM;
	c->inline_frames = true;
	c->kernel = true;
}

static int profile_begin(void *ctx, struct pipeline *pl)
{
	struct profile_sink *s = ctx;
	s->pipeline = pl;
	return 0;
}

static int profile_sample_cb(void *ctx, struct pipeline *pl, const struct resolved_sample *rs)
{
	(void)pl;
	return profile_sink_sample(ctx, rs);
}

static int profile_end(void *ctx, struct pipeline *pl, int rc)
{
	struct profile_sink *s = ctx;
	(void)pl;
	if (rc == 0 && s->cfg.finish)
		rc = s->cfg.finish(s->cfg.finish_ctx, s);
	s->pipeline = NULL;
	return rc;
}

int profile_sink_init(struct profile_sink *s, const struct profile_sink_config *c,
		      struct sink *sink)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *c;
	s->attr_idx = -1;
	profile_init(&s->prof);
	hmap_init(&s->unk_names);
	struct thread_filter *tf = &s->threads;
	const char *bad, *list = c->filter.pids;
	size_t bad_len;
	int rc = thread_filter_ids(list, &tf->pids, &tf->nr_pids, &bad, &bad_len);
	if (!rc)
		rc = thread_filter_ids(list = c->filter.tids, &tf->tids, &tf->nr_tids, &bad, &bad_len);
	if (!rc)
		rc = thread_filter_comms(tf, c->filter.comms);
	if (rc) {
		if (rc == -EINVAL)
			snprintf(s->errbuf, sizeof(s->errbuf), "bad number list '%s'", list);
		thread_filter_release(tf);
		return rc;
	}
	if (sink) {
		memset(sink, 0, sizeof(*sink));
		sink->ctx = s;
		sink->begin = profile_begin;
		sink->sample = profile_sample_cb;
		sink->end = profile_end;
		/* sums per stack, unless a hook keeps time order (speedscope)
		 * or the off-CPU stage pairs switches */
		sink->any_order = !c->time_order && c->filter.time_mode == OFFCPU_MODE_NONE;
		if (c->filter.time_mode != OFFCPU_MODE_NONE) {
			struct offcpu_config oc = { .mode = c->filter.time_mode,
						    .event = c->filter.event };
			struct sink inner = *sink;
			s->offcpu = offcpu_new(&oc);
			offcpu_wrap(s->offcpu, &inner, sink);
		}
	}
	return 0;
}

void profile_sink_release(struct profile_sink *s)
{
	offcpu_free(s->offcpu);
	s->offcpu = NULL;
	profile_release(&s->prof);
	hmap_release(&s->unk_names);
	thread_filter_release(&s->threads);
}

bool profile_sink_keeps_thread(const struct profile_sink *s, uint32_t pid, uint32_t tid,
			       const char *comm)
{
	return thread_filter_keeps(&s->threads, pid, tid, comm ? comm : "");
}

static bool keep_sample(struct profile_sink *s, const struct resolved_sample *rs)
{
	return profile_sink_keeps_thread(s, rs->pid, rs->tid, rs->comm);
}

static bool choose_event(struct profile_sink *s, const struct resolved_sample *rs)
{
	int idx = rs->ev ? rs->ev->s.attr_idx : 0;
	if (s->attr_idx >= 0)
		return idx == s->attr_idx;
	const struct perf_attr *a = rs->attr;
	const char *name = a && a->name ? a->name : "";
	if (!s->cfg.filter.event && a && s->pipeline && offcpu_is_switch_attr(a)) {
		/* an off-CPU recording (switch-outs next to a sampling event):
		 * by default the profile is the sampling event's, whichever
		 * came first */
		const struct perf_evlist *el = input_evlist(pipeline_input(s->pipeline));
		for (size_t i = 0; i < el->nr; i++)
			if (!offcpu_is_switch_attr(&el->attrs[i]) &&
			    el->attrs[i].attr.type != PERF_TYPE_TRACEPOINT)
				return false;
	}
	if (s->cfg.filter.event) {
		/* "cpu-clock" matches "cpu-clock:pppH" (perf's modifiers) */
		size_t n = strlen(s->cfg.filter.event);
		if (strncmp(name, s->cfg.filter.event, n) || (name[n] && name[n] != ':'))
			return false;
	}
	s->attr_idx = idx;
	s->event_name = name;
	if (a) {
		s->event_type = a->attr.type;
		s->event_config = a->attr.config;
		s->freq = a->attr.freq;
	}
	return true;
}

bool profile_sink_period_is_ns(const struct profile_sink *s)
{
	return s->event_type == PERF_TYPE_SOFTWARE &&
	       (s->event_config == PERF_COUNT_SW_CPU_CLOCK ||
		s->event_config == PERF_COUNT_SW_TASK_CLOCK);
}

/* The frame as the profile names it. */
static uint32_t intern_frame(struct profile_sink *s, const struct frame *fr)
{
	struct profile *p = &s->prof;
	struct pframe f = {
		.dso = fr->dso, .file = fr->file, .line = fr->line, .kind = fr->kind,
		.inlined = fr->inlined, .ip = fr->ip, .sym_start = fr->sym_start,
	};
	uint64_t addr = fr->rel ? fr->rel : fr->ip;
	if (fr->map && fr->kind == FRAME_USER && fr->ip >= fr->map->start && fr->ip < fr->map->end)
		f.file_off = fr->ip - fr->map->start + fr->map->pgoff;
	if (fr->sym) {
		f.name = fr->sym;
		if (s->cfg.by_addr)
			f.addr = addr;
	} else {
		char tmp[300];
		f.unknown = true;
		if (s->cfg.unknown_by_addr || s->cfg.by_addr) {
			/* "0x%016" PRIx64, without snprintf's cost per frame:
			 * fmt_hex's "%16lx" with its padding made zeros */
			tmp[0] = '0';
			tmp[1] = 'x';
			fmt_hex(tmp + 2, addr, 16);
			for (int i = 2; i < 18 && tmp[i] == ' '; i++)
				tmp[i] = '0';
			tmp[18] = 0;
			f.addr = addr;
			f.name = profile_str(p, tmp);
		} else if (fr->dso) {
			/* the same for every address of the DSO: made once */
			const char *nm = hmap_get(&s->unk_names, (uintptr_t)fr->dso);
			if (!nm) {
				snprintf(tmp, sizeof(tmp), "[%s]", profile_basename(fr->dso));
				/* "[[kernel.kallsyms]]" reads badly */
				if (fr->dso[0] == '[')
					snprintf(tmp, sizeof(tmp), "%s", fr->dso);
				nm = profile_str(p, tmp);
				hmap_put(&s->unk_names, (uintptr_t)fr->dso, (void *)nm);
			}
			f.name = nm;
		} else {
			f.name = profile_str(p, "[unknown]");
		}
		if (!fr->dso)
			s->frames_dropped++;
	}
	return profile_frame(p, &f);
}

int profile_sink_sample(struct profile_sink *s, const struct resolved_sample *rs)
{
	struct profile *p = &s->prof;
	s->samples_seen++;
	if (!rs->off_cpu && !choose_event(s, rs)) {
		s->samples_other_event++;
		return 0;
	}
	if (!keep_sample(s, rs)) {
		s->samples_filtered++;
		return 0;
	}
	s->copy_short += rs->copy_end;
	s->stitched += rs->nr_stitched != 0;
	uint64_t t = rs->ev ? rs->ev->s.time : 0;
	if (t) {
		if (!s->time_first || t < s->time_first)
			s->time_first = t;
		if (t > s->time_last)
			s->time_last = t;
	}
	uint32_t node = 0;
	const char *comm = rs->comm && rs->comm[0] ? rs->comm : NULL;
	char tmp[64];
	if (!comm && rs->tid == 0)
		comm = profile_str(p, "swapper"); /* perf names the idle task */
	if (!comm) {
		snprintf(tmp, sizeof(tmp), ":%d", (int)rs->tid); /* perf's ":-1" */
		comm = profile_str(p, tmp);
	}
	if (s->cfg.root == PROFILE_ROOT_COMM) {
		struct pframe f = { .name = comm, .kind = PF_COMM };
		node = profile_child(p, node, profile_frame(p, &f));
	} else if (s->cfg.root == PROFILE_ROOT_THREAD) {
		struct pframe f = { .name = comm, .kind = PF_THREAD,
				    .addr = (uint64_t)rs->pid << 32 | rs->tid };
		node = profile_child(p, node, profile_frame(p, &f));
	}
	if (rs->truncated) {
		/* the outer frames are missing: the cut stack starts here, not
		 * among the stacks that begin at their real root */
		struct pframe f = { .name = profile_str(p, "[truncated]"), .kind = PF_TRUNCATED };
		node = profile_child(p, node, profile_frame(p, &f));
	}
	/* frames are leaf first: walk from the outermost */
	for (uint32_t i = rs->nr_frames; i-- > 0;) {
		const struct frame *fr = &rs->frames[i];
		/* without inlined frames, keep the outermost frame of an ip's
		 * group even when it is an inlined one (no caller frame came
		 * with it), so no sample loses its leaf */
		if (fr->inlined && !s->cfg.inline_frames && i + 1 < rs->nr_frames &&
		    rs->frames[i + 1].ip == fr->ip)
			continue;
		if (!s->cfg.kernel && fr->kind != FRAME_USER && fr->kind != FRAME_GUEST_USER)
			continue;
		if (s->cfg.innermost_lines && !s->cfg.inline_frames && i && rs->frames[i - 1].inlined &&
		    rs->frames[i - 1].ip == fr->ip) {
			uint32_t j = i;
			while (j && rs->frames[j - 1].inlined && rs->frames[j - 1].ip == fr->ip)
				j--;
			struct frame inner = *fr;
			inner.file = rs->frames[j].file;
			inner.line = rs->frames[j].line;
			node = profile_child(p, node, intern_frame(s, &inner));
			continue;
		}
		node = profile_child(p, node, intern_frame(s, fr));
	}
	uint64_t period = rs->ev ? rs->ev->s.period : 0;
	if (!period && rs->attr && !rs->attr->attr.freq)
		period = rs->attr->attr.sample_period;
	if (!period)
		period = 1;
	if (rs->off_cpu) {
		/* the leaf says why it waited */
		char nm[48];
		snprintf(nm, sizeof(nm), "[off-cpu: %s]", offcpu_state_name(rs->off_cpu));
		struct pframe f = { .name = profile_str(p, nm), .kind = PF_OFFCPU,
				    .addr = rs->off_cpu };
		node = profile_child(p, node, profile_frame(p, &f));
		period = rs->time_ns;
		s->off_samples++;
		s->off_ns += rs->time_ns;
	} else if (s->cfg.filter.time_mode != OFFCPU_MODE_NONE) {
		period = rs->time_ns;
		s->on_ns += rs->time_ns;
	}
	profile_add(p, node, 1, period);
	if (s->cfg.on_sample)
		s->cfg.on_sample(s->cfg.on_sample_ctx, node, rs);
	return 0;
}
