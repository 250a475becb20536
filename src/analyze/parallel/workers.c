/*
 * workers.c: parallel resolve with in-order delivery (see workers.h).
 *
 * A ring of `depth` slots: the submitter fills slot tail and advances it;
 * workers take queued slots in ring order; the submitter delivers slot head
 * once it is done. One mutex guards slot states and indexes; the work itself
 * (decode + unwind + symbolize, then the sink's formatting) runs unlocked.
 *
 * Two stages from 2 threads on, for recordings with user stacks to unwind
 * (measured on a 93 MB DWARF recording of a
 * parallel build: n whole resolvers each built every DSO's state again, the
 * CFI, symbol tables, kallsyms and the decompressed DWARF, and 2 of them
 * cost 1.65x the instructions of 1, so -j 2 was slower than -j 1): n/2
 * threads decode and unwind (PHASE_UNWIND: resolvers whose DSO caches build
 * only what unwinding needs), the others take the unwound slots in ring
 * order and symbolize them (PHASE_SYMBOLIZE). Each DSO's unwind state is
 * then built once per unwinding thread and its symbols once per
 * symbolizing thread; at -j 2 the instructions are those of -j 1.
 *
 * Wakeups go by batches: a sleeping thread is woken when `batch` slots wait
 * for it, when the thread feeding it runs out of work, or when the
 * submitter waits on a full ring (it wakes everyone first); the submitter
 * is woken when `batch` slots from the head are done or a worker runs out
 * of work. Waking for every slot cost 7000-8000 context switches on an
 * 11,000-sample recording; by batches, about 2000.
 * A record submitted without resolve is done at once and skipped by the
 * workers. Memory is bounded by the ring: `depth` records (input chunks
 * referenced, or copies), frame arrays and output buffers (each capped at
 * SLOT_TEXT_MAX; a sample whose output would not fit is formatted at
 * delivery instead).
 */
#include "analyze/parallel/workers.h"
#include "analyze/dwarf/a2l.h"
#include "analyze/unwind/unwind.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SLOT_FREE, SLOT_QUEUED, SLOT_RUNNING, SLOT_UNWOUND, SLOT_RUNNING2, SLOT_DONE };

/* What a worker does: all of resolving, or one of the two stages. */
enum { PHASE_ALL, PHASE_UNWIND, PHASE_SYMBOLIZE };

#define SLOT_TEXT_MAX (256u << 10)

struct snap {
	struct process p;     /* copy; p.maps owned */
	int refs;
};

struct slot {
	int state;
	const uint8_t *rec;             /* the record: in chunk, in the input, or copy */
	struct input_chunk *chunk;      /* a reference held until delivery */
	uint8_t *copy;
	size_t copy_cap;
	uint64_t file_off;
	const struct perf_attr *attr;
	struct snap *ps, *ks;
	struct resolve_view view;
	struct perf_event ev;
	struct resolved_sample rs;
	struct frame *frames;
	size_t frames_cap;
	struct resolver_deferred *def;  /* names decided at delivery */
	size_t def_cap;
	uint32_t nr_def;
	struct unwind_frame *uf;        /* PHASE_UNWIND's frames for PHASE_SYMBOLIZE */
	size_t uf_cap;
	int uf_n, uf_budget;
	bool resolve;                   /* a sample to resolve; else delivered as is */
	bool has_text;                  /* text holds the sink's output for it */
	struct buf text;
	/* the resolvers' warnings while resolving it, said when it is
	 * delivered (so in -j 1's order) */
	struct resolver_warnings warns;
	uint8_t aux[WORKERS_AUX];
	int rc;
};

struct worker {
	struct workers *w;
	pthread_t th;
	struct resolver *r;
	int phase;
	bool started;
};

struct workers {
	const struct pipeline_config *cfg;
	struct session *sess;
	const struct perf_evlist *el;
	workers_deliver_fn deliver;
	void *ctx;
	workers_format_fn format;
	void *format_ctx;
	size_t batch;                    /* wake a sleeping thread for this many slots */
	struct slot *slots;
	size_t depth, head, tail, take;  /* head <= take <= tail (mod depth, as counters) */
	size_t take2;                    /* the next slot for PHASE_SYMBOLIZE */
	bool split;                      /* two stages (PHASE_UNWIND, PHASE_SYMBOLIZE) */
	int idle1, idle2;                /* workers asleep on cv_work, cv_work2 */
	bool main_waiting;               /* the submitter sleeps on cv_done */
	pthread_mutex_t mu;
	pthread_cond_t cv_work, cv_work2, cv_done;
	bool stop;
	struct worker *th;
	int n;
	struct hmap snaps;    /* pid -> latest struct snap (holds one ref) */
	pthread_mutex_t warn_mu;
	struct hmap warned;
	struct a2l_state a2l;  /* order-dependent names, decided at delivery */
};

