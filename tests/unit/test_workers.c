/* test_workers.c: parallel resolve with in-order delivery: every sample
 * comes back once, in submission order, with the frames one resolver gives;
 * records submitted without resolve come back in their place with their aux
 * bytes; a format callback's text comes back with its sample; a delivery
 * callback's nonzero return stops the stream; counters add up. */
#include "synth.h"
#include "analyze/pipeline.h"
#include "analyze/session.h"
#include "analyze/parallel/workers.h"
#include "perf/event.h"

#define NR 1000

struct got {
	uint32_t n;
	uint64_t time[NR];
	const char *leaf[NR];
	uint32_t frames[NR];
	uint32_t stop_at;    /* deliver returns 1 at this count (0: never) */
	uint32_t plain[NR];  /* delivered without resolve: aux value + 1 */
	char text[NR][64];   /* rs->text, when there was one */
};

static int deliver(void *ctx, const struct perf_event *ev, struct resolved_sample *rs,
		   const void *aux)
{
	struct got *g = ctx;
	CHECK(g->n < NR);
	if (!rs) {
		uint32_t v;
		memcpy(&v, aux, sizeof v);
		g->plain[g->n] = v + 1;
		g->time[g->n] = ev->s.time;
		g->n++;
		return 0;
	}
	if (rs->text)
		snprintf(g->text[g->n], sizeof g->text[0], "%.*s", (int)rs->text_len, rs->text);
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

/* Every `plain`-th record (0: none) is submitted without resolve, with its
 * index as aux. */
static int submit_mixed(struct workers *w, struct fixture *f, uint32_t nr, uint32_t plain)
{
	uint8_t rec[256];
	for (uint32_t i = 0; i < nr; i++) {
		synth_sample(rec, i);
		struct perf_event ev;
		struct err e = { 0 };
		CHECK_EQ(perf_event_decode(&f->el, rec, 0, &ev, &e), 0);
		bool res = !plain || i % plain;
		int rc = workers_submit(w, rec, 0, false, NULL, &ev, &f->el.attrs[0], res, &i, sizeof i);
		if (rc)
			return rc;
	}
	return workers_drain(w);
}

static int submit_all(struct workers *w, struct fixture *f, uint32_t nr)
{
	return submit_mixed(w, f, nr, 0);
}

/* a format callback: the leaf and the time; declines every 5th sample */
static int format(void *ctx, const struct resolved_sample *rs, struct buf *out)
{
	(void)ctx;
	if (rs->ev->s.time % 5 == 0)
		return 1;
	char t[64];
	int n = snprintf(t, sizeof t, "%s@%llu", rs->nr_frames ? rs->frames[0].sym : "-",
			 (unsigned long long)rs->ev->s.time);
	return buf_append(out, t, (size_t)n) ? 1 : 0;
}

TEST(workers_deliver_in_order_same_frames)
{
	struct fixture f;
	setup(&f);
	for (int n = 1; n <= 3; n++) {
		struct got *g = calloc(1, sizeof(*g));
		struct workers *w = workers_new(&f.c, f.s, NULL, &f.el, n, deliver, g, NULL, NULL);
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
	struct workers *w = workers_new(&f.c, f.s, NULL, &f.el, 2, deliver, g, NULL, NULL);
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
	CHECK(workers_new(&f.c, f.s, NULL, &f.el, 0, deliver, NULL, NULL, NULL) == NULL);
	CHECK(workers_default_jobs() >= 1);
	teardown(&f);
}

TEST(workers_plain_records_in_place_and_worker_text)
{
	struct fixture f;
	setup(&f);
	for (int n = 1; n <= 3; n++) {
		struct got *g = calloc(1, sizeof(*g));
		struct workers *w = workers_new(&f.c, f.s, NULL, &f.el, n, deliver, g, format, NULL);
		CHECK(w);
		CHECK_EQ(submit_mixed(w, &f, NR, 7), 0);
		CHECK_EQ(g->n, NR);
		uint32_t texts = 0;
		for (uint32_t i = 0; i < NR; i++) {
			CHECK_EQ(g->time[i], 1000 + i);
			if (i % 7 == 0) {
				CHECK_EQ(g->plain[i], i + 1); /* its aux, in its place */
				continue;
			}
			CHECK_EQ(g->plain[i], 0);
			/* declined (the synthetic samples have no user stacks:
			 * whole resolvers, no stages, text on every worker) */
			if ((1000 + i) % 5 == 0) {
				CHECK_STR(g->text[i], "");
				continue;
			}
			char want[64];
			snprintf(want, sizeof want, "%s@%u", i % 3 == 0 ? "synth_mid" : "synth_leaf", 1000 + i);
			CHECK_STR(g->text[i], want);
			texts++;
		}
		CHECK(texts > NR / 2);
		struct resolver_stats st = { 0 };
		workers_stats(w, &st);
		CHECK_EQ(st.samples, NR - (NR + 6) / 7);
		workers_free(w);
		free(g);
	}
	teardown(&f);
}
