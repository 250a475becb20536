/*
 * feed.c: the leader's delivered records for the followers (feed.h).
 *
 * head (entries published) is written by the leader only, each
 * consumer's tail (entries it is done with; FEED_GONE once it left) by
 * that consumer only. Entries below every tail are the leader's to let go
 * (reclaim, on its own thread: chunk counts are its input's). A side that
 * finds nothing to do spins a little, then sleeps on its side's condition
 * variable after saying so (`sleepers`: consumers; `lead_asleep`); the
 * other side, after moving its counter, wakes it when that is nonzero
 * (both sequentially consistent, so one of the two always sees the
 * other's write). A consumer wakes only the leader: the consumers do not
 * wait for each other. helgrind is told of the two hand-overs (an entry
 * published, an entry done with: util/annotate.h).
 *
 * A consumer that sleeps waits for a batch: it is woken once `want`
 * entries are there (FEED_BATCH past its place), or when the leader
 * calls feed_flush (the end of a block: before the leader may wait for
 * the followers' blocks), publishes a CUT or the END, or waits for room
 * itself. Woken for every record instead, a follower waiting for its
 * next block while the leader resolved its own went to sleep and was
 * woken once per record the leader published (12,750 futex calls
 * instead of 2,939 on the 916 MB build recording).
 *
 * The leader publishes records PUBLISH_BATCH at a time (head moves to
 * `filled`), anything else at once, and all it filled before it may wait:
 * for room (feed_slot), for the followers' blocks (feed_flush, at the end
 * of each block), at a CUT and at the END. Each store of head took its
 * cache line from the consumer spinning on it: feed_publish was a visible
 * share of `script -j 2`'s CPU samples.
 */
#include "analyze/parallel/feed.h"
#include "util/annotate.h"
#include "util/xalloc.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FEED_GONE UINT64_MAX
#define SPINS 256
#define FEED_BATCH 256
#define PUBLISH_BATCH 16

struct feed_tail {
	_Alignas(64) uint64_t tail;
	uint64_t seen;                /* the consumer's: head as it last read it */
};

/* Each line written by one side only: a line the leader writes for every
 * record (filled) beside one a waiting consumer reads (head) took it from
 * the leader at every record. Allocated on a line (feed_new). */
struct feed {
	int n;                        /* read only */
	size_t cap, mask;
	struct feed_entry *ring;
	struct pipeline_recstate *states; /* beside ring */
	struct feed_tail *c;          /* [n]; [0] unused */
	_Alignas(64) uint64_t head;   /* published */
	_Alignas(64) uint64_t filled; /* leader only: entries filled, head or up to PUBLISH_BATCH - 1 past it */
	uint64_t reclaimed;           /* leader only: entries below are let go */
	bool ended;                   /* leader only: END published */
	_Alignas(64) int sleepers;    /* consumers asleep */
	int lead_asleep;
	uint64_t want;                /* the least head a sleeping consumer waits for (under mu) */
	pthread_mutex_t mu;
	pthread_cond_t cv;            /* the consumers wait on it */
	pthread_cond_t cv_lead;       /* the leader */
	struct err err;               /* END's, written before it is published */
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

struct feed *feed_new(int n, size_t cap)
{
	size_t fsize = (sizeof(struct feed) + 63) & ~(size_t)63;
	struct feed *f = xaligned_calloc(64, fsize);
	size_t c = 64;
	while (c < cap)
		c <<= 1;
	f->n = n;
	f->cap = c;
	f->mask = c - 1;
	f->ring = xcalloc(c, sizeof(*f->ring));
	f->states = xcalloc(c, sizeof(*f->states));
	size_t csize = sizeof(*f->c) * (size_t)(n > 1 ? n : 1);
	f->c = xaligned_calloc(64, csize);
	/* the counters themselves are only read and written atomically */
	VALGRIND_HG_DISABLE_CHECKING(&f->head, sizeof(f->head));
	VALGRIND_HG_DISABLE_CHECKING(&f->sleepers, sizeof(f->sleepers));
	VALGRIND_HG_DISABLE_CHECKING(&f->lead_asleep, sizeof(f->lead_asleep));
	VALGRIND_HG_DISABLE_CHECKING(&f->want, sizeof(f->want));
	VALGRIND_HG_DISABLE_CHECKING(f->c, csize);
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->cv, NULL);
	pthread_cond_init(&f->cv_lead, NULL);
	return f;
}

