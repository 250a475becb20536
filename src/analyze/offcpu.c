/*
 * offcpu.c: see offcpu.h.
 *
 * An interval is one heap entry from its switch-out sample until both its
 * end (switch-in) and its resolved stack are known; it is then handed on and
 * freed. Three indexes point at entries: `awaiting` (a FIFO, entries whose
 * stack has not come through sample() yet, bounded by the resolver's
 * samples in flight), `open` (tid -> entry still off-CPU, one per thread)
 * and `ready` (a FIFO of closed entries in switch-in order). A closed entry
 * is handed on just before the first sample later than its switch-in, so
 * the inner sink sees every thread's time in order (speedscope keeps it).
 * The stack is always copied (the record is gone by then). All are capped.
 */
#include "analyze/offcpu.h"
#include "analyze/input.h"
#include "perf/header.h"
#include "perf/tracing.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/xalloc.h"
#include <byteswap.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OFFCPU_MAX_AWAITING (1u << 24)
#define OFFCPU_MAX_THREADS (1u << 22)

/* AK_OTHER: another tracepoint, neither on-CPU time nor a switch */
enum attr_kind { AK_UNKNOWN = 0, AK_ON_CPU, AK_SCHED_SWITCH, AK_CS, AK_OTHER };
enum close_how { BY_SWITCH, BY_SAMPLE, AT_END };

struct akind {
	uint8_t kind;
	uint32_t state_off, state_size; /* sched_switch prev_state, size 0: absent */
	uint32_t next_off, next_size;   /* next_pid */
};

struct entry {
	uint32_t pid, tid;
	uint64_t t_out, t_in;
	uint8_t state;
	bool closed, open_at_end, have_stack, dropped;
	/* the held stack (copied when it arrives before the switch-in) */
	struct perf_event ev;
	struct resolved_sample rs;
	struct frame *frames;
};

struct offcpu {
	struct offcpu_config cfg;
	struct sink inner;
	struct pipeline *p;
	struct akind *kinds;
	size_t nr_kinds, cap_kinds;
	int on_idx;               /* the on-CPU event's attr, -1 until chosen */
	uint64_t on_weight;       /* ns per sample when the event does not count time */
	bool swap;
	struct entry **awaiting;  /* ring */
	size_t aw_cap, aw_head, aw_len;
	struct entry **ready;     /* ring: closed, in switch-in order */
	size_t rd_cap, rd_head, rd_len;
	struct hmap open;         /* tid -> struct entry * */
	struct hmap exited;       /* tids whose EXIT was seen (until reused by a FORK) */
	struct hmap thr_idx;      /* pid << 32 | tid -> index + 1 into threads */
	struct offcpu_thread *threads;
	size_t nr_threads, cap_threads;
	uint64_t t_last;
	struct offcpu_stats st;
	bool warned_fallback;
};

const char *offcpu_state_name(unsigned st)
{
	static const char *const n[OFFCPU_NR_STATES] = { "on-cpu", "sleeping", "blocked",
							 "preempted", "other", "waiting" };
	return st < OFFCPU_NR_STATES ? n[st] : "?";
}

struct offcpu *offcpu_new(const struct offcpu_config *c)
{
	struct offcpu *o = xcalloc(1, sizeof(*o));
	o->cfg = *c;
	o->on_idx = -1;
	hmap_init(&o->open);
	hmap_init(&o->exited);
	hmap_init(&o->thr_idx);
	return o;
}

static void entry_free(struct entry *e)
{
	if (e) {
		free(e->frames);
		free(e);
	}
}