int workers_default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

static void snap_put(void *v)
{
	struct snap *s = v;
	if (s && --s->refs == 0) {
		free(s->p.maps);
		free(s);
	}
}

/* The latest snapshot of pid's maps, with a reference for the caller. */
static struct snap *snap_get(struct workers *w, uint32_t pid)
{
	struct process *p = session_process(w->sess, pid);
	struct snap *s = hmap_get(&w->snaps, pid);
	if (s && s->p.generation == p->generation && s->p.nr_maps == p->nr_maps) {
		s->refs++;
		return s;
	}
	struct snap *n = xcalloc(1, sizeof(*n));
	n->p = *p;
	n->p.maps = NULL;
	n->p.cap_maps = n->p.nr_maps;
	if (p->nr_maps) {
		n->p.maps = xmalloc(p->nr_maps * sizeof(*p->maps));
		memcpy(n->p.maps, p->maps, p->nr_maps * sizeof(*p->maps));
	}
	n->refs = 2; /* the table's and the caller's */
	hmap_put(&w->snaps, pid, n);
	snap_put(s);
	return n;
}

void workers_process_ended(struct workers *w, uint32_t pid)
{
	if (!w)
		return;
	struct process *p = hmap_get(&w->snaps, pid) ? session_process(w->sess, pid) : NULL;
	if (p && !p->live && !p->nr_maps)
		snap_put(hmap_del(&w->snaps, pid)); /* slots in flight keep their own refs */
}

/* The slot a worker thread is resolving (its warnings go with it). */
static __thread struct slot *this_slot;

/* One warning per cause across all workers, said now. */
static void say_once(struct workers *w, const struct resolver_warning *wr);

/* A worker's resolver's warning: kept with the slot, said at its delivery. */
static void warn_held(void *ctx, const struct resolver_warning *wr)
{
	struct workers *w = ctx;
	if (!this_slot || resolver_warnings_add(&this_slot->warns, wr))
		say_once(w, wr); /* not for a slot (or no memory): now */
}

static void say_once(struct workers *w, const struct resolver_warning *wr)
{
	uint64_t h = resolver_warning_hash(wr);
	pthread_mutex_lock(&w->warn_mu);
	bool seen = hmap_get(&w->warned, h) != NULL;
	if (!seen) {
		hmap_put(&w->warned, h, (void *)1);
		/* under the lock: the callback need not be thread-safe */
		resolver_warning_route(w->cfg, wr);
	}
	pthread_mutex_unlock(&w->warn_mu);
}

/* PHASE_UNWIND: decode the copy and unwind its user stack into s->uf. */
static void unwind_slot(struct resolver *r, const struct perf_evlist *el, struct slot *s)
{
	struct err e = { 0 };
	s->rc = perf_event_decode(el, s->rec, s->file_off, &s->ev, &e);
	if (s->rc)
		return;
	const struct unwind_frame *uf;
	s->rc = resolver_unwind_view(r, &s->view, &s->ev, s->attr, &uf, &s->uf_n, &s->uf_budget);
	if (s->rc)
		return;
	if (s->uf_n > 0 && (size_t)s->uf_n > s->uf_cap) {
		size_t cap = s->uf_cap;
		if (ARRAY_GROW(s->uf, cap, (size_t)s->uf_n, 1u << 16)) {
			s->uf_n = -1; /* the second stage unwinds it itself */
			return;
		}
		s->uf_cap = cap;
	}
	if (s->uf_n > 0)
		memcpy(s->uf, uf, (size_t)s->uf_n * sizeof(*uf));
}

/* PHASE_ALL: decode, then resolve; PHASE_SYMBOLIZE: resolve the decoded
 * sample with the first stage's frames. Then the sink's text. */
