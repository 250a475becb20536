/*
 * cmd_export.c: `scorch export -f folded|pprof|speedscope`: the profile in
 * the formats other tools read (output/folded.h, pprof.h, speedscope.h).
 * `-f folded --diff BASE NEW`: FlameGraph's difffolded (output/diff.h).
 */
#include "cli/analysis_opts.h"
#include "cli/cli.h"
#include "cli/cmd_diff.h"
#include "cli/opts.h"
#include "output/folded.h"
#include "output/pprof.h"
#include "output/speedscope.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
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

static int export_diff(struct pipeline_config *pc, struct profile_sink_config *sc,
		       const struct export_cmd *x, const char *files[2], const char *outpath,
		       bool no_comm, bool no_inline, bool no_progress)
{
	sc->root = no_comm ? PROFILE_ROOT_NONE : PROFILE_ROOT_COMM;
	sc->inline_frames = !no_inline;
	sc->unknown_by_addr = false;
	struct diff d;
	diff_init(&d);
	int rc = cli_diff_load(pc, sc, files[0], files[1], &d, no_progress);
	if (!rc) {
		FILE *out = cli_open_out(outpath);
		if (!out) {
			rc = EXIT_FAIL;
		} else {
			int wr = diff_write_folded(&d, x->fc.period, x->fc.annotate, out);
			rc = cli_close_out(out, outpath);
			if (wr && !rc)
				rc = EXIT_FAIL;
		}
	}
	diff_release(&d);
	return rc;
}

int cmd_export(int argc, char **argv)
{
	struct pipeline_config pc;
	struct profile_sink_config sc;
	struct export_cmd x;
	bool no_progress = false, no_comm = false, no_inline = false;
	const char *outpath = NULL, *v, *diff_files[2] = { NULL, NULL };
	memset(&x, 0, sizeof(x));
	pipeline_config_init(&pc);
	profile_sink_config_init(&sc);
	for (int i = 1; i < argc;) {
		const char *a = argv[i];
		int k;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return EXIT_OK;
		}
		if (!strcmp(a, "--annotate")) {
			x.fc.annotate = true, i++;
			continue;
		}
		if (!strcmp(a, "--diff")) {
			if (i + 2 >= argc) {
				fprintf(stderr, "scorch: export: --diff needs two files: --diff BASE NEW\n");
				return EXIT_BADINPUT;
			}
			diff_files[0] = argv[i + 1], diff_files[1] = argv[i + 2], i += 3;
			continue;
		}
		if (!strcmp(a, "--period")) {
			x.fc.period = true, i++;
			continue;
		}
		if (!strcmp(a, "--no-comm")) {
			no_comm = true, i++;
			continue;
		}
		if (!strcmp(a, "--no-inline")) {
			no_inline = true, i++;
			continue;
		}
		if ((k = cli_analysis_opt(argc, argv, &i, &pc, &sc.filter, &no_progress)) != 0) {
			if (k < 0)
				return EXIT_BADINPUT;
			continue;
		}
		if ((k = cli_opt_value(argc, argv, &i, "-o", "--output", &v)) != 0) {
			if (k < 0)
				return EXIT_BADINPUT;
			outpath = v;
			continue;
		}
		if ((k = cli_opt_value(argc, argv, &i, "-f", "--format", &v)) != 0) {
			if (k < 0)
				return EXIT_BADINPUT;
			if (!strcmp(v, "folded") || !strcmp(v, "collapsed"))
				x.fmt = FMT_FOLDED;
			else if (!strcmp(v, "pprof"))
				x.fmt = FMT_PPROF;
			else if (!strcmp(v, "speedscope"))
				x.fmt = FMT_SPEEDSCOPE;
			else {
				fprintf(stderr, "scorch: export: unknown format '%s' (folded, pprof, speedscope)\n", v);
				return EXIT_BADINPUT;
			}
			continue;
		}
		fprintf(stderr, "scorch: export: unknown option '%s'\n", a);
		usage(stderr);
		return EXIT_BADINPUT;
	}
	if (x.fmt == FMT_NONE) {
		fprintf(stderr, "scorch: export: which format? -f folded|pprof|speedscope\n");
		usage(stderr);
		return EXIT_BADINPUT;
	}
	if (x.fmt == FMT_PPROF && (!outpath || !strcmp(outpath, "-")) && isatty(1)) {
		fprintf(stderr, "scorch: export: pprof is binary; give -o FILE (e.g. profile.pb.gz)\n");
		return EXIT_BADINPUT;
	}
	/* --off-cpu, --wall: time in integer microseconds */
	x.fc.usecs = sc.filter.time_mode != OFFCPU_MODE_NONE;
	if (diff_files[0] && x.fmt != FMT_FOLDED) {
		fprintf(stderr, "scorch: export: --diff writes folded only (pprof: export both files and "
				"run go tool pprof -diff_base=BASE.pb.gz NEW.pb.gz)\n");
		return EXIT_BADINPUT;
	}
	if (diff_files[0])
		return export_diff(&pc, &sc, &x, diff_files, outpath, no_comm, no_inline, no_progress);
	pprof_init(&x.pp);
	speedscope_init(&x.sp);
	x.pp.input = pc.input;
	x.sp.name = pc.input;
	if (x.fmt == FMT_PPROF) {
		pprof_sink_config(&x.pp, &sc);
	} else if (x.fmt == FMT_SPEEDSCOPE) {
		speedscope_sink_config(&x.sp, &sc);
	} else {
		sc.root = no_comm ? PROFILE_ROOT_NONE : PROFILE_ROOT_COMM;
		sc.inline_frames = !no_inline;
		sc.unknown_by_addr = false;
	}
	sc.finish = finish;
	sc.finish_ctx = &x;
	struct profile_sink ps;
	struct sink sink;
	int rc;
	if (profile_sink_init(&ps, &sc, &sink)) {
		fprintf(stderr, "scorch: export: %s\n", ps.errbuf);
		rc = EXIT_BADINPUT;
		goto out;
	}
	x.out = cli_open_out(outpath);
	if (!x.out) {
		rc = EXIT_FAIL;
		goto out;
	}
	rc = cli_run_pipeline(&pc, &sink, no_progress);
	int rc2 = cli_close_out(x.out, outpath);
	if (!rc)
		rc = rc2;
out:
	profile_sink_release(&ps);
	pprof_release(&x.pp);
	speedscope_release(&x.sp);
	return rc;
}