void offcpu_free(struct offcpu *o)
{
	if (!o)
		return;
	/* ready entries were closed: in no other index unless still awaited */
	for (size_t i = 0; i < o->rd_len; i++) {
		struct entry *e = o->ready[(o->rd_head + i) % o->rd_cap];
		if (e->have_stack || e->dropped)
			entry_free(e);
		else
			e->dropped = true; /* freed below, from awaiting */
	}
	free(o->ready);
	for (size_t i = 0; i < o->aw_len; i++) {
		struct entry *e = o->awaiting[(o->aw_head + i) % o->aw_cap];
		if (!e->closed)
			hmap_del(&o->open, e->tid);
		entry_free(e);
	}
	for (size_t i = 0; i < o->open.cap; i++)
		if (hmap_used(&o->open, i))
			entry_free(o->open.slot[i].val);
	hmap_release(&o->open);
	hmap_release(&o->exited);
	hmap_release(&o->thr_idx);
	free(o->awaiting);
	free(o->kinds);
	free(o->threads);
	free(o);
}

const struct offcpu_thread *offcpu_threads(const struct offcpu *o, size_t *n)
{
	*n = o->nr_threads;
	return o->threads;
}

const struct offcpu_stats *offcpu_stats(const struct offcpu *o) { return &o->st; }

static void warn(struct offcpu *o, const char *msg)
{
	const struct pipeline_config *pc = o->p ? pipeline_config(o->p) : NULL;
	if (pc && pc->warn)
		pc->warn(pc->warn_ctx, msg);
	else
		fprintf(stderr, "scorch: %s: %s\n", pc && pc->input ? pc->input : "-", msg);
}

/* ---- which attr is what ---- */

bool offcpu_is_switch_attr(const struct perf_attr *a)
{
	if (a->attr.type == PERF_TYPE_SOFTWARE && a->attr.config == PERF_COUNT_SW_CONTEXT_SWITCHES)
		return true;
	return a->attr.type == PERF_TYPE_TRACEPOINT && a->name &&
	       !strcmp(a->name, "sched:sched_switch");
}

static bool time_event(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
}

static const struct akind *attr_kind(struct offcpu *o, int idx)
{
	static const struct akind unknown = { AK_ON_CPU, 0, 0, 0, 0 };
	if (idx < 0 || !o->p)
		return &unknown;
	struct perf_evlist *el = input_evlist(pipeline_input(o->p));
	if ((size_t)idx >= el->nr)
		return &unknown;
	if ((size_t)idx >= o->nr_kinds) {
		if (ARRAY_GROW(o->kinds, o->cap_kinds, (size_t)idx + 1, 1u << 16))
			return &unknown;
		memset(o->kinds + o->nr_kinds, 0, ((size_t)idx + 1 - o->nr_kinds) * sizeof(*o->kinds));
		o->nr_kinds = (size_t)idx + 1;
	}
	struct akind *k = &o->kinds[idx];
	if (k->kind != AK_UNKNOWN)
		return k;
	const struct perf_event_attr *a = &el->attrs[idx].attr;
	k->kind = AK_ON_CPU;
	if (a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_CONTEXT_SWITCHES) {
		k->kind = AK_CS;
	} else if (a->type == PERF_TYPE_TRACEPOINT) {
		const struct perf_header *h = input_header(pipeline_input(o->p));
		const struct tracing_event *te = tracing_find(&h->tracing, a->config);
		const char *nm = el->attrs[idx].name;
		bool sw = te ? !strcmp(te->system, "sched") && !strcmp(te->name, "sched_switch")
			     : nm && !strcmp(nm, "sched:sched_switch");
		if (sw) {
			k->kind = AK_SCHED_SWITCH;
			if (te) {
				if (tracing_field(te, "prev_state", &k->state_off, &k->state_size))
					k->state_size = 0;
				if (tracing_field(te, "next_pid", &k->next_off, &k->next_size))
					k->next_size = 0;
			}
		} else {
			k->kind = AK_OTHER;
		}
	}
	return k;
}