static void resolve_slot(struct workers *w, struct resolver *r, const struct perf_evlist *el,
			 struct slot *s, int phase)
{
	if (phase == PHASE_SYMBOLIZE) {
		if (s->rc)
			return;
		resolver_set_unwound(r, s->uf, s->uf_n, s->uf_budget);
	} else {
		struct err e = { 0 };
		s->rc = perf_event_decode(el, s->rec, s->file_off, &s->ev, &e);
		if (s->rc)
			return;
	}
	struct resolved_sample rs;
	s->rc = resolver_resolve_view(r, &s->view, &s->ev, s->attr, &rs);
	if (s->rc)
		return;
	/* the slot takes the resolver's array: no copy */
	if (rs.nr_frames)
		resolver_swap_frames(r, &s->frames, &s->frames_cap);
	uint32_t nd;
	const struct resolver_deferred *d = resolver_deferred(r, &nd);
	if (nd > s->def_cap) {
		size_t cap = s->def_cap;
		if (ARRAY_GROW(s->def, cap, nd, 1u << 22)) {
			s->rc = -ENOMEM;
			return;
		}
		s->def_cap = cap;
	}
	if (nd)
		memcpy(s->def, d, nd * sizeof(*d));
	s->nr_def = nd;
	s->rs = rs;
	s->rs.ev = &s->ev;
	s->rs.frames = s->frames;
	s->has_text = false;
	if (w->format && !nd) {
		/* names decided at delivery (nd) would change the text */
		s->text.len = 0;
		s->has_text = w->format(w->format_ctx, &s->rs, &s->text) == 0;
	}
}

/* The second stage takes unwound slots in ring order; with take2 at a slot
 * still in the first stage it waits. Under mu. */
static struct slot *take_unwound(struct workers *w, size_t *idx)
{
	if (w->take2 < w->head)
		w->take2 = w->head;
	for (; w->take2 != w->tail; w->take2++) {
		struct slot *s = &w->slots[w->take2 % w->depth];
		if (s->state == SLOT_UNWOUND) {
			*idx = w->take2++;
			return s;
		}
		if (s->state == SLOT_QUEUED || s->state == SLOT_RUNNING)
			return NULL;
		/* done already: a record delivered as is */
	}
	return NULL;
}

