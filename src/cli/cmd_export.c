/*
 * cmd_export.c: `scorch export -f folded|pprof|speedscope`: the profile in
 * the formats other tools read (output/folded.h, pprof.h, speedscope.h).
 * `-f folded --diff BASE NEW`: FlameGraph's difffolded (output/diff.h).
 */
#include "cli/analysis_opts.h"
#include "cli/cli.h"
#include "cli/cmd_diff.h"
#include "output/folded.h"
#include "output/pprof.h"
#include "output/speedscope.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f, void *ctx)
{
	fprintf(f, "usage: scorch export -f folded|pprof|speedscope [-i FILE] [-o OUT] [options]\n"
		   "  -f, --format FMT       folded (Brendan Gregg's stacks), pprof (gzip'd\n"
		   "                         profile.proto), speedscope (JSON)\n"
		   "  -o, --output OUT       default stdout (pprof: never a terminal)\n"
		   "  folded: --annotate     kernel frames _[k], inlined _[i]\n"
		   "          --period       counts are the period sum, not samples\n"
		   "          (with --off-cpu or --wall: time in integer microseconds)\n"
		   "          --no-comm      no command name as the first frame\n"
		   "          --no-inline    no inlined frames\n"
		   "          --diff BASE NEW  difffolded: \"stack count_base count_new\"\n"
		   "                         (flamegraph.pl draws it as a differential graph)\n"
		   "%s%s", opts_analysis_help, cli_filter_usage);
}

enum fmt { FMT_NONE, FMT_FOLDED, FMT_PPROF, FMT_SPEEDSCOPE };

struct export_cmd {
	struct cli_analysis a;
	enum fmt fmt;
	struct folded_config fc;
	struct pprof pp;
	struct speedscope sp;
	FILE *out;
};

static int finish(void *ctx, struct profile_sink *s)
{
	cli_warn_empty(s);
	struct export_cmd *x = ctx;
	switch (x->fmt) {
	case FMT_FOLDED:
		return folded_write(&s->prof, &x->fc, x->out);
	case FMT_PPROF:
		return pprof_write(&x->pp, s, x->out);
	case FMT_SPEEDSCOPE:
		return speedscope_write(&x->sp, s, x->out);
	default:
		return -1;
	}
}

static int write_diff(void *ctx, struct diff *d, FILE *out)
{
	struct export_cmd *x = ctx;
	return diff_write_folded(d, x->fc.period, x->fc.annotate, out);
}

static int set(void *ctx, struct opts *p, int id, const char *v)
{
	struct export_cmd *x = ctx;
	static const char *const names[] = { "folded", "pprof", "speedscope", "collapsed", NULL };
	static const enum fmt fmts[] = { FMT_FOLDED, FMT_PPROF, FMT_SPEEDSCOPE, FMT_FOLDED };
	int k;
	switch (id) {
	case O_ANNOTATE: x->fc.annotate = true; return 0;
	case O_PERIOD: x->fc.period = true; return 0;
	case O_FORMAT:
		k = opts_pick(v, names, "scorch: export: unknown format '%s' (folded, pprof, speedscope)\n");
		if (k < 0)
			return EXIT_BADINPUT;
		x->fmt = fmts[k];
		return 0;
	}
	return cli_analysis_set(&x->a, p, id, v);
}

int cmd_export(int argc, char **argv)
{
	struct export_cmd x;
	memset(&x, 0, sizeof(x));
	cli_analysis_init(&x.a, "export");
	struct opts p = { .cmd = OC_EXPORT, .prefix = "scorch: export", .usage = usage, .set = set, .ctx = &x };
	if (!opts_parse(&p, argc, argv))
		return p.status;
	const char *outpath = x.a.outpath;
	struct profile_sink_config *sc = &x.a.sc;
	if (x.fmt == FMT_NONE) {
		fprintf(stderr, "scorch: export: which format? -f folded|pprof|speedscope\n");
		usage(stderr, NULL);
		return EXIT_BADINPUT;
	}
	if (x.fmt == FMT_PPROF && (!outpath || !strcmp(outpath, "-")) && isatty(1)) {
		fprintf(stderr, "scorch: export: pprof is binary; give -o FILE (e.g. profile.pb.gz)\n");
		return EXIT_BADINPUT;
	}
	/* --off-cpu, --wall: time in integer microseconds */
	x.fc.usecs = sc->filter.time_mode != OFFCPU_MODE_NONE;
	if (x.a.diff[0] && x.fmt != FMT_FOLDED) {
		fprintf(stderr, "scorch: export: --diff writes folded only (pprof: export both files and "
				"run go tool pprof -diff_base=BASE.pb.gz NEW.pb.gz)\n");
		return EXIT_BADINPUT;
	}
	/* folded: --no-comm and --no-inline as given (cli_analysis_set) */
	sc->unknown_by_addr = false;
	if (x.a.diff[0])
		return cli_diff_run(&x.a, write_diff, &x);
	pprof_init(&x.pp);
	speedscope_init(&x.sp);
	x.pp.input = x.a.pc.input;
	x.sp.name = x.a.pc.input;
	if (x.fmt == FMT_PPROF) {
		pprof_sink_config(&x.pp, sc);
		/* every location with its line (go tool pprof -list), also
		 * the frames of frame-pointer call chains */
		x.a.pc.frame_lines = PIPELINE_LINES_OWN;
	}
	else if (x.fmt == FMT_SPEEDSCOPE)
		speedscope_sink_config(&x.sp, sc);
	sc->finish = finish;
	sc->finish_ctx = &x;
	int rc = cli_run_profile("export", &x.a.pc, sc, outpath, &x.out, x.a.no_progress);
	pprof_release(&x.pp);
	speedscope_release(&x.sp);
	return rc;
}
