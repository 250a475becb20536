/*
 * cmd_diff.c: `scorch diff BASE NEW`: what changed between two recordings,
 * as a table (text or CSV) with a regression gate (--fail-above), built
 * from two runs of the shared pipeline and profile sink (output/diff.h).
 * Also the loader `scorch flame --diff` and `scorch export --diff` use.
 */
#include "cli/analysis_opts.h"
#include "cli/cli.h"
#include "cli/cmd_diff.h"
#include "cli/opts.h"
#include "output/diff.h"
#include "output/report.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: scorch diff BASE NEW [options]\n"
		   "  BASE, NEW              two perf.data files (perf's or scorch's), the\n"
		   "                         baseline and the new run; functions match by\n"
		   "                         name (clone suffixes folded) and DSO basename\n"
		   "  -f, --format FMT       text (default) or csv: symbol,dso,base_pct,new_pct,\n"
		   "                         delta_pct,base_ns,new_ns\n"
		   "  --absolute             compare times (percent of the baseline's total)\n"
		   "                         instead of each side's shares\n"
		   "  --fail-above P         exit 1 when some entry's self share grew by more\n"
		   "                         than P points (the rows go to stderr)\n"
		   "  --children             compare total (children) time instead of self\n"
		   "  --no-children          compare self time (default)\n"
		   "  -s, --sort KEYS        comm,dso,sym (default dso,sym)\n"
		   "  --percent-limit P      hide entries under P%% on both sides\n"
		   "  --top N                at most N entries (default 40, csv all; 0 = all)\n"
		   "  -w, --width N          columns (default 100)\n"
		   "  -o FILE                write to FILE\n"
		   "  --stdio                accepted for perf compatibility\n"
		   "%s%s", opts_analysis_help, cli_filter_usage);
}

struct take_ctx {
	struct diff *d;
	int side;
	const char *input;
};

static int take(void *ctx, struct profile_sink *s)
{
	struct take_ctx *t = ctx;
	return diff_take(t->d, t->side, s, t->input);
}

int cli_diff_load(struct pipeline_config *pc, struct profile_sink_config *sc, const char *base,
		  const char *new, struct diff *d, bool no_progress)
{
	const char *paths[2] = { base, new };
	if (!strcmp(base, "-") && !strcmp(new, "-")) {
		fprintf(stderr, "scorch: diff: only one of BASE and NEW can be stdin\n");
		return EXIT_BADINPUT;
	}
	for (int side = 0; side < 2; side++) {
		struct take_ctx t = { .d = d, .side = side, .input = paths[side] };
		struct profile_sink ps;
		struct sink sink;
		sc->finish = take;
		sc->finish_ctx = &t;
		if (profile_sink_init(&ps, sc, &sink)) {
			fprintf(stderr, "scorch: diff: %s\n", ps.errbuf);
			profile_sink_release(&ps);
			return EXIT_BADINPUT;
		}
		pc->input = paths[side];
		int rc = cli_run_pipeline(pc, &sink, no_progress);
		if (!rc && !ps.prof.samples)
			fprintf(stderr, "scorch: %s: warning: no samples%s\n", paths[side],
				ps.samples_filtered ? " (all filtered out)" :
				ps.samples_other_event ? " of this event" : "");
		profile_sink_release(&ps);
		if (rc)
			return rc;
	}
	if (strcmp(d->side[0].event, d->side[1].event))
		fprintf(stderr, "scorch: diff: warning: the events differ ('%s' in %s, '%s' in %s)\n",
			d->side[0].event, base, d->side[1].event, new);
	return EXIT_OK;
}

