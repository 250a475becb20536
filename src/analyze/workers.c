/*
 * workers.c: parallel resolve with in-order delivery (see workers.h).
 *
 * A ring of `depth` slots: the submitter fills slot tail and advances it;
 * workers take queued slots in ring order; the submitter delivers slot head
 * once it is done. One mutex guards slot states and indexes; the work itself
 * (decode + unwind + symbolize) runs unlocked.
 */
#include "analyze/workers.h"
#include "analyze/a2l.h"
#include "util/buf.h"
#include "util/hash.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SLOT_FREE, SLOT_QUEUED, SLOT_RUNNING, SLOT_DONE };

struct snap {
	struct process p;     /* copy; p.maps owned */
	int refs;
};

struct slot {
	int state;
	uint8_t *rec;
	size_t rec_cap;
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
	int rc;
};

struct worker {
	struct workers *w;
	pthread_t th;
	struct resolver *r;
	bool started;
};

struct workers {
	const struct pipeline_config *cfg;
	struct session *sess;
	const struct perf_evlist *el;
	workers_deliver_fn deliver;
	void *ctx;
	struct slot *slots;
	size_t depth, head, tail, take;  /* head <= take <= tail (mod depth, as counters) */
	pthread_mutex_t mu;
	pthread_cond_t cv_work, cv_done;
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
	struct snap *n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->p = *p;
	n->p.maps = NULL;
	n->p.cap_maps = n->p.nr_maps;
	if (p->nr_maps) {
		n->p.maps = malloc(p->nr_maps * sizeof(*p->maps));
		if (!n->p.maps) {
			free(n);
			return NULL;
		}
		memcpy(n->p.maps, p->maps, p->nr_maps * sizeof(*p->maps));
	}
	n->refs = 2; /* the table's and the caller's */
	hmap_put(&w->snaps, pid, n);
	snap_put(s);
	return n;
}

/* One warning per cause across all workers. */
static void warn_once(void *ctx, const struct resolver_warning *wr)
{
	struct workers *w = ctx;
	uint64_t h = hash_u64(wr->kind);
	if (wr->file)
		h ^= hash_bytes(wr->file, strlen(wr->file));
	if (wr->msg)
		h = hash_u64(h) ^ hash_bytes(wr->msg, strlen(wr->msg));
	pthread_mutex_lock(&w->warn_mu);
	bool seen = hmap_get(&w->warned, h) != NULL;
	if (!seen) {
		hmap_put(&w->warned, h, (void *)1);
		/* under the lock: the callback need not be thread-safe */
		resolver_warning_route(w->cfg, wr);
	}
	pthread_mutex_unlock(&w->warn_mu);
}

static void resolve_slot(struct resolver *r, const struct perf_evlist *el, struct slot *s)
{
	struct err e = { 0 };
	s->rc = perf_event_decode(el, s->rec, s->file_off, &s->ev, &e);
	if (s->rc)
		return;
	struct resolved_sample rs;
	s->rc = resolver_resolve_view(r, &s->view, &s->ev, s->attr, &rs);
	if (s->rc)
		return;
	if (rs.nr_frames > s->frames_cap) {
		size_t cap = s->frames_cap;
		if (ARRAY_GROW(s->frames, cap, rs.nr_frames, 1u << 22)) {
			s->rc = -ENOMEM;
			return;
		}
		s->frames_cap = cap;
	}
	if (rs.nr_frames)
		memcpy(s->frames, rs.frames, rs.nr_frames * sizeof(*rs.frames));
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
}

static void *worker_main(void *arg)
{
	struct worker *me = arg;
	struct workers *w = me->w;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->stop && w->take == w->tail)
			pthread_cond_wait(&w->cv_work, &w->mu);
		if (w->stop)
			break;
		struct slot *s = &w->slots[w->take % w->depth];
		w->take++;
		s->state = SLOT_RUNNING;
		pthread_mutex_unlock(&w->mu);
		resolve_slot(me->r, w->el, s);
		pthread_mutex_lock(&w->mu);
		s->state = SLOT_DONE;
		pthread_cond_broadcast(&w->cv_done);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

