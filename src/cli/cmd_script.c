/* cmd_script.c: `scorch script` — samples in perf script's default format. */
#include "cli/cli.h"
#include "cli/opts.h"
#include "output/script.h"
#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: scorch script [-i FILE] [options]\n%s"
		   "  --no-inline             do not print inline frames\n"
		   "  --headers-only          only the header line of each sample\n"
		   "  --raw                   per sample: comm pid tid time(ns) period ip cpu event\n"
		   "  --ip                    ip, symbol and DSO for every event type, tracepoints\n"
		   "                          too (perf script's +ip,+sym,+dso fields)\n",
		opts_analysis_help);
}

int cmd_script(int argc, char **argv)
{
	struct pipeline_config c;
	pipeline_config_init(&c);
	c.parallel_samples = true; /* the script sink prints in sample(), in order */
	c.max_frames = 127;        /* perf script prints up to PERF_MAX_STACK_DEPTH entries */
	struct script_opts so = { .show_inline = true };
	for (int i = 1; i < argc;) {
		int r = opts_analysis(&c, argc, argv, &i);
		if (r < 0)
			return EXIT_BADINPUT;
		if (r)
			continue;
		if (!strcmp(argv[i], "--no-inline")) {
			so.show_inline = false;
			c.no_inline = true;
		} else if (!strcmp(argv[i], "--ip")) {
			so.all_ip = true;
		} else if (!strcmp(argv[i], "--raw")) {
			so.raw = true;
		} else if (!strcmp(argv[i], "--headers-only")) {
			so.headers_only = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "scorch script: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return EXIT_BADINPUT;
		}
		i++;
	}
	struct sink sink;
	script_sink_init(&sink, stdout, &so);
	struct err e = { 0 };
	if (pipeline_run(&c, &sink, &e)) {
		cli_print_err(c.input, &e);
		return EXIT_BADINPUT;
	}
	return 0;
}