static void *worker_main(void *arg)
{
	struct worker *me = arg;
	struct workers *w = me->w;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		struct slot *s = NULL;
		size_t idx = 0;
		if (me->phase == PHASE_SYMBOLIZE) {
			if (!w->stop)
				s = take_unwound(w, &idx);
		} else {
			/* records delivered as is are done already */
			while (w->take != w->tail && w->slots[w->take % w->depth].state != SLOT_QUEUED)
				w->take++;
			if (!w->stop && w->take != w->tail) {
				idx = w->take++;
				s = &w->slots[idx % w->depth];
			}
		}
		if (w->stop)
			break;
		if (!s) {
			/* nothing to do: hand what is done on before sleeping */
			if (me->phase == PHASE_UNWIND) {
				if (w->idle2)
					pthread_cond_broadcast(&w->cv_work2);
				w->idle1++;
				pthread_cond_wait(&w->cv_work, &w->mu);
				w->idle1--;
			} else {
				if (w->main_waiting)
					pthread_cond_signal(&w->cv_done);
				int *idle = me->phase == PHASE_SYMBOLIZE ? &w->idle2 : &w->idle1;
				(*idle)++;
				pthread_cond_wait(me->phase == PHASE_SYMBOLIZE ? &w->cv_work2 : &w->cv_work, &w->mu);
				(*idle)--;
			}
			continue;
		}
		s->state = me->phase == PHASE_SYMBOLIZE ? SLOT_RUNNING2 : SLOT_RUNNING;
		pthread_mutex_unlock(&w->mu);
		this_slot = s;
		if (me->phase == PHASE_UNWIND)
			unwind_slot(me->r, w->el, s);
		else
			resolve_slot(w, me->r, w->el, s, me->phase);
		this_slot = NULL;
		pthread_mutex_lock(&w->mu);
		/* wake the next thread for a batch of slots, not for each: every
		 * wakeup is a context switch (see workers_new) */
		if (me->phase == PHASE_UNWIND) {
			s->state = SLOT_UNWOUND;
			if (w->idle2 && w->take - w->take2 >= w->batch)
				pthread_cond_broadcast(&w->cv_work2);
		} else {
			s->state = SLOT_DONE;
			if (w->main_waiting && w->slots[w->head % w->depth].state == SLOT_DONE &&
			    idx + 1 - w->head >= w->batch)
				pthread_cond_signal(&w->cv_done);
		}
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Whether samples may carry user stacks to unwind (all attrs known yet do
 * not: frame pointers, LBR and kernel stacks need no unwinding stage). */
static bool dwarf_stacks(const struct perf_evlist *el)
{
	uint64_t both = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	if (!el || !el->nr)
		return true; /* pipe input: attrs come later */
	for (size_t i = 0; i < el->nr; i++)
		if ((el->attrs[i].attr.sample_type & both) == both)
			return true;
	return false;
}

struct workers *workers_new(const struct pipeline_config *c, struct session *sess,
			    const struct perf_header *h, const struct perf_evlist *el, int n,
			    workers_deliver_fn deliver, void *ctx,
			    workers_format_fn format, void *format_ctx)
{
	if (n < 1)
		return NULL;
	struct workers *w = xcalloc(1, sizeof(*w));
	w->cfg = c;
	w->sess = sess;
	w->el = el;
	w->deliver = deliver;
	w->ctx = ctx;
	w->format = format;
	w->format_ctx = format_ctx;
	w->depth = (size_t)n * 64;
	w->batch = 16;
	w->slots = xcalloc(w->depth, sizeof(*w->slots));
	for (size_t i = 0; i < w->depth; i++)
		buf_init(&w->slots[i].text, SLOT_TEXT_MAX);
	w->th = xcalloc((size_t)n, sizeof(*w->th));
	pthread_mutex_init(&w->mu, NULL);
	pthread_mutex_init(&w->warn_mu, NULL);
	pthread_cond_init(&w->cv_work, NULL);
	pthread_cond_init(&w->cv_work2, NULL);
	pthread_cond_init(&w->cv_done, NULL);
	hmap_init(&w->snaps);
	hmap_init(&w->warned);
	if (!w->slots || !w->th) {
		workers_free(w);
		return NULL;
	}
	/* two stages from 2 threads on: each builds only its own per-DSO state
	 * (CFI; symbols, lines and inlines), where n whole resolvers would each
	 * build all of it */
	w->split = n >= 2 && dwarf_stacks(el);
	int n_unwind = w->split ? n / 2 : 0;
	/* one second-stage thread has the most work already (lines, inlines,
	 * symbols): the text is better made by the submitting thread */
	if (w->split && n - n_unwind < 2)
		w->format = NULL;
	for (int i = 0; i < n; i++) {
		struct worker *t = &w->th[i];
		t->w = w;
		t->phase = !w->split ? PHASE_ALL : i < n_unwind ? PHASE_UNWIND : PHASE_SYMBOLIZE;
		t->r = t->phase == PHASE_UNWIND ? resolver_new_unwinder(c, sess, h) : resolver_new(c, sess, h);
		if (!t->r)
			break;
		resolver_set_warn(t->r, warn_held, w);
		resolver_defer_a2l(t->r);
		if (pthread_create(&t->th, NULL, worker_main, t)) {
			resolver_free(t->r);
			t->r = NULL;
			break;
		}
		t->started = true;
		w->n++;
	}
	if (w->n == 0 || (w->split && w->n < n)) {
		workers_free(w); /* a stage without a thread would never finish */
		return NULL;
	}
	return w;
}

/* Deliver done slots from head; with wait, wait for the head slot first. */
static int deliver_ready(struct workers *w, bool wait)
{
	int rc = 0;
	for (;;) {
		pthread_mutex_lock(&w->mu);
		if (w->head == w->tail) {
			pthread_mutex_unlock(&w->mu);
			return rc;
		}
		struct slot *s = &w->slots[w->head % w->depth];
		while (wait && s->state != SLOT_DONE) {
			/* threads asleep with less than a batch must go on */
			if (w->idle1)
				pthread_cond_broadcast(&w->cv_work);
			if (w->idle2)
				pthread_cond_broadcast(&w->cv_work2);
			w->main_waiting = true;
			pthread_cond_wait(&w->cv_done, &w->mu);
			w->main_waiting = false;
		}
		bool done = s->state == SLOT_DONE;
		pthread_mutex_unlock(&w->mu);
		if (!done)
			return rc;
		/* its warnings where -j 1 would say them: before the sample */
		for (size_t i = 0; i < s->warns.n; i++)
			say_once(w, &s->warns.w[i]);
		resolver_warnings_clear(&s->warns);
		if (s->rc < 0) {
			rc = s->rc;
		} else if (!rc && s->resolve) {
			resolver_apply_deferred(&w->a2l, s->def, s->nr_def, &s->rs);
			s->rs.text = s->has_text ? (const char *)s->text.data : NULL;
			s->rs.text_len = s->has_text ? s->text.len : 0;
			rc = w->deliver(w->ctx, &s->ev, &s->rs, s->aux);
		} else if (!rc) {
			struct err e = { 0 };
			rc = perf_event_decode(w->el, s->rec, s->file_off, &s->ev, &e);
			if (!rc)
				rc = w->deliver(w->ctx, &s->ev, NULL, s->aux);
		}
		snap_put(s->ps);
		snap_put(s->ks);
		s->ps = s->ks = NULL;
		input_chunk_put(s->chunk);
		s->chunk = NULL;
		pthread_mutex_lock(&w->mu);
		s->state = SLOT_FREE;
		w->head++;
		if (w->take < w->head) /* a record delivered as is, not yet skipped */
			w->take = w->head;
		pthread_mutex_unlock(&w->mu);
		wait = false;
		if (rc)
			return rc;
	}
}

int workers_submit(struct workers *w, const uint8_t *rec, uint64_t file_off,
		   bool kept, struct input_chunk *chunk,
		   const struct perf_event *ev, const struct perf_attr *attr, bool resolve,
		   const void *aux, size_t aux_size)
{
	int rc;
	if (w->tail - w->head == w->depth && (rc = deliver_ready(w, true)))
		return rc;
	struct slot *s = &w->slots[w->tail % w->depth];
	if (kept) {
		/* no copy: the chunk (or the input) keeps it until delivery */
		s->rec = rec;
		s->chunk = chunk;
		if (chunk)
			input_chunk_get(chunk);
	} else {
		uint32_t size = ((const struct perf_event_header *)rec)->size;
		if (size > s->copy_cap) {
			s->copy = xrealloc(s->copy, size);
			s->copy_cap = size;
		}
		memcpy(s->copy, rec, size);
		s->rec = s->copy;
	}
	s->file_off = file_off;
	s->attr = attr;
	s->resolve = resolve;
	s->has_text = false;
	resolver_warnings_clear(&s->warns); /* none left from an undelivered use */
	if (aux_size > WORKERS_AUX)
		aux_size = WORKERS_AUX;
	if (aux_size)
		memcpy(s->aux, aux, aux_size);
	s->rc = 0;
	if (!resolve) {
		/* nothing for the workers: done, delivered in its place */
		pthread_mutex_lock(&w->mu);
		s->state = SLOT_DONE; /* the workers skip it */
		w->tail++;
		pthread_mutex_unlock(&w->mu);
		return deliver_ready(w, false);
	}
	s->ps = snap_get(w, ev->s.pid);
	s->ks = snap_get(w, SESSION_KERNEL_PID);
	if (!s->ps || !s->ks) {
		snap_put(s->ps);
		snap_put(s->ks);
		s->ps = s->ks = NULL;
		return -ENOMEM;
	}
	s->view.proc = &s->ps->p;
	s->view.kernel = &s->ks->p;
	s->view.comm = session_comm(w->sess, ev->s.tid, ev->s.time);
	s->rc = 0;
	pthread_mutex_lock(&w->mu);
	s->state = SLOT_QUEUED;
	w->tail++;
	if (w->idle1 && w->tail - w->take >= w->batch)
		pthread_cond_broadcast(&w->cv_work);
	pthread_mutex_unlock(&w->mu);
	return deliver_ready(w, false);
}

int workers_drain(struct workers *w)
{
	int rc = 0;
	while (!rc) {
		pthread_mutex_lock(&w->mu);
		bool empty = w->head == w->tail;
		pthread_mutex_unlock(&w->mu);
		if (empty)
			break;
		rc = deliver_ready(w, true);
	}
	return rc;
}

void workers_stats(struct workers *w, struct resolver_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < w->n; i++)
		if (w->th[i].r)
			resolver_stats_add(out, resolver_stats(w->th[i].r));
}

