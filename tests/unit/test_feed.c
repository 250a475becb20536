/* feed.c: one producer, consumers at their own pace, a small ring. */
#include "test.h"
#include "analyze/parallel/feed.h"

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#define N_RECS 20000

struct consumer {
	struct feed *f;
	int index;
	int slow;          /* sleep now and then */
	int leave_at;      /* >= 0: leave after this many records */
	int seen, bad, end_rc, cuts, metas;
	bool ended;
};

static void nap(void)
{
	struct timespec ts = { 0, 200 * 1000 };
	nanosleep(&ts, NULL);
}

static void *consume(void *arg)
{
	struct consumer *c = arg;
	if (!c->leave_at) {
		feed_leave(c->f, c->index);
		return NULL;
	}
	for (;;) {
		const struct feed_entry *en = feed_next(c->f, c->index);
		if (en->kind == FEED_END) {
			c->ended = true;
			c->end_rc = en->rc;
			if (en->rc < 0 && strcmp(feed_error(c->f)->msg, "the end"))
				c->bad++;
			feed_consumed(c->f, c->index);
			break;
		}
		if (en->kind == FEED_CUT) {
			c->cuts++;
		} else if (en->kind == FEED_META) {
			/* the record, then the tracing data after it (aligned) */
			if (en->size != 8 || en->tracing != 3 || memcmp(en->rec + 8, "abc", 3))
				c->bad++;
			c->metas++;
		} else {
			uint32_t v;
			memcpy(&v, en->rec, 4);
			/* in order, each as published, its state beside it */
			if (v != (uint32_t)c->seen || en->size != 16 || en->type != 9 ||
			    feed_state(c->f, en)->pos != (uint64_t)c->seen * 16)
				c->bad++;
			c->seen++;
		}
		feed_consumed(c->f, c->index);
		if (c->slow && !(c->seen % 997))
			nap();
		if (c->leave_at >= 0 && c->seen == c->leave_at) {
			feed_leave(c->f, c->index);
			break;
		}
	}
	return NULL;
}

/* n - 1 consumers, each as described; the producer publishes N_RECS
 * records (a CUT and a META among them) and the end. */
static void run_case(int n, size_t cap, const int *slow, const int *leave_at, bool producer_naps)
{
	struct feed *f = feed_new(n, cap);
	struct consumer c[8];
	pthread_t th[8];
	for (int i = 1; i < n; i++) {
		c[i] = (struct consumer){ .f = f, .index = i, .slow = slow[i], .leave_at = leave_at[i] };
		CHECK(!pthread_create(&th[i], NULL, consume, &c[i]));
	}
	for (int k = 0; k < N_RECS; k++) {
		if (k == N_RECS / 3) {
			feed_slot(f)->kind = FEED_CUT;
			feed_publish(f);
			struct feed_entry *en = feed_slot(f);
			en->kind = FEED_META;
			en->copy = malloc(16);
			memset(en->copy, 0, 16);
			memcpy(en->copy + 8, "abc", 3);
			en->rec = en->copy;
			en->size = 8;
			en->tracing = 3;
			feed_publish(f);
		}
		struct feed_entry *en = feed_slot(f);
		en->kind = FEED_REC;
		en->copy = malloc(16);
		uint32_t v = (uint32_t)k;
		memcpy(en->copy, &v, 4);
		en->rec = en->copy;
		en->size = 16;
		en->type = 9;
		feed_state(f, en)->pos = (uint64_t)k * 16;
		feed_publish(f);
		if (!(k % 1000))
			feed_flush(f);
		if (producer_naps && !(k % 1499))
			nap();
	}
	struct err e = { 0 };
	snprintf(e.msg, sizeof(e.msg), "the end");
	e.set = 1;
	feed_end(f, -5, true, &e);
	feed_end(f, 0, true, NULL); /* once only */
	for (int i = 1; i < n; i++) {
		pthread_join(th[i], NULL);
		CHECK_EQ(c[i].bad, 0);
		if (leave_at[i] >= 0) {
			CHECK_EQ(c[i].seen, leave_at[i]);
			continue;
		}
		CHECK_EQ(c[i].seen, N_RECS);
		CHECK(c[i].ended);
		CHECK_EQ(c[i].end_rc, -5);
		CHECK_EQ(c[i].cuts, 1);
		CHECK_EQ(c[i].metas, 1);
	}
	feed_release(f);
	feed_free(f);
}

