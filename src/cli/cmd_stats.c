/* cmd_stats.c: `scorch stats` and `scorch header`. */
#include "cli/cli.h"
#include "cli/analysis_opts.h"
#include "analyze/resolver.h"
#include "output/stats.h"
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* --unwind: also resolve every sample (unwind + symbolize, no printing) and
 * print the resolver's counters: the cheapest full resolve, for benchmarks. */
struct unwind_wrap {
	struct sink inner;
	FILE *out;
	uint64_t frames;
};

static int uw_begin(void *ctx, struct pipeline *p)
{
	struct unwind_wrap *w = ctx;
	return w->inner.begin ? w->inner.begin(w->inner.ctx, p) : 0;
}

static int uw_event(void *ctx, struct pipeline *p, const struct perf_event *ev)
{
	struct unwind_wrap *w = ctx;
	return w->inner.event ? w->inner.event(w->inner.ctx, p, ev) : 0;
}

static int uw_sample(void *ctx, struct pipeline *p, const struct resolved_sample *rs)
{
	struct unwind_wrap *w = ctx;
	w->frames += rs->nr_frames;
	return w->inner.sample ? w->inner.sample(w->inner.ctx, p, rs) : 0;
}

static int uw_end(void *ctx, struct pipeline *p, int rc)
{
	struct unwind_wrap *w = ctx;
	int r = w->inner.end ? w->inner.end(w->inner.ctx, p, rc) : 0;
	const struct resolver_stats *st = pipeline_resolver_stats(p);
	if (rc || !st)
		return r;
	fprintf(w->out,
		"resolved samples: %" PRIu64 "\n"
		"frames: %" PRIu64 "\n"
		"frames unknown: %" PRIu64 "\n"
		"frames inlined: %" PRIu64 "\n"
		"fp samples: %" PRIu64 "\n"
		"dwarf samples: %" PRIu64 "\n"
		"lbr samples: %" PRIu64 "\n"
		"dwarf unwinds: %" PRIu64 "\n"
		"dwarf complete stacks: %" PRIu64 "\n"
		"cfi rows looked up: %" PRIu64 "\n"
		"frame-pointer fallbacks: %" PRIu64 "\n"
		"stacks cut at max frames: %" PRIu64 "\n"
		"dwarf stacks cut at the copy's end: %" PRIu64 "\n"
		"dwarf stacks stitched: %" PRIu64 "\n",
		st->samples, st->frames, st->frames_unknown, st->frames_inlined, st->fp_samples,
		st->dwarf_samples, st->lbr_samples, st->dwarf_unwinds, st->dwarf_complete, st->cfi_rows,
		st->fp_fallbacks, st->truncated, st->copy_end, st->stitched);
	return r;
}

struct stats_cmd {
	struct cli_analysis a;
	bool unwind;
};

static void usage(FILE *f, void *ctx)
{
	struct stats_cmd *s = ctx;
	bool stats = !strcmp(s->a.cmd, "stats");
	fprintf(f, "usage: scorch %s [-i FILE] [options]%s\n%s", s->a.cmd,
		stats ? " [--unwind [--no-stitch]]" : "", opts_analysis_help);
}

static int set(void *ctx, struct opts *p, int id, const char *v)
{
	struct stats_cmd *s = ctx;
	if (id != O_UNWIND)
		return cli_analysis_set(&s->a, p, id, v);
	s->unwind = true;
	s->a.pc.resolve = true;
	return 0;
}

static int run(const char *name, unsigned cmd, int argc, char **argv,
	       int (*init)(struct sink *, FILE *))
{
	struct stats_cmd s;
	char prefix[16];
	cli_analysis_init(&s.a, name);
	s.a.pc.resolve = false;
	s.unwind = false;
	snprintf(prefix, sizeof(prefix), "scorch %s", name);
	struct opts p = { .cmd = cmd, .prefix = prefix, .usage = usage, .terse = 1, .set = set, .ctx = &s };
	if (!opts_parse(&p, argc, argv))
		return p.status;
	struct sink sink;
	init(&sink, stdout);
	struct unwind_wrap w = { .inner = sink, .out = stdout };
	if (s.unwind)
		sink = (struct sink){ .ctx = &w, .begin = uw_begin, .event = uw_event,
				      .sample = uw_sample, .end = uw_end };
	return cli_run_plain(&s.a.pc, &sink);
}

int cmd_stats(int argc, char **argv)
{
	return run("stats", OC_STATS, argc, argv, stats_sink_init);
}

int cmd_header(int argc, char **argv)
{
	return run("header", OC_HEADER, argc, argv, header_sink_init);
}