void feed_free(struct feed *f)
{
	if (!f)
		return;
	pthread_cond_destroy(&f->cv);
	pthread_cond_destroy(&f->cv_lead);
	pthread_mutex_destroy(&f->mu);
	free(f->c);
	free(f->ring);
	free(f->states);
	free(f);
}

static void publish_now(struct feed *f);

static void wake(struct feed *f)
{
	if (__atomic_load_n(&f->sleepers, __ATOMIC_SEQ_CST)) {
		pthread_mutex_lock(&f->mu);
		__atomic_store_n(&f->want, 0, __ATOMIC_RELAXED);
		pthread_cond_broadcast(&f->cv);
		pthread_mutex_unlock(&f->mu);
	}
}

/* A consumer moved: the leader may have room now. */
static void wake_lead(struct feed *f)
{
	if (__atomic_load_n(&f->lead_asleep, __ATOMIC_SEQ_CST)) {
		pthread_mutex_lock(&f->mu);
		pthread_cond_signal(&f->cv_lead);
		pthread_mutex_unlock(&f->mu);
	}
}

void feed_flush(struct feed *f)
{
	if (!f)
		return;
	publish_now(f);
	wake(f);
}

static void let_go(struct feed_entry *en)
{
	input_chunk_put(en->chunk);
	free(en->copy);
	en->chunk = NULL;
	en->copy = NULL;
}

/* The lowest place of a consumer still reading (head if none). */
static uint64_t min_tail(struct feed *f)
{
	uint64_t m = f->head;
	for (int i = 1; i < f->n; i++) {
		uint64_t t = __atomic_load_n(&f->c[i].tail, __ATOMIC_SEQ_CST);
		ANNOTATE_HAPPENS_AFTER(&f->c[i].tail);
		if (t < m)
			m = t;
	}
	return m;
}

static bool reclaim(struct feed *f)
{
	uint64_t m = min_tail(f);
	bool any = m > f->reclaimed;
	for (; f->reclaimed < m; f->reclaimed++)
		let_go(&f->ring[f->reclaimed & f->mask]);
	return any;
}

struct feed_entry *feed_slot(struct feed *f)
{
	if (f->filled - f->reclaimed == f->cap) {
		/* the consumers may be waiting for what is filled */
		publish_now(f);
		for (int s = 0; s < SPINS && !reclaim(f); s++)
			cpu_relax();
		if (f->filled - f->reclaimed == f->cap) {
			wake(f); /* a consumer waiting for a batch has it */
			pthread_mutex_lock(&f->mu);
			__atomic_store_n(&f->lead_asleep, 1, __ATOMIC_SEQ_CST);
			while (!reclaim(f))
				pthread_cond_wait(&f->cv_lead, &f->mu);
			__atomic_store_n(&f->lead_asleep, 0, __ATOMIC_SEQ_CST);
			pthread_mutex_unlock(&f->mu);
		}
	}
	struct feed_entry *en = &f->ring[f->filled & f->mask];
	memset(en, 0, sizeof(*en));
	return en;
}

struct pipeline_recstate *feed_state(struct feed *f, const struct feed_entry *en)
{
	return &f->states[en - f->ring];
}

/* head = filled: the consumers may read every entry filled. */
static void publish_now(struct feed *f)
{
	uint64_t h = f->filled;
	if (h == f->head)
		return;
	ANNOTATE_HAPPENS_BEFORE(&f->head);
	__atomic_store_n(&f->head, h, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&f->sleepers, __ATOMIC_SEQ_CST) &&
	    (h >= __atomic_load_n(&f->want, __ATOMIC_RELAXED) || f->ring[(h - 1) & f->mask].kind != FEED_REC))
		wake(f);
}