/* An unsigned field of the raw data (size 1, 2, 4 or 8), false if absent. */
static bool raw_field(const struct offcpu *o, const struct perf_sample *s, uint32_t off,
		      uint32_t size, uint64_t *v)
{
	if (!s->raw || !size || size > 8 || off > s->raw_size || size > s->raw_size - off)
		return false;
	uint8_t b[8] = { 0 };
	memcpy(b, s->raw + off, size);
	switch (size) {
	case 1: *v = b[0]; return true;
	case 2: { uint16_t x; memcpy(&x, b, 2); *v = o->swap ? bswap_16(x) : x; return true; }
	case 4: { uint32_t x; memcpy(&x, b, 4); *v = o->swap ? bswap_32(x) : x; return true; }
	case 8: { uint64_t x; memcpy(&x, b, 8); *v = o->swap ? bswap_64(x) : x; return true; }
	}
	return false;
}

/* prev_state as the kernel reports it (TASK_REPORT bits; 0 or the
 * TASK_REPORT_MAX "preempted" bit above them means runnable). */
#define STATE_DEAD 0x30 /* EXIT_DEAD, EXIT_ZOMBIE: the thread's last switch */
static uint8_t state_of(uint64_t prev_state)
{
	uint64_t st = prev_state & 0xff;
	if (!st)
		return OFFCPU_PREEMPTED;
	if (st & 1)
		return OFFCPU_SLEEPING;
	if (st & 2)
		return OFFCPU_BLOCKED;
	return OFFCPU_OTHER;
}

/* ---- threads ---- */

