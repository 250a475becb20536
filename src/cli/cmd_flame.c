/*
 * cmd_flame.c: `scorch flame`: an interactive HTML flame graph, or an SVG
 * when OUT ends in .svg (output/flame.h). With --diff BASE NEW, NEW's graph
 * coloured by the change against BASE (output/diff.h).
 */
#include "cli/analysis_opts.h"
#include "cli/cli.h"
#include "cli/cmd_diff.h"
#include "output/flame.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f, void *ctx)
{
	fprintf(f, "usage: scorch flame [-i FILE] [-o OUT.html|OUT.svg] [options]\n"
		   "  -o, --output OUT       default flame.html; .svg writes an SVG; - is stdout\n"
		   "  --svg                  write an SVG whatever the name\n"
		   "  --icicle, --inverted   root at the top\n"
		   "  --title TEXT           heading\n"
		   "  --samples              widths by sample count (default: period, CPU time)\n"
		   "  --min-percent P        drop frames under P%% (HTML; default 0, keep all)\n"
		   "  --no-comm              no command frame at the root\n"
		   "  --no-inline            no inlined frames\n"
		   "  --width PX             SVG width (default 1200)\n"
		   "  --diff BASE NEW        differential graph: NEW's, red grew, blue shrank\n"
		   "  --diff-mode MODE       shares (default: of each side's total) or absolute\n"
		   "                         (time, of the baseline's total)\n"
		   "%s%s", opts_analysis_help, cli_filter_usage);
}

struct flame_cmd {
	struct cli_analysis a;
	struct flame_config fc;
	bool svg, absolute, title_set;
	FILE *out;
	uint64_t samples, base_samples;
	struct flamelines_config flc;
	struct flamelines *fl; /* the line panel's (HTML) */
};

static int write_graph(struct flame_cmd *f, const struct profile *prof, FILE *out)
{
	return f->svg ? flame_write_svg(prof, &f->fc, out) : flame_write_html(prof, &f->fc, out);
}

static int finish(void *ctx, struct profile_sink *s)
{
	cli_warn_empty(s);
	struct flame_cmd *f = ctx;
	f->fc.event = s->event_name;
	f->fc.unit_ns = profile_sink_period_is_ns(s);
	if (s->offcpu) { /* --off-cpu, --wall: weights are time */
		f->fc.event = s->cfg.filter.time_mode == OFFCPU_MODE_WALL ? "wall-clock time"
									 : "off-CPU time";
		f->fc.unit_ns = true;
		f->fc.off_colours = true;
	}
	f->samples = s->prof.samples;
	if (f->fl && !f->svg)
		f->fc.lines = flamelines_compute(f->fl, s, f->fc.by_samples, &f->fc.nr_lines);
	return write_graph(f, &s->prof, f->out);
}

static bool ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcasecmp(s + a - b, suf);
}

/* The differential graph: NEW's graph written with BASE's weights matched
 * per stack. */
static int write_diff(void *ctx, struct diff *d, FILE *out)
{
	struct flame_cmd *f = ctx;
	const struct diff_side *nw = &d->side[DIFF_NEW];
	struct flame_diff fd = { .base = &d->side[DIFF_BASE].prof, .absolute = f->absolute,
				 .base_name = f->a.diff[0] };
	uint32_t *n2b = diff_match(d, DIFF_NEW), *b2n = diff_match(d, DIFF_BASE);
	fd.base_node = n2b;
	fd.new_node = b2n;
	f->fc.diff = &fd;
	f->fc.event = nw->event;
	f->fc.unit_ns = nw->unit_ns;
	f->samples = nw->prof.samples;
	f->base_samples = d->side[DIFF_BASE].prof.samples;
	int wr = write_graph(f, &nw->prof, out);
	f->fc.diff = NULL;
	free(n2b);
	free(b2n);
	return wr;
}

static int set(void *ctx, struct opts *p, int id, const char *v)
{
	struct flame_cmd *f = ctx;
	char *end;
	int k;
	switch (id) {
	case O_ICICLE: f->fc.icicle = true; return 0;
	case O_SVG: f->svg = true; return 0;
	case O_SAMPLES: f->fc.by_samples = true; return 0;
	case O_TITLE: f->fc.title = v, f->title_set = true; return 0;
	case O_DIFF_MODE:
		k = opts_pick(v, (const char *const[]){ "shares", "absolute", NULL },
			      "scorch: flame: --diff-mode is shares or absolute, not '%s'\n");
		f->absolute = k == 1;
		return k < 0 ? EXIT_BADINPUT : 0;
	case O_MIN_PERCENT:
		f->fc.min_percent = strtod(v, &end);
		if (end == v || *end || f->fc.min_percent < 0 || f->fc.min_percent > 100)
			break;
		return 0;
	case O_WIDTH:
		f->fc.svg_width = atoi(v);
		if (f->fc.svg_width < 200 || f->fc.svg_width > 100000)
			break;
		return 0;
	default:
		return cli_analysis_set(&f->a, p, id, v);
	}
	fprintf(stderr, "scorch: bad value '%s' for %s\n", v, p->name);
	return EXIT_BADINPUT;
}

int cmd_flame(int argc, char **argv)
{
	struct flame_cmd f = { .svg = false };
	cli_analysis_init(&f.a, "flame");
	f.a.outpath = "flame.html";
	flame_config_init(&f.fc);
	struct opts p = { .cmd = OC_FLAME, .prefix = "scorch: flame", .usage = usage, .set = set, .ctx = &f };
	if (!opts_parse(&p, argc, argv))
		return p.status;
	const char *outpath = f.a.outpath, **files = f.a.diff;
	f.svg = f.svg || ends_with(outpath, ".svg");
	static char title[512];
	if (!f.title_set) {
		if (files[0])
			snprintf(title, sizeof(title), "Differential flame graph: %s -> %s", files[0],
				 files[1]);
		else
			snprintf(title, sizeof(title), "Flame graph: %s",
				 f.a.pc.input ? f.a.pc.input : "perf.data");
		f.fc.title = title;
	}
	f.a.sc.unknown_by_addr = false;
	int rc;
	if (files[0]) {
		if (f.a.sc.root == PROFILE_ROOT_THREAD)
			f.a.sc.root = PROFILE_ROOT_COMM;
		rc = cli_diff_run(&f.a, write_diff, &f);
	} else {
		f.a.sc.finish = finish;
		f.a.sc.finish_ctx = &f;
		if (!f.svg) {
			/* the line panel: functions with at least 0.5% of the
			 * weight in their own code, their 10 hottest lines */
			f.flc = (struct flamelines_config){ .min_percent = 0.5, .max_lines = 10,
							    .pc = &f.a.pc };
			f.fl = flamelines_new(&f.flc, &f.a.sc);
		}
		rc = cli_run_profile("flame", &f.a.pc, &f.a.sc, outpath, &f.out, f.a.no_progress);
		flamelines_free(f.fl);
	}
	if (rc || !strcmp(outpath, "-"))
		return rc;
	fprintf(stderr, "scorch: wrote %s (%llu samples", outpath, (unsigned long long)f.samples);
	if (files[0])
		fprintf(stderr, ", baseline %llu", (unsigned long long)f.base_samples);
	fprintf(stderr, ")\n");
	return rc;
}
