/*
 * cmd_annotate.c: `scorch annotate`: the hot symbols' instructions with
 * their share of the samples and the source lines between them
 * (output/annotate.h), with perf annotate's options.
 */
#include "cli/analysis_opts.h"
#include "cli/cli.h"
#include "output/annotate.h"
#include "util/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f, void *ctx)
{
	fprintf(f, "usage: scorch annotate [-i FILE] [options] [SYMBOL...]\n"
		   "  -s, --symbol SYMBOL    annotate this symbol (as the operands)\n"
		   "  -d, --dsos DSO         only symbols of this DSO (path or file name)\n"
		   "  -M, --disassembler-style intel|att   instruction syntax (default att)\n"
		   "  --asm-raw              the instruction bytes too\n"
		   "  --no-source            no source lines between the instructions\n"
		   "  -l, --print-line       every source line with samples in the summary\n"
		   "  -n, --show-nr-samples  sample counts instead of percentages\n"
		   "  --percent-type TYPE    local-period (default), global-period,\n"
		   "                         local-hits, global-hits\n"
		   "  --percent-limit P      symbols under P%% of the profile are left out\n"
		   "                         (default 0.5; not with SYMBOL operands)\n"
		   "  --prefix PREFIX        look source files up under PREFIX (absolute\n"
		   "                         paths of the debug information)\n"
		   "  --prefix-strip N       with --prefix: drop the first N directories of\n"
		   "                         those paths first\n"
		   "  --kcore FILE           kernel code from FILE, a copy of /proc/kcore\n"
		   "                         (default /proc/kcore)\n"
		   "  -o FILE                write to FILE\n"
		   "  --stdio                accepted for perf compatibility (the only view)\n"
		   "%s%s", opts_analysis_help, cli_filter_usage);
}

struct annotate_cmd {
	struct cli_analysis a;
	struct annotate_config ac;
	const char **syms;
	size_t nr_syms;
	bool strip_set;
	struct annotate *an;
	FILE *out;
};

static int finish(void *ctx, struct profile_sink *s)
{
	struct annotate_cmd *r = ctx;
	cli_warn_empty(s);
	return annotate_write(r->an, s, r->out);
}

static int set(void *ctx, struct opts *p, int id, const char *v)
{
	struct annotate_cmd *r = ctx;
	double d;
	int t;
	switch (id) {
	case O_OPERAND:
	case O_SYMBOL:
		r->syms = xrealloc(r->syms, (r->nr_syms + 1) * sizeof(*r->syms));
		r->syms[r->nr_syms++] = v;
		return 0;
	case O_STDIO: return 0;
	case O_DSOS: r->ac.dso = v; return 0;
	case O_ASM_RAW: r->ac.asm_raw = true; return 0;
	case O_NO_SOURCE: r->ac.no_source = true; return 0;
	case O_PRINT_LINE: r->ac.print_line = true; return 0;
	case O_SHOW_NR: r->ac.show_nr = true; return 0;
	case O_DISASM_STYLE:
		if (!strcmp(v, "intel") || !strcmp(v, "att")) {
			r->ac.intel = v[0] == 'i';
			return 0;
		}
		fprintf(stderr, "scorch: annotate: unknown disassembler style '%s' (intel, att)\n", v);
		return EXIT_BADINPUT;
	case O_PERCENT_TYPE:
		if ((t = annotate_percent_parse(v)) < 0) {
			fprintf(stderr, "scorch: annotate: unknown percent type '%s' (local-period, "
					"global-period, local-hits, global-hits)\n", v);
			return EXIT_BADINPUT;
		}
		r->ac.percent = (enum annotate_percent)t;
		return 0;
	case O_SRC_PREFIX: r->ac.prefix = v; return 0;
	case O_KCORE: r->ac.kcore = v; return 0;
	case O_SRC_PREFIX_STRIP:
		if (cli_num(p->name, v, false, &d))
			return EXIT_BADINPUT;
		if (d > 4096 || d != (unsigned)d) {
			fprintf(stderr, "scorch: annotate: --prefix-strip wants a directory count, not '%s'\n", v);
			return EXIT_BADINPUT;
		}
		r->ac.prefix_strip = (unsigned)d;
		r->strip_set = true;
		return 0;
	case O_PERCENT_LIMIT:
		if (cli_num(p->name, v, false, &d))
			return EXIT_BADINPUT;
		r->ac.percent_limit = d;
		return 0;
	}
	return cli_analysis_set(&r->a, p, id, v);
}

int cmd_annotate(int argc, char **argv)
{
	struct annotate_cmd r = { 0 };
	cli_analysis_init(&r.a, "annotate");
	annotate_config_init(&r.ac);
	struct opts p = { .cmd = OC_ANNOTATE, .prefix = "scorch: annotate", .usage = usage, .set = set,
			  .ctx = &r };
	if (!opts_parse(&p, argc, argv))
		return p.status;
	if (r.strip_set && !r.ac.prefix) {
		fprintf(stderr, "scorch: annotate: --prefix-strip needs --prefix\n");
		free(r.syms);
		return EXIT_BADINPUT;
	}
	r.ac.syms = r.syms;
	r.ac.nr_syms = r.nr_syms;
	r.ac.pc = &r.a.pc;
	r.an = annotate_new(&r.ac, &r.a.sc, &r.a.pc);
	r.a.sc.finish = finish;
	r.a.sc.finish_ctx = &r;
	int rc = cli_run_profile("annotate", &r.a.pc, &r.a.sc, r.a.outpath, &r.out, r.a.no_progress);
	annotate_free(r.an);
	free(r.syms);
	return rc;
}
