/*
 * cmd_diff.c: `scorch diff BASE NEW`: what changed between two recordings,
 * as a table (text or CSV) with a regression gate (--fail-above), built
 * from two runs of the shared pipeline and profile sink (output/diff.h).
 * Also the loader `scorch flame --diff` and `scorch export --diff` use.
 */
#include "cli/analysis_opts.h"
#include "cli/cli.h"
#include "cli/env.h"
#include "cli/cmd_diff.h"
#include "output/diff.h"
#include "output/report.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f, void *ctx)
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

static int load(struct cli_analysis *a, struct diff *d)
{
	const char **paths = a->diff;
	if (!strcmp(paths[0], "-") && !strcmp(paths[1], "-")) {
		fprintf(stderr, "scorch: diff: only one of BASE and NEW can be stdin\n");
		return EXIT_BADINPUT;
	}
	for (int side = 0; side < 2; side++) {
		struct take_ctx t = { .d = d, .side = side, .input = paths[side] };
		struct profile_sink ps;
		struct sink sink;
		a->sc.finish = take;
		a->sc.finish_ctx = &t;
		if (profile_sink_init(&ps, &a->sc, &sink)) {
			fprintf(stderr, "scorch: diff: %s\n", ps.errbuf);
			profile_sink_release(&ps);
			return EXIT_BADINPUT;
		}
		a->pc.input = paths[side];
		a->pc.exit_after = side == 1 && !cli_env()->teardown; /* the first one's memory is given back */
		int rc = cli_run_pipeline(&a->pc, &sink, a->no_progress);
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
			d->side[0].event, paths[0], d->side[1].event, paths[1]);
	return EXIT_OK;
}

int cli_diff_run(struct cli_analysis *a, int (*write)(void *ctx, struct diff *d, FILE *out),
		 void *ctx)
{
	struct diff d;
	diff_init(&d);
	int rc = load(a, &d);
	FILE *out = rc ? NULL : cli_open_out(a->outpath);
	if (!rc && !out)
		rc = EXIT_FAIL;
	if (out) {
		int wr = write(ctx, &d, out);
		rc = cli_close_out(out, a->outpath);
		if (wr && !rc) {
			fprintf(stderr, "scorch: %s: write error\n", a->cmd);
			rc = EXIT_FAIL;
		}
	}
	diff_release(&d);
	return rc;
}

struct diff_cmd {
	struct cli_analysis a;
	struct diff_config dc;
	int nfiles;
	size_t nfailed; /* rows over --fail-above */
};

static int write_table(void *ctx, struct diff *d, FILE *out)
{
	struct diff_cmd *c = ctx;
	return diff_write(d, &c->dc, out, stderr, &c->nfailed);
}

static int set(void *ctx, struct opts *p, int id, const char *v)
{
	struct diff_cmd *c = ctx;
	struct diff_config *dc = &c->dc;
	double x;
	int k;
	switch (id) {
	case O_OPERAND:
		if (c->nfiles == 2) {
			fprintf(stderr, "scorch: diff: more than two files ('%s')\n", v);
			return EXIT_BADINPUT;
		}
		c->a.diff[c->nfiles++] = v;
		return 0;
	case O_CHILDREN: dc->children = true; return 0;
	case O_NO_CHILDREN: dc->children = false; return 0;
	case O_ABSOLUTE: dc->absolute = true; return 0;
	case O_STDIO: return 0;
	case O_SORT: dc->sort = v; return 0;
	case O_FORMAT:
		k = opts_pick(v, (const char *const[]){ "text", "csv", NULL },
			      "scorch: diff: unknown format '%s' (text, csv)\n");
		dc->csv = k == 1;
		return k < 0 ? EXIT_BADINPUT : 0;
	case O_PERCENT_LIMIT: case O_TOP: case O_FAIL_ABOVE: case O_WIDTH:
		if (cli_num(p->name, v, id == O_FAIL_ABOVE, &x))
			return EXIT_BADINPUT;
		if (id == O_PERCENT_LIMIT)
			dc->percent_limit = x;
		else if (id == O_TOP)
			dc->top = (int)x;
		else if (id == O_FAIL_ABOVE)
			dc->fail_above = x, dc->fail_set = true;
		else
			dc->width = x < 60 ? 60 : x > 1000 ? 1000 : (int)x;
		return 0;
	}
	return cli_analysis_set(&c->a, p, id, v);
}

int cmd_diff(int argc, char **argv)
{
	struct diff_cmd c = { .nfiles = 0 };
	struct diff_config *dc = &c.dc;
	cli_analysis_init(&c.a, "diff");
	diff_config_init(dc);
	struct opts p = { .cmd = OC_DIFF, .prefix = "scorch: diff", .usage = usage, .set = set, .ctx = &c };
	if (!opts_parse(&p, argc, argv))
		return p.status;
	if (c.nfiles != 2) {
		fprintf(stderr, "scorch: diff: give two files: scorch diff BASE NEW\n");
		usage(stderr, NULL);
		return EXIT_BADINPUT;
	}
	char msg[160];
	if (diff_check_config(dc, msg, sizeof(msg))) {
		fprintf(stderr, "scorch: diff: %s\n", msg);
		return EXIT_BADINPUT;
	}
	/* report's collection: inlined frames folded into their callers, but
	 * unknown symbols per DSO (addresses never match across builds) */
	report_sink_config(&c.a.sc);
	c.a.sc.unknown_by_addr = false;
	int rc = cli_diff_run(&c.a, write_table, &c);
	return !rc && c.nfailed ? EXIT_FAIL : rc;
}