void feed_publish(struct feed *f)
{
	/* records in batches: each store of head takes its cache line from
	 * the consumers reading it; anything else at once */
	if (++f->filled - f->head >= PUBLISH_BATCH || f->ring[(f->filled - 1) & f->mask].kind != FEED_REC)
		publish_now(f);
}

void feed_end(struct feed *f, int rc, bool input, const struct err *e)
{
	if (!f || f->ended)
		return;
	f->ended = true;
	if (e)
		f->err = *e;
	struct feed_entry *en = feed_slot(f);
	en->kind = FEED_END;
	en->rc = rc;
	en->input = input;
	feed_publish(f);
}

void feed_release(struct feed *f)
{
	if (!f)
		return;
	for (; f->reclaimed < f->filled; f->reclaimed++)
		let_go(&f->ring[f->reclaimed & f->mask]);
}

/* Consumer i at t, all it had seen used: reads head again, waiting
 * (spinning, then asleep) while nothing is published past t. */
static const struct feed_entry *wait_head(struct feed *f, int i, uint64_t t)
{
	if ((f->c[i].seen = __atomic_load_n(&f->head, __ATOMIC_ACQUIRE)) == t) {
		for (int s = 0; s < SPINS && __atomic_load_n(&f->head, __ATOMIC_ACQUIRE) == t; s++)
			cpu_relax();
		if (__atomic_load_n(&f->head, __ATOMIC_ACQUIRE) == t) {
			pthread_mutex_lock(&f->mu);
			uint64_t want = t + (FEED_BATCH < f->cap / 2 ? FEED_BATCH : f->cap / 2);
			if (!__atomic_load_n(&f->sleepers, __ATOMIC_RELAXED) || want < f->want)
				__atomic_store_n(&f->want, want, __ATOMIC_RELAXED);
			__atomic_add_fetch(&f->sleepers, 1, __ATOMIC_SEQ_CST);
			while (__atomic_load_n(&f->head, __ATOMIC_SEQ_CST) == t)
				pthread_cond_wait(&f->cv, &f->mu);
			__atomic_sub_fetch(&f->sleepers, 1, __ATOMIC_SEQ_CST);
			pthread_mutex_unlock(&f->mu);
		}
		f->c[i].seen = __atomic_load_n(&f->head, __ATOMIC_ACQUIRE);
	}
	return &f->ring[t & f->mask];
}

const struct feed_entry *feed_next(struct feed *f, int i)
{
	uint64_t t = f->c[i].tail;
	if (t < f->c[i].seen) /* published when head was last read */
		return &f->ring[t & f->mask];
	const struct feed_entry *en = wait_head(f, i, t);
	ANNOTATE_HAPPENS_AFTER(&f->head);
	return en;
}

const struct feed_entry *feed_peek(struct feed *f, int i, unsigned ahead)
{
	uint64_t t = f->c[i].tail + ahead;
	return t < f->c[i].seen ? &f->ring[t & f->mask] : NULL;
}

void feed_consumed(struct feed *f, int i)
{
	ANNOTATE_HAPPENS_BEFORE(&f->c[i].tail);
	__atomic_store_n(&f->c[i].tail, f->c[i].tail + 1, __ATOMIC_SEQ_CST);
	wake_lead(f);
}

void feed_leave(struct feed *f, int i)
{
	if (!f || i <= 0 || i >= f->n)
		return;
	ANNOTATE_HAPPENS_BEFORE(&f->c[i].tail);
	__atomic_store_n(&f->c[i].tail, FEED_GONE, __ATOMIC_SEQ_CST);
	wake_lead(f);
}

const struct err *feed_error(const struct feed *f)
{
	return &f->err;
}