static struct offcpu_thread *thread_of(struct offcpu *o, uint32_t pid, uint32_t tid,
				       const char *comm)
{
	uint64_t key = (uint64_t)pid << 32 | tid;
	uintptr_t i = (uintptr_t)hmap_get(&o->thr_idx, key);
	if (i) {
		struct offcpu_thread *t = &o->threads[i - 1];
		if (comm && *comm)
			t->comm = comm;
		return t;
	}
	if (ARRAY_GROW(o->threads, o->cap_threads, o->nr_threads + 1, OFFCPU_MAX_THREADS))
		return NULL;
	struct offcpu_thread *t = &o->threads[o->nr_threads++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	t->comm = comm;
	hmap_put(&o->thr_idx, key, (void *)(uintptr_t)o->nr_threads);
	return t;
}

/* ---- intervals ---- */

/* Append to a ring of entry pointers (grown by doubling, capped). */
static int ring_push(struct entry ***ring, size_t *cap, size_t *head, size_t *len, struct entry *e)
{
	if (*len >= OFFCPU_MAX_AWAITING)
		return -E2BIG;
	if (*len == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct entry **n = xcalloc(ncap, sizeof(*n));
		for (size_t i = 0; i < *len; i++)
			n[i] = (*ring)[(*head + i) % *cap];
		free(*ring);
		*ring = n;
		*cap = ncap;
		*head = 0;
	}
	(*ring)[(*head + (*len)++) % *cap] = e;
	return 0;
}

/* Hand on an entry that has both its end and its stack; frees it. */
static int emit(struct offcpu *o, struct entry *e, const struct resolved_sample *stack)
{
	int rc = 0;
	uint64_t dt = e->t_in > e->t_out ? e->t_in - e->t_out : 0;
	/* past the thread cap the interval still counts, only not per thread */
	struct offcpu_thread *t = thread_of(o, stack->pid, stack->tid, stack->comm);
	if (t) {
		t->off_ns[e->state] += dt;
		t->off_total_ns += dt;
		t->switches++;
		t->open |= e->open_at_end;
	}
	o->st.off_ns += dt;
	if (o->inner.sample) {
		struct resolved_sample r = *stack;
		r.time_ns = dt;
		r.off_cpu = e->state;
		r.off_cpu_open = e->open_at_end;
		rc = o->inner.sample(o->inner.ctx, o->p, &r);
	}
	entry_free(e);
	return rc;
}

/* The interval of e ends at t. Emits it when its stack is there. */
static int close_entry(struct offcpu *o, struct entry *e, uint64_t t, enum close_how how)
{
	hmap_del(&o->open, e->tid);
	e->t_in = t;
	e->closed = true;
	if (how == BY_SWITCH)
		o->st.closed_by_switch++;
	else if (how == BY_SAMPLE)
		o->st.closed_by_sample++;
	else
		o->st.open_at_end++, e->open_at_end = true;
	if (e->dropped) {
		entry_free(e);
		return 0;
	}
	return ring_push(&o->ready, &o->rd_cap, &o->rd_head, &o->rd_len, e);
}

/* Hand on the closed entries that ended at or before t (all: every one). */
static int flush(struct offcpu *o, uint64_t t, bool all)
{
	int rc = 0;
	while (o->rd_len && !rc) {
		struct entry *e = o->ready[o->rd_head];
		if (!all && !e->dropped && (!e->have_stack || e->t_in > t))
			break;
		o->rd_head = (o->rd_head + 1) % o->rd_cap;
		o->rd_len--;
		if (e->dropped) {
			entry_free(e); /* its stack was not coming */
		} else if (e->have_stack) {
			rc = emit(o, e, &e->rs);
		} else {
			o->st.no_stack++;
			e->dropped = true; /* still awaited: freed there */
		}
	}
	return rc;
}

static int switch_in(struct offcpu *o, uint32_t tid, uint64_t t, enum close_how how)
{
	struct entry *e = hmap_get(&o->open, tid);
	if (!e || t < e->t_out)
		return 0;
	return close_entry(o, e, t, how);
}

static int switch_out(struct offcpu *o, const struct perf_event *ev, const struct akind *k)
{
	const struct perf_sample *s = &ev->s;
	int rc;
	struct entry *old = hmap_get(&o->open, s->tid);
	if (old && (rc = close_entry(o, old, s->time, BY_SAMPLE)))
		return rc;
	uint64_t v;
	bool has_state = k->kind == AK_SCHED_SWITCH && raw_field(o, s, k->state_off, k->state_size, &v);
	/* a thread's switch-out on its way out: it does not wait, it is gone */
	if ((has_state && (v & 0xff & STATE_DEAD)) || hmap_get(&o->exited, s->tid))
		return 0;
	if (o->open.len >= OFFCPU_MAX_THREADS) {
		o->st.no_stack++; /* capped: this interval is not followed */
		return 0;
	}
	struct entry *e = xcalloc(1, sizeof(*e));
	e->pid = s->pid;
	e->tid = s->tid;
	e->t_out = s->time;
	e->state = has_state ? state_of(v) : OFFCPU_WAITING;
	if ((rc = ring_push(&o->awaiting, &o->aw_cap, &o->aw_head, &o->aw_len, e))) {
		free(e);
		return rc;
	}
	hmap_put(&o->open, s->tid, e);
	o->st.switch_outs++;
	return 0;
}

static uint64_t on_time(struct offcpu *o, const struct resolved_sample *rs)
{
	uint64_t period = rs->ev ? rs->ev->s.period : 0;
	const struct perf_event_attr *a = rs->attr ? &rs->attr->attr : NULL;
	if (!period && a && !a->freq)
		period = a->sample_period;
	if (o->st.on_is_time)
		return period ? period : 1;
	return o->on_weight;
}

/* ---- the sink callbacks ---- */

static int oc_begin(void *ctx, struct pipeline *p)
{
	struct offcpu *o = ctx;
	o->p = p;
	o->swap = input_header(pipeline_input(p))->swap;
	return o->inner.begin ? o->inner.begin(o->inner.ctx, p) : 0;
}

static int oc_event(void *ctx, struct pipeline *p, const struct perf_event *ev)
{
	struct offcpu *o = ctx;
	const struct perf_sample *s = &ev->s;
	int rc = 0;
	o->p = p;
	if (s->has_time && s->time > o->t_last)
		o->t_last = s->time;
	switch (ev->type) {
	case PERF_RECORD_SAMPLE: {
		if (!s->has_time)
			break;
		const struct akind *k = attr_kind(o, s->attr_idx);
		if (k->kind == AK_SCHED_SWITCH || k->kind == AK_CS) {
			uint64_t next;
			if (k->kind == AK_SCHED_SWITCH &&
			    raw_field(o, s, k->next_off, k->next_size, &next) && next &&
			    (rc = switch_in(o, (uint32_t)next, s->time, BY_SWITCH)))
				break;
			if (s->tid) /* the idle task is never off-CPU */
				rc = switch_out(o, ev, k);
		} else {
			/* it runs: the end of an interval no switch record ended */
			rc = switch_in(o, s->tid, s->time, BY_SAMPLE);
		}
		break;
	}
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		o->st.switch_records++;
		if (!s->has_time || !s->has_tid)
			break;
		if (!ev->cs.out) {
			rc = switch_in(o, s->tid, s->time, BY_SWITCH);
		} else if (ev->cs.preempt) {
			struct entry *e = hmap_get(&o->open, s->tid);
			if (e && e->state == OFFCPU_WAITING)
				e->state = OFFCPU_PREEMPTED;
		}
		break;
	case PERF_RECORD_EXIT: {
		uint64_t t = s->has_time ? s->time : ev->fork.time;
		rc = switch_in(o, ev->fork.tid, t, BY_SAMPLE);
		if (!rc && hmap_put(&o->exited, ev->fork.tid, (void *)1) == NULL &&
		    o->exited.len > OFFCPU_MAX_THREADS)
			hmap_del(&o->exited, ev->fork.tid); /* capped: forget it */
		break;
	}
	case PERF_RECORD_FORK:
		hmap_del(&o->exited, ev->fork.tid); /* a tid reused */
		break;
	default:
		break;
	}
	if (rc)
		return rc;
	return o->inner.event ? o->inner.event(o->inner.ctx, p, ev) : 0;
}

static bool event_matches(const char *name, const char *want)
{
	size_t n = strlen(want);
	return !strncmp(name, want, n) && (!name[n] || name[n] == ':');
}

static int hold(struct entry *e, const struct resolved_sample *rs)
{
	e->ev = *rs->ev;
	/* the record's bytes go away: keep the decoded numbers only */
	memset(&e->ev.s, 0, sizeof(e->ev.s));
	e->ev.data = NULL;
	e->ev.s.attr_idx = rs->ev->s.attr_idx;
	e->ev.s.pid = rs->ev->s.pid;
	e->ev.s.tid = rs->ev->s.tid;
	e->ev.s.time = rs->ev->s.time;
	e->ev.s.cpu = rs->ev->s.cpu;
	e->ev.s.period = rs->ev->s.period;
	e->ev.s.ip = rs->ev->s.ip;
	e->ev.s.misc = rs->ev->s.misc;
	e->ev.s.has_time = rs->ev->s.has_time;
	e->ev.s.has_cpu = rs->ev->s.has_cpu;
	e->ev.s.has_tid = rs->ev->s.has_tid;
	e->rs = *rs;
	e->rs.ev = &e->ev;
	e->frames = NULL;
	if (rs->nr_frames) {
		e->frames = xmalloc((size_t)rs->nr_frames * sizeof(*e->frames));
		memcpy(e->frames, rs->frames, (size_t)rs->nr_frames * sizeof(*e->frames));
		/* maps may be replaced before the switch-in: not kept */
		for (uint32_t i = 0; i < rs->nr_frames; i++)
			e->frames[i].map = NULL;
	}
	e->rs.frames = e->frames;
	e->have_stack = true;
	return 0;
}

static int oc_sample(void *ctx, struct pipeline *p, const struct resolved_sample *rs)
{
	struct offcpu *o = ctx;
	o->p = p;
	int idx = rs->ev ? rs->ev->s.attr_idx : -1;
	const struct akind *k = attr_kind(o, idx);
	if (k->kind == AK_SCHED_SWITCH || k->kind == AK_CS) {
		if (!rs->ev || !rs->ev->s.has_time || !rs->ev->s.tid)
			return 0;
		/* the FIFO head is this sample's interval (same order) */
		while (o->aw_len) {
			struct entry *e = o->awaiting[o->aw_head];
			o->aw_head = (o->aw_head + 1) % o->aw_cap;
			o->aw_len--;
			if (e->tid == rs->tid && e->t_out == rs->ev->s.time) {
				if (e->dropped) { /* its turn in `ready` passed */
					entry_free(e);
					break;
				}
				int rc = hold(e, rs);
				return rc ? rc : flush(o, rs->ev->s.time, false);
			}
			/* not resolved (cannot happen with the pipeline's contract) */
			o->st.no_stack++;
			if (e->closed && e->dropped)
				entry_free(e);
			else
				e->dropped = true;
		}
		return 0;
	}
	if (rs->ev && rs->ev->s.has_time) {
		int rc = flush(o, rs->ev->s.time, false);
		if (rc)
			return rc;
	}
	if (k->kind != AK_ON_CPU)
		return 0;
	const struct perf_attr *pa = rs->attr;
	if (o->on_idx < 0) {
		const char *name = pa && pa->name ? pa->name : "";
		if (o->cfg.event && !event_matches(name, o->cfg.event))
			goto other;
		o->on_idx = idx;
		o->st.on_event = name;
		o->st.on_is_time = pa && time_event(&pa->attr);
		o->on_weight = 1;
		if (!o->st.on_is_time && pa && pa->attr.freq && pa->attr.sample_freq) {
			o->on_weight = 1000000000ull / pa->attr.sample_freq;
		} else if (!o->st.on_is_time) {
			char msg[200];
			snprintf(msg, sizeof(msg),
				 "event '%s' does not count time and has no frequency: its samples "
				 "count as their period in nanoseconds", name);
			warn(o, msg);
			o->st.on_is_time = true;
		}
	}
	if (idx != o->on_idx)
		goto other;
	uint64_t ns = on_time(o, rs);
	struct offcpu_thread *t = thread_of(o, rs->pid, rs->tid, rs->comm);
	if (t) {
		t->on_ns += ns;
		t->on_samples++;
	}
	o->st.on_samples++;
	o->st.on_ns += ns;
	if (o->cfg.mode == OFFCPU_MODE_WALL && o->inner.sample) {
		struct resolved_sample r = *rs;
		r.time_ns = ns;
		return o->inner.sample(o->inner.ctx, p, &r);
	}
	return 0;
other:
	/* other events: the inner sink's business in wall mode (it counts them
	 * as other events); dropped with --off-cpu */
	if (o->cfg.mode == OFFCPU_MODE_WALL && o->inner.sample)
		return o->inner.sample(o->inner.ctx, p, rs);
	return 0;
}

static int oc_end(void *ctx, struct pipeline *p, int rc)
{
	struct offcpu *o = ctx;
	o->p = p;
	if (rc >= 0) {
		/* threads still off-CPU: counted to the end of the recording */
		size_t n = 0;
		struct entry **v = xcalloc(o->open.len + 1, sizeof(*v));
		for (size_t i = 0; i < o->open.cap; i++)
			if (hmap_used(&o->open, i))
				v[n++] = o->open.slot[i].val;
		for (size_t i = 0; i < n; i++) {
			int r = close_entry(o, v[i], o->t_last, AT_END);
			if (r < 0 && rc >= 0)
				rc = r;
		}
		free(v);
		if (rc >= 0)
			rc = flush(o, 0, true);
		if (o->st.closed_by_sample && !o->st.switch_records && !o->warned_fallback) {
			char msg[240];
			o->warned_fallback = true;
			snprintf(msg, sizeof(msg),
				 "no context-switch records: %llu off-CPU intervals end at the thread's "
				 "next sample (an upper bound); record with --switch-events",
				 (unsigned long long)o->st.closed_by_sample);
			warn(o, msg);
		}
	}
	return o->inner.end ? o->inner.end(o->inner.ctx, p, rc) : 0;
}

void offcpu_wrap(struct offcpu *o, const struct sink *inner, struct sink *outer)
{
	o->inner = *inner;
	memset(outer, 0, sizeof(*outer));
	outer->ctx = o;
	outer->begin = oc_begin;
	outer->event = oc_event;
	outer->sample = oc_sample;
	outer->end = oc_end;
}