void workers_free(struct workers *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_cond_broadcast(&w->cv_work);
	pthread_cond_broadcast(&w->cv_work2);
	pthread_mutex_unlock(&w->mu);
	for (int i = 0; w->th && i < w->n; i++)
		if (w->th[i].started)
			pthread_join(w->th[i].th, NULL);
	for (int i = 0; w->th && i < w->n; i++)
		resolver_free(w->th[i].r);
	for (size_t i = 0; w->slots && i < w->depth; i++) {
		snap_put(w->slots[i].ps);
		snap_put(w->slots[i].ks);
		input_chunk_put(w->slots[i].chunk);
		free(w->slots[i].copy);
		free(w->slots[i].frames);
		free(w->slots[i].def);
		free(w->slots[i].uf);
		buf_release(&w->slots[i].text);
		resolver_warnings_free(&w->slots[i].warns);
	}
	hmap_release_vals(&w->snaps, snap_put);
	hmap_release(&w->warned);
	a2l_state_release(&w->a2l);
	pthread_cond_destroy(&w->cv_work);
	pthread_cond_destroy(&w->cv_work2);
	pthread_cond_destroy(&w->cv_done);
	pthread_mutex_destroy(&w->mu);
	pthread_mutex_destroy(&w->warn_mu);
	free(w->slots);
	free(w->th);
	free(w);
}
