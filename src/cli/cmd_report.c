/*
 * cmd_report.c: `scorch report`: top functions by total and self time and
 * the call trees under the top entries (output/report.h).
 */
#include "cli/analysis_opts.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "output/report.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: scorch report [-i FILE] [options]\n"
		   "  --no-children          sort by self time, no total column\n"
		   "  -s, --sort KEYS        comm,dso,sym (default all three)\n"
		   "  --percent-limit P      hide entries below P%%\n"
		   "  --top N                at most N entries (default 40, 0 = all)\n"
		   "  --tree N               call trees of the top N entries (default 5)\n"
		   "  --tree-limit P         cut call tree branches below P%% (default 1)\n"
		   "  -n, --show-nr-samples  a Samples column\n"
		   "  -w, --width N          columns (default 80)\n"
		   "  --inline               inlined functions as entries of their own\n"
		   "  -o FILE                write to FILE\n"
		   "  --stdio                accepted for perf compatibility\n"
		   "%s%s", opts_analysis_help, cli_filter_usage);
}

struct report_cmd {
	struct report_config rc;
	FILE *out;
};

static int finish(void *ctx, struct profile_sink *s)
{
	struct report_cmd *r = ctx;
	return report_write(s, &r->rc, r->out);
}

int cmd_report(int argc, char **argv)
{
	struct pipeline_config pc;
	struct profile_sink_config sc;
	struct report_cmd r;
	bool no_progress = false, inl = false;
	const char *outpath = NULL, *v;
	pipeline_config_init(&pc);
	profile_sink_config_init(&sc);
	report_config_init(&r.rc);
	for (int i = 1; i < argc;) {
		const char *a = argv[i];
		int k;
		double d;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return EXIT_OK;
		}
		if (!strcmp(a, "--no-children")) {
			r.rc.children = false;
			i++;
			continue;
		}
		if (!strcmp(a, "--children")) {
			r.rc.children = true;
			i++;
			continue;
		}
		if (!strcmp(a, "--stdio")) {
			i++;
			continue;
		}
		if (!strcmp(a, "--inline")) {
			inl = true;
			i++;
			continue;
		}
		if (!strcmp(a, "-n") || !strcmp(a, "--show-nr-samples")) {
			r.rc.show_samples = true;
			i++;
			continue;
		}
		if ((k = cli_summary_opt(argc, argv, &i, &pc, &sc.filter, &no_progress, &outpath)) != 0) {
			if (k < 0)
				return EXIT_BADINPUT;
			continue;
		}
		if ((k = cli_opt_value(argc, argv, &i, "-s", "--sort", &v)) != 0) {
			if (k < 0)
				return EXIT_BADINPUT;
			r.rc.sort = v;
			continue;
		}
#define DNUM(s, l, set)                                             \
	if ((k = cli_opt_value(argc, argv, &i, s, l, &v)) != 0) {   \
		if (k < 0 || cli_num(a, v, false, &d))                       \
			return EXIT_BADINPUT;                       \
		set;                                                \
		continue;                                           \
	}
		DNUM(NULL, "--percent-limit", r.rc.percent_limit = d);
		DNUM(NULL, "--top", r.rc.top = (int)d);
		DNUM(NULL, "--tree", r.rc.tree = (int)d);
		DNUM(NULL, "--tree-limit", r.rc.tree_limit = d);
		DNUM("-w", "--width", r.rc.width = d < 40 ? 40 : (int)d);
#undef DNUM
		fprintf(stderr, "scorch: report: unknown option '%s'\n", a);
		usage(stderr);
		return EXIT_BADINPUT;
	}
	char msg[160];
	if (report_check_config(&r.rc, msg, sizeof(msg))) {
		fprintf(stderr, "scorch: report: %s\n", msg);
		return EXIT_BADINPUT;
	}
	report_sink_config(&sc);
	sc.inline_frames = inl;
	r.rc.input = pc.input;
	sc.finish = finish;
	sc.finish_ctx = &r;
	return cli_run_profile("report", &pc, &sc, outpath, &r.out, no_progress);
}
