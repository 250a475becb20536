/* test_workers.c: parallel resolve with in-order delivery: every sample
 * comes back once, in submission order, with the frames one resolver gives;
 * a delivery callback's nonzero return stops the stream; counters add up. */
#include "synth.h"
#include "analyze/session.h"
#include "analyze/workers.h"
#include "perf/event.h"

#define NR 1000

struct got {
	uint32_t n;
	uint64_t time[NR];
	const char *leaf[NR];
	uint32_t frames[NR];
	uint32_t stop_at;    /* deliver returns 1 at this count (0: never) */
};

static int deliver(void *ctx, const struct resolved_sample *rs)
{
	struct got *g = ctx;
	CHECK(g->n < NR);
	g->time[g->n] = rs->ev->s.time;
	g->leaf[g->n] = rs->nr_frames ? rs->frames[0].sym : NULL;
	g->frames[g->n] = rs->nr_frames;
	g->n++;
	return g->stop_at && g->n == g->stop_at ? 1 : 0;
}

struct fixture {
	struct synth_map m;
	struct session *s;
	struct perf_evlist el;
	struct pipeline_config c;
};

static void setup(struct fixture *f)
{
	synth_self_map(&f->m);
	f->s = session_new();
	struct perf_event ev = { 0 };
	ev.type = PERF_RECORD_MMAP2;
	ev.misc = PERF_RECORD_MISC_USER;
	ev.mmap.prot = PROT_READ | PROT_EXEC;
	ev.mmap.pid = ev.mmap.tid = SYNTH_PID;
	ev.mmap.start = f->m.start;
	ev.mmap.len = f->m.end - f->m.start;
	ev.mmap.pgoff = f->m.pgoff;
	ev.mmap.filename = f->m.path;
	session_apply(f->s, &ev);
	perf_evlist_init(&f->el);
	struct perf_event_attr a = synth_attr();
	struct err e = { 0 };
	CHECK_EQ(perf_evlist_add(&f->el, &a, sizeof(a), NULL, 0, 0, &e), 0);
	perf_evlist_finalize(&f->el);
	pipeline_config_init(&f->c);
	f->c.kallsyms = "/dev/null";
}

static void teardown(struct fixture *f)
{
	perf_evlist_release(&f->el);
	session_free(f->s);
}

static int submit_all(struct workers *w, struct fixture *f, uint32_t nr)
{
	uint8_t rec[256];
	for (uint32_t i = 0; i < nr; i++) {
		synth_sample(rec, i);
		struct perf_event ev;
		struct err e = { 0 };
		CHECK_EQ(perf_event_decode(&f->el, rec, 0, &ev, &e), 0);
		int rc = workers_submit(w, rec, 0, &ev, &f->el.attrs[0]);
		if (rc)
			return rc;
	}
	return workers_drain(w);
}

TEST(workers_deliver_in_order_same_frames)
{
	struct fixture f;
	setup(&f);
	for (int n = 1; n <= 3; n++) {
		struct got *g = calloc(1, sizeof(*g));
		struct workers *w = workers_new(&f.c, f.s, NULL, &f.el, n, deliver, g);
		CHECK(w);
		CHECK_EQ(submit_all(w, &f, NR), 0);
		CHECK_EQ(g->n, NR);
		for (uint32_t i = 0; i < NR; i++) {
			CHECK_EQ(g->time[i], 1000 + i);
			CHECK_EQ(g->frames[i], i % 3 == 0 ? 2 : 3);
			CHECK_STR(g->leaf[i], i % 3 == 0 ? "synth_mid" : "synth_leaf");
		}
		struct resolver_stats st = { 0 };
		workers_stats(w, &st);
		CHECK_EQ(st.samples, NR);
		CHECK_EQ(st.fp_samples, NR);
		CHECK_EQ(st.frames_unknown, 0);
		workers_free(w);
		free(g);
	}
	teardown(&f);
}

TEST(workers_delivery_stop_propagates)
{
	struct fixture f;
	setup(&f);
	struct got *g = calloc(1, sizeof(*g));
	g->stop_at = 100;
	struct workers *w = workers_new(&f.c, f.s, NULL, &f.el, 2, deliver, g);
	CHECK(w);
	CHECK_EQ(submit_all(w, &f, NR), 1);
	CHECK_EQ(g->n, 100);
	CHECK_EQ(g->time[99], 1099);
	workers_free(w); /* samples in flight are dropped, nothing leaks */
	free(g);
	teardown(&f);
}

TEST(workers_need_a_thread)
{
	struct fixture f;
	setup(&f);
	CHECK(workers_new(&f.c, f.s, NULL, &f.el, 0, deliver, NULL) == NULL);
	CHECK(workers_default_jobs() >= 1);
	teardown(&f);
}