static int num(const char *opt, const char *v, double *out, bool neg_ok)
{
	char *end;
	double x = strtod(v, &end);
	if (end == v || *end || (!neg_ok && x < 0)) {
		fprintf(stderr, "scorch: bad value '%s' for %s\n", v, opt);
		return -1;
	}
	*out = x;
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	struct pipeline_config pc;
	struct profile_sink_config sc;
	struct diff_config dc;
	bool no_progress = false;
	const char *outpath = NULL, *v, *files[2] = { NULL, NULL };
	int nfiles = 0;
	pipeline_config_init(&pc);
	profile_sink_config_init(&sc);
	diff_config_init(&dc);
	for (int i = 1; i < argc;) {
		const char *a = argv[i];
		int k;
		double x;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return EXIT_OK;
		}
		if (a[0] != '-' || !strcmp(a, "-")) {
			if (nfiles == 2) {
				fprintf(stderr, "scorch: diff: more than two files ('%s')\n", a);
				return EXIT_BADINPUT;
			}
			files[nfiles++] = a;
			i++;
			continue;
		}
		if (!strcmp(a, "--children") || !strcmp(a, "--no-children")) {
			dc.children = a[2] == 'c';
			i++;
			continue;
		}
		if (!strcmp(a, "--absolute")) {
			dc.absolute = true;
			i++;
			continue;
		}
		if (!strcmp(a, "--stdio")) {
			i++;
			continue;
		}
		if ((k = cli_analysis_opt(argc, argv, &i, &pc, &sc.filter, &no_progress)) != 0) {
			if (k < 0)
				return EXIT_BADINPUT;
			continue;
		}
		if ((k = cli_opt_value(argc, argv, &i, "-s", "--sort", &v)) != 0) {
			if (k < 0)
				return EXIT_BADINPUT;
			dc.sort = v;
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
			if (!strcmp(v, "csv"))
				dc.csv = true;
			else if (!strcmp(v, "text"))
				dc.csv = false;
			else {
				fprintf(stderr, "scorch: diff: unknown format '%s' (text, csv)\n", v);
				return EXIT_BADINPUT;
			}
			continue;
		}
#define DNUM(s, l, neg, set)                                        \
	if ((k = cli_opt_value(argc, argv, &i, s, l, &v)) != 0) {   \
		if (k < 0 || num(a, v, &x, neg))                    \
			return EXIT_BADINPUT;                       \
		set;                                                \
		continue;                                           \
	}
		DNUM(NULL, "--percent-limit", false, dc.percent_limit = x);
		DNUM(NULL, "--top", false, dc.top = (int)x);
		DNUM(NULL, "--fail-above", true, (dc.fail_above = x, dc.fail_set = true));
		DNUM("-w", "--width", false, dc.width = x < 60 ? 60 : x > 1000 ? 1000 : (int)x);
#undef DNUM
		fprintf(stderr, "scorch: diff: unknown option '%s'\n", a);
		usage(stderr);
		return EXIT_BADINPUT;
	}
	if (nfiles != 2) {
		fprintf(stderr, "scorch: diff: give two files: scorch diff BASE NEW\n");
		usage(stderr);
		return EXIT_BADINPUT;
	}
	char msg[160];
	if (diff_check_config(&dc, msg, sizeof(msg))) {
		fprintf(stderr, "scorch: diff: %s\n", msg);
		return EXIT_BADINPUT;
	}
	/* report's collection: inlined frames folded into their callers, but
	 * unknown symbols per DSO (addresses never match across builds) */
	report_sink_config(&sc);
	sc.unknown_by_addr = false;
	struct diff d;
	diff_init(&d);
	int rc = cli_diff_load(&pc, &sc, files[0], files[1], &d, no_progress);
	if (rc) {
		diff_release(&d);
		return rc;
	}
	FILE *out = cli_open_out(outpath);
	if (!out) {
		diff_release(&d);
		return EXIT_FAIL;
	}
	size_t nfailed = 0;
	int wr = diff_write(&d, &dc, out, stderr, &nfailed);
	rc = cli_close_out(out, outpath);
	diff_release(&d);
	if (wr && !rc) {
		fprintf(stderr, "scorch: diff: write error\n");
		rc = EXIT_FAIL;
	}
	if (!rc && nfailed)
		rc = EXIT_FAIL;
	return rc;
}