struct workers *workers_new(const struct pipeline_config *c, struct session *sess,
			    const struct perf_header *h, const struct perf_evlist *el, int n,
			    workers_deliver_fn deliver, void *ctx)
{
	if (n < 1)
		return NULL;
	struct workers *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->cfg = c;
	w->sess = sess;
	w->el = el;
	w->deliver = deliver;
	w->ctx = ctx;
	w->depth = (size_t)n * 64;
	w->slots = calloc(w->depth, sizeof(*w->slots));
	w->th = calloc((size_t)n, sizeof(*w->th));
	pthread_mutex_init(&w->mu, NULL);
	pthread_mutex_init(&w->warn_mu, NULL);
	pthread_cond_init(&w->cv_work, NULL);
	pthread_cond_init(&w->cv_done, NULL);
	hmap_init(&w->snaps);
	hmap_init(&w->warned);
	if (!w->slots || !w->th) {
		workers_free(w);
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		struct worker *t = &w->th[i];
		t->w = w;
		t->r = resolver_new(c, sess, h);
		if (!t->r)
			break;
		resolver_set_warn(t->r, warn_once, w);
		resolver_defer_a2l(t->r);
		if (pthread_create(&t->th, NULL, worker_main, t)) {
			resolver_free(t->r);
			t->r = NULL;
			break;
		}
		t->started = true;
		w->n++;
	}
	if (w->n == 0) {
		workers_free(w);
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
		while (wait && s->state != SLOT_DONE)
			pthread_cond_wait(&w->cv_done, &w->mu);
		bool done = s->state == SLOT_DONE;
		pthread_mutex_unlock(&w->mu);
		if (!done)
			return rc;
		if (s->rc < 0) {
			rc = s->rc;
		} else if (!rc) {
			resolver_apply_deferred(&w->a2l, s->def, s->nr_def, &s->rs);
			rc = w->deliver(w->ctx, &s->rs);
		}
		snap_put(s->ps);
		snap_put(s->ks);
		s->ps = s->ks = NULL;
		pthread_mutex_lock(&w->mu);
		s->state = SLOT_FREE;
		w->head++;
		pthread_mutex_unlock(&w->mu);
		wait = false;
		if (rc)
			return rc;
	}
}

int workers_submit(struct workers *w, const uint8_t *rec, uint64_t file_off,
		   const struct perf_event *ev, const struct perf_attr *attr)
{
	int rc;
	if (w->tail - w->head == w->depth && (rc = deliver_ready(w, true)))
		return rc;
	struct slot *s = &w->slots[w->tail % w->depth];
	uint32_t size = ((const struct perf_event_header *)rec)->size;
	if (size > s->rec_cap) {
		uint8_t *n = realloc(s->rec, size);
		if (!n)
			return -ENOMEM;
		s->rec = n;
		s->rec_cap = size;
	}
	memcpy(s->rec, rec, size);
	s->file_off = file_off;
	s->attr = attr;
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
	pthread_cond_signal(&w->cv_work);
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
	pthread_mutex_unlock(&w->mu);
	for (int i = 0; w->th && i < w->n; i++)
		if (w->th[i].started)
			pthread_join(w->th[i].th, NULL);
	for (int i = 0; w->th && i < w->n; i++)
		resolver_free(w->th[i].r);
	for (size_t i = 0; w->slots && i < w->depth; i++) {
		snap_put(w->slots[i].ps);
		snap_put(w->slots[i].ks);
		free(w->slots[i].rec);
		free(w->slots[i].frames);
		free(w->slots[i].def);
	}
	hmap_release_vals(&w->snaps, snap_put);
	hmap_release(&w->warned);
	a2l_state_release(&w->a2l);
	pthread_cond_destroy(&w->cv_work);
	pthread_cond_destroy(&w->cv_done);
	pthread_mutex_destroy(&w->mu);
	pthread_mutex_destroy(&w->warn_mu);
	free(w->slots);
	free(w->th);
	free(w);
}