TEST(feed_order_and_wraps)
{
	int none[8] = { 0 }, stay[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };
	int slow[8] = { 0, 1, 0, 1, 0, 0, 0, 0 };
	run_case(2, 64, none, stay, false);      /* the ring wraps 300 times */
	run_case(2, 1, none, stay, true);        /* the least ring (64) */
	run_case(4, 100, slow, stay, false);     /* the slow ones hold the producer back */
	run_case(4, 4096, slow, stay, true);     /* consumers wait for the producer */
}

/* A consumer that leaves (an error of its own, or it never started)
 * does not hold the producer: the others get every record. */
TEST(feed_leave)
{
	int none[8] = { 0 };
	int leave[8] = { -1, 0, 5000, -1, -1, -1, -1, -1 };
	run_case(4, 64, none, leave, false);
	/* every consumer gone: the producer never waits */
	struct feed *f = feed_new(3, 64);
	feed_leave(f, 1);
	feed_leave(f, 2);
	feed_leave(f, 0);   /* not a consumer: nothing */
	feed_leave(f, 7);
	for (int k = 0; k < 1000; k++) {
		struct feed_entry *en = feed_slot(f);
		en->kind = FEED_REC;
		en->copy = malloc(8);
		en->rec = en->copy;
		feed_publish(f);
	}
	feed_end(f, 0, true, NULL);
	feed_release(f);
	feed_free(f);
}

/* Records are published in batches: what the producer filled reaches the
 * consumers when it flushes (the end of a block, before it may wait for
 * them), and a CUT at once, with the records before it. */
struct watcher {
	struct feed *f;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int recs, cuts;
};

static void *watch(void *arg)
{
	struct watcher *w = arg;
	for (;;) {
		const struct feed_entry *en = feed_next(w->f, 1);
		pthread_mutex_lock(&w->mu);
		if (en->kind == FEED_REC)
			w->recs++;
		else if (en->kind == FEED_CUT)
			w->cuts++;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		bool end = en->kind == FEED_END;
		feed_consumed(w->f, 1);
		if (end)
			return NULL;
	}
}

/* Wait up to 5 s for the watcher to have seen recs records and cuts CUTs. */
static bool saw(struct watcher *w, int recs, int cuts)
{
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 5;
	pthread_mutex_lock(&w->mu);
	while ((w->recs < recs || w->cuts < cuts) && !pthread_cond_timedwait(&w->cv, &w->mu, &dl))
		;
	bool ok = w->recs == recs && w->cuts == cuts;
	pthread_mutex_unlock(&w->mu);
	return ok;
}

static void put_rec(struct feed *f)
{
	struct feed_entry *en = feed_slot(f);
	en->kind = FEED_REC;
	en->copy = malloc(8);
	en->rec = en->copy;
	en->size = 8;
	feed_publish(f);
}

TEST(feed_flush_publishes_what_is_filled)
{
	struct watcher w = { .f = feed_new(2, 64) };
	pthread_mutex_init(&w.mu, NULL);
	pthread_cond_init(&w.cv, NULL);
	pthread_t th;
	CHECK(!pthread_create(&th, NULL, watch, &w));
	for (int k = 0; k < 3; k++)
		put_rec(w.f);
	feed_flush(w.f);
	CHECK(saw(&w, 3, 0));
	put_rec(w.f);
	put_rec(w.f);
	feed_slot(w.f)->kind = FEED_CUT;
	feed_publish(w.f);
	CHECK(saw(&w, 5, 1));
	/* more than a ring of records, never flushed: the producer publishes
	 * before it waits for room */
	for (int k = 0; k < 200; k++)
		put_rec(w.f);
	feed_flush(w.f);
	CHECK(saw(&w, 205, 1));
	feed_end(w.f, 0, true, NULL);
	pthread_join(th, NULL);
	feed_release(w.f);
	feed_free(w.f);
	pthread_cond_destroy(&w.cv);
	pthread_mutex_destroy(&w.mu);
}
