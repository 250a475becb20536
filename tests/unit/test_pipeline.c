/* test_pipeline.c: pipeline_run on a synthetic pipe-format stream: the sink
 * sees begin, every record in time order after the session applied it,
 * every sample resolved and in order, end once also after an error; a sink's positive return stops the
 * run without an error; missing files reach file_warn, not the notes. */
#include "synth.h"
#include "analyze/pipeline.h"
#include "analyze/resolver.h"

#define NR 600

struct rec_sink {
	int begins, ends, end_rc;
	uint32_t events, samples, comms, mmaps, attrs;
	uint64_t last_time;
	bool time_order;
	uint32_t stop_after;       /* sample() returns 1 after this many */
	char stacks[NR][64];
	int no_elf;
	char missing[256];
};

static int s_begin(void *ctx, struct pipeline *p)
{
	struct rec_sink *r = ctx;
	r->begins++;
	CHECK(pipeline_input(p) && pipeline_session(p));
	return 0;
}

static int s_event(void *ctx, struct pipeline *p, const struct perf_event *ev)
{
	struct rec_sink *r = ctx;
	r->events++;
	if (ev->type == PERF_RECORD_COMM) {
		r->comms++;
		/* applied before the sink sees it */
		CHECK_STR(session_comm(pipeline_session(p), SYNTH_PID, 2000), "synth");
	}
	if (ev->type == PERF_RECORD_MMAP2)
		r->mmaps++;
	if (ev->type == PERF_RECORD_HEADER_ATTR)
		r->attrs++;
	if (ev->type == PERF_RECORD_SAMPLE) {
		if (ev->s.time < r->last_time)
			r->time_order = false;
		r->last_time = ev->s.time;
	}
	return 0;
}

static int s_sample(void *ctx, struct pipeline *p, const struct resolved_sample *rs)
{
	struct rec_sink *r = ctx;
	CHECK(r->samples < NR);
	char *o = r->stacks[r->samples];
	snprintf(o, 64, "%llu %s", (unsigned long long)rs->ev->s.time, rs->comm ? rs->comm : "?");
	for (uint32_t i = 0; i < rs->nr_frames; i++) {
		size_t n = strlen(o);
		snprintf(o + n, 64 - n, " %s", rs->frames[i].sym ? rs->frames[i].sym + 6 : "?");
	}
	r->samples++;
	return r->stop_after && r->samples == r->stop_after ? 1 : 0;
}

static int s_end(void *ctx, struct pipeline *p, int rc)
{
	struct rec_sink *r = ctx;
	r->ends++;
	r->end_rc = rc;
	return 0;
}

static void file_warn(void *ctx, const struct resolver_warning *w)
{
	struct rec_sink *r = ctx;
	if (w->kind == RESOLVER_WARN_NO_ELF) {
		r->no_elf++;
		snprintf(r->missing, sizeof(r->missing), "%s", w->file);
	}
}

static void quiet(void *ctx, const char *msg)
{
}

static int run(struct rec_sink *r, const struct synth_buf *b, bool files)
{
	r->begins = r->ends = r->end_rc = 0;
	r->events = r->samples = r->comms = r->mmaps = r->attrs = 0;
	r->last_time = 0;
	r->time_order = true;
	int fd = synth_memfd(b);
	struct pipeline_config c;
	pipeline_config_init(&c);
	c.input = "synth";
	c.input_fd = fd;
	c.kallsyms = "/dev/null";
	c.warn = quiet;
	if (files) {
		c.file_warn = file_warn;
		c.file_warn_ctx = r;
	}
	struct sink s = { .ctx = r, .begin = s_begin, .event = s_event, .sample = s_sample, .end = s_end };
	struct err e = { 0 };
	int rc = pipeline_run(&c, &s, &e);
	close(fd);
	return rc;
}

TEST(pipeline_delivers_resolved_samples_in_order)
{
	struct synth_map m;
	synth_self_map(&m);
	struct synth_buf b = { 0 };
	synth_stream(&b, &m, NULL, NR);
	static struct rec_sink one;
	CHECK_EQ(run(&one, &b, false), 0);
	CHECK_EQ(one.begins, 1);
	CHECK_EQ(one.ends, 1);
	CHECK_EQ(one.end_rc, 0);
	CHECK_EQ(one.comms, 1);
	CHECK_EQ(one.mmaps, 1);
	CHECK_EQ(one.samples, NR);
	CHECK_EQ(one.attrs, 1);
	CHECK_EQ(one.events, NR + 3);
	CHECK(one.time_order);
	CHECK_STR(one.stacks[0], "1000 synth mid top");
	CHECK_STR(one.stacks[1], "1001 synth leaf mid top");
	free(b.p);
}

TEST(pipeline_sink_stop_and_errors)
{
	struct synth_map m;
	synth_self_map(&m);
	struct synth_buf b = { 0 };
	synth_stream(&b, &m, NULL, NR);
	static struct rec_sink r;
	r.stop_after = 10;
	CHECK_EQ(run(&r, &b, false), 0);
	CHECK_EQ(r.samples, 10);
	CHECK_EQ(r.ends, 1);
	r.stop_after = 0;
	/* a stream cut in the middle of a record: an error, end still called */
	struct synth_buf cut = b;
	cut.n -= 5;
	CHECK(run(&r, &cut, false) < 0);
	CHECK_EQ(r.ends, 1);
	CHECK(r.end_rc < 0);
	/* not a perf.data at all: end called once with the error */
	struct synth_buf junk = { (uint8_t *)"not a perf.data file, not at all", 32, 32 };
	CHECK(run(&r, &junk, false) < 0);
	CHECK_EQ(r.begins, 0);
	CHECK_EQ(r.ends, 1);
	free(b.p);
}

TEST(pipeline_missing_files_reach_file_warn)
{
	struct synth_map m;
	synth_self_map(&m);
	const char *gone = "/nonexistent-scorch-unit/synth";
	struct synth_buf b = { 0 };
	synth_stream(&b, &m, gone, 50);
	static struct rec_sink r;
	r.no_elf = 0;
	CHECK_EQ(run(&r, &b, true), 0);
	CHECK_EQ(r.samples, 50);
	CHECK_EQ(r.no_elf, 1);
	CHECK_STR(r.missing, gone);
	CHECK_STR(r.stacks[0], "1000 synth ? ?");
	r.no_elf = 0;
	CHECK_EQ(run(&r, &b, false), 0);
	CHECK_EQ(r.no_elf, 0);
	free(b.p);
}

