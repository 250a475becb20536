/*
 * cmd_flame.c: `scorch flame`: an interactive HTML flame graph, or an SVG
 * when OUT ends in .svg (output/flame.h). With --diff BASE NEW, NEW's graph
 * coloured by the change against BASE (output/diff.h).
 */
#include "cli/analysis_opts.h"
#include "cli/cli.h"
#include "cli/cmd_diff.h"
#include "cli/opts.h"
#include "output/flame.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
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
	struct flame_config fc;
	bool svg;
	FILE *out;
	const char *outpath;
	uint64_t samples;
};

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
	return f->svg ? flame_write_svg(&s->prof, &f->fc, f->out)
		      : flame_write_html(&s->prof, &f->fc, f->out);
}

static bool ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcasecmp(s + a - b, suf);
}

/* The differential graph: both files read, NEW's graph written with
 * BASE's weights matched per stack. */
static int flame_diff(struct pipeline_config *pc, struct profile_sink_config *sc,
		      struct flame_cmd *f, const char *files[2], bool absolute, bool no_progress)
{
	if (sc->root == PROFILE_ROOT_THREAD)
		sc->root = PROFILE_ROOT_COMM;
	struct diff d;
	diff_init(&d);
	int rc = cli_diff_load(pc, sc, files[0], files[1], &d, no_progress);
	if (rc) {
		diff_release(&d);
		return rc;
	}
	const struct diff_side *nw = &d.side[DIFF_NEW];
	struct flame_diff fd = { .base = &d.side[DIFF_BASE].prof, .absolute = absolute,
				 .base_name = files[0] };
	uint32_t *n2b = diff_match(&d, DIFF_NEW), *b2n = diff_match(&d, DIFF_BASE);
	fd.base_node = n2b;
	fd.new_node = b2n;
	f->fc.diff = &fd;
	f->fc.event = nw->event;
	f->fc.unit_ns = nw->unit_ns;
	f->out = cli_open_out(f->outpath);
	if (!f->out) {
		rc = EXIT_FAIL;
	} else {
		int wr = f->svg ? flame_write_svg(&nw->prof, &f->fc, f->out)
				: flame_write_html(&nw->prof, &f->fc, f->out);
		rc = cli_close_out(f->out, f->outpath);
		if (wr && !rc)
			rc = EXIT_FAIL;
		if (!rc && strcmp(f->outpath, "-"))
			fprintf(stderr, "scorch: wrote %s (%llu samples, baseline %llu)\n", f->outpath,
				(unsigned long long)nw->prof.samples,
				(unsigned long long)d.side[DIFF_BASE].prof.samples);
	}
	free(n2b);
	free(b2n);
	diff_release(&d);
	return rc;
}

int cmd_flame(int argc, char **argv)
{
	struct pipeline_config pc;
	struct profile_sink_config sc;
	struct flame_cmd f = { .outpath = "flame.html" };
	bool no_progress = false, svg = false, title_set = false, absolute = false;
	const char *v, *diff_files[2] = { NULL, NULL };
	pipeline_config_init(&pc);
	profile_sink_config_init(&sc);
	flame_config_init(&f.fc);
	for (int i = 1; i < argc;) {
		const char *a = argv[i];
		int k;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return EXIT_OK;
		}
		if (!strcmp(a, "--icicle") || !strcmp(a, "--inverted")) {
			f.fc.icicle = true, i++;
			continue;
		}
		if (!strcmp(a, "--diff")) {
			if (i + 2 >= argc) {
				fprintf(stderr, "scorch: flame: --diff needs two files: --diff BASE NEW\n");
				return EXIT_BADINPUT;
			}
			diff_files[0] = argv[i + 1], diff_files[1] = argv[i + 2], i += 3;
			continue;
		}
		if ((k = cli_opt_value(argc, argv, &i, NULL, "--diff-mode", &v)) != 0) {
			if (k < 0)
				return EXIT_BADINPUT;
			if (strcmp(v, "shares") && strcmp(v, "absolute")) {
				fprintf(stderr, "scorch: flame: --diff-mode is shares or absolute, not '%s'\n", v);
				return EXIT_BADINPUT;
			}
			absolute = !strcmp(v, "absolute");
			continue;
		}
		if (!strcmp(a, "--svg")) {
			svg = true, i++;
			continue;
		}
		if (!strcmp(a, "--samples")) {
			f.fc.by_samples = true, i++;
			continue;
		}
		if (!strcmp(a, "--no-comm")) {
			sc.root = PROFILE_ROOT_NONE, i++;
			continue;
		}
		if (!strcmp(a, "--no-inline")) {
			sc.inline_frames = false, i++;
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
			f.outpath = v;
			continue;
		}
		if ((k = cli_opt_value(argc, argv, &i, NULL, "--title", &v)) != 0) {
			if (k < 0)
				return EXIT_BADINPUT;
			f.fc.title = v, title_set = true;
			continue;
		}
		if ((k = cli_opt_value(argc, argv, &i, NULL, "--min-percent", &v)) != 0) {
			char *end;
			if (k < 0)
				return EXIT_BADINPUT;
			f.fc.min_percent = strtod(v, &end);
			if (end == v || *end || f.fc.min_percent < 0 || f.fc.min_percent > 100) {
				fprintf(stderr, "scorch: bad value '%s' for --min-percent\n", v);
				return EXIT_BADINPUT;
			}
			continue;
		}
		if ((k = cli_opt_value(argc, argv, &i, NULL, "--width", &v)) != 0) {
			if (k < 0)
				return EXIT_BADINPUT;
			f.fc.svg_width = atoi(v);
			if (f.fc.svg_width < 200 || f.fc.svg_width > 100000) {
				fprintf(stderr, "scorch: bad value '%s' for --width\n", v);
				return EXIT_BADINPUT;
			}
			continue;
		}
		fprintf(stderr, "scorch: flame: unknown option '%s'\n", a);
		usage(stderr);
		return EXIT_BADINPUT;
	}
	f.svg = svg || ends_with(f.outpath, ".svg");
	static char title[512];
	if (!title_set) {
		if (diff_files[0])
			snprintf(title, sizeof(title), "Differential flame graph: %s -> %s",
				 diff_files[0], diff_files[1]);
		else
			snprintf(title, sizeof(title), "Flame graph: %s", pc.input ? pc.input : "perf.data");
		f.fc.title = title;
	}
	sc.unknown_by_addr = false;
	if (diff_files[0])
		return flame_diff(&pc, &sc, &f, diff_files, absolute, no_progress);
	sc.finish = finish;
	sc.finish_ctx = &f;
	struct profile_sink ps;
	struct sink sink;
	if (profile_sink_init(&ps, &sc, &sink)) {
		fprintf(stderr, "scorch: flame: %s\n", ps.errbuf);
		profile_sink_release(&ps);
		return EXIT_BADINPUT;
	}
	f.out = cli_open_out(f.outpath);
	if (!f.out) {
		profile_sink_release(&ps);
		return EXIT_FAIL;
	}
	int rc = cli_run_pipeline(&pc, &sink, no_progress);
	int rc2 = cli_close_out(f.out, f.outpath);
	if (!rc && !rc2 && strcmp(f.outpath, "-"))
		fprintf(stderr, "scorch: wrote %s (%llu samples)\n", f.outpath,
			(unsigned long long)f.samples);
	profile_sink_release(&ps);
	return rc ? rc : rc2;
}
