/*
 * cmd_report.c: `scorch report`: top functions by total and self time and
 * the call trees under the top entries (output/report.h). The width: -w;
 * else the terminal's when the report goes to one; else none (a file, a
 * pipe: every name whole, as perf report --stdio writes them).
 */
#include "cli/analysis_opts.h"
#include "cli/cli.h"
#include "output/report.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static void usage(FILE *f, void *ctx)
{
	fprintf(f, "usage: scorch report [-i FILE] [options]\n"
		   "  --no-children          sort by self time, no total column\n"
		   "  -s, --sort KEYS        comm,dso,sym (default all three), srcline\n"
		   "  --percent-limit P      hide entries below P%%\n"
		   "  --top N                at most N entries (default 40, 0 = all)\n"
		   "  --tree N               call trees of the top N entries (default 5)\n"
		   "  --tree-limit P         cut call tree branches below P%% (default 1)\n"
		   "  -g, --call-graph [TYPE,LIMIT,ORDER,KEY,VALUE]\n"
		   "                         the trees as perf report -g: ORDER caller (what\n"
		   "                         each calls) or callee (where it is called from);\n"
		   "                         KEY function, address (each address, with its\n"
		   "                         source line) or srcline (each source line);\n"
		   "                         VALUE percent, period or count; none: no trees\n"
		   "  -n, --show-nr-samples  a Samples column\n"
		   "  -w, --width N          columns (default: the terminal's; not a\n"
		   "                         terminal: no limit, names whole; 0: no limit)\n"
		   "  --inline               inlined functions as entries of their own\n"
		   "  -o FILE                write to FILE\n"
		   "  --stdio                accepted for perf compatibility\n"
		   "%s%s", opts_analysis_help, cli_filter_usage);
}

struct report_cmd {
	struct cli_analysis a;
	struct report_config rc;
	bool inl; /* --inline */
	bool width_set; /* -w */
	FILE *out;
};

/* The width of the report written to path (-o; NULL or "-": stdout): the
 * terminal's columns (80 when it does not say), 0 when not a terminal. */
static int out_width(const char *path)
{
	if ((path && strcmp(path, "-")) || !isatty(STDOUT_FILENO))
		return 0;
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col)
		return ws.ws_col < 40 ? 40 : ws.ws_col;
	return 80;
}

static int finish(void *ctx, struct profile_sink *s)
{
	struct report_cmd *r = ctx;
	return report_write(s, &r->rc, r->out);
}

static int set(void *ctx, struct opts *p, int id, const char *v)
{
	struct report_cmd *r = ctx;
	double d;
	switch (id) {
	case O_NO_CHILDREN: r->rc.children = false; return 0;
	case O_CHILDREN: r->rc.children = true; return 0;
	case O_STDIO: return 0;
	case O_INLINE: r->inl = true; return 0;
	case O_SHOW_NR: r->rc.show_samples = true; return 0;
	case O_SORT: r->rc.sort = v; return 0;
	case O_CALL_GRAPH: {
		char msg[200];
		if (report_parse_call_graph(&r->rc, v, msg, sizeof(msg))) {
			fprintf(stderr, "scorch: report: %s\n", msg);
			return EXIT_BADINPUT;
		}
		return 0;
	}
	case O_PERCENT_LIMIT: case O_TOP: case O_TREE: case O_TREE_LIMIT: case O_WIDTH:
		if (cli_num(p->name, v, false, &d))
			return EXIT_BADINPUT;
		if (id == O_PERCENT_LIMIT)
			r->rc.percent_limit = d;
		else if (id == O_TOP)
			r->rc.top = (int)d;
		else if (id == O_TREE)
			r->rc.tree = (int)d;
		else if (id == O_TREE_LIMIT)
			r->rc.tree_limit = d;
		else
			r->rc.width = d == 0 ? 0 : d < 40 ? 40 : d > 100000 ? 100000 : (int)d;
		r->width_set |= id == O_WIDTH;
		return 0;
	}
	return cli_analysis_set(&r->a, p, id, v);
}

int cmd_report(int argc, char **argv)
{
	struct report_cmd r;
	cli_analysis_init(&r.a, "report");
	report_config_init(&r.rc);
	r.inl = false;
	r.width_set = false;
	struct opts p = { .cmd = OC_REPORT, .prefix = "scorch: report", .usage = usage, .set = set, .ctx = &r };
	if (!opts_parse(&p, argc, argv))
		return p.status;
	char msg[160];
	if (report_check_config(&r.rc, msg, sizeof(msg))) {
		fprintf(stderr, "scorch: report: %s\n", msg);
		return EXIT_BADINPUT;
	}
	if (!r.width_set)
		r.rc.width = out_width(r.a.outpath);
	report_sink_config_for(&r.rc, &r.a.sc);
	r.a.pc.frame_lines = report_wants_lines(&r.rc) ? PIPELINE_LINES_INNERMOST : 0;
	r.a.sc.inline_frames = r.inl;
	r.rc.input = r.a.pc.input;
	r.a.sc.finish = finish;
	r.a.sc.finish_ctx = &r;
	return cli_run_profile("report", &r.a.pc, &r.a.sc, r.a.outpath, &r.out, r.a.no_progress);
}
