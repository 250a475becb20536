/* cmd_stats.c: `scorch stats` and `scorch header`. */
#include "cli/cli.h"
#include "cli/opts.h"
#include "output/stats.h"
#include <stdio.h>
#include <string.h>

static int run(const char *name, int argc, char **argv, int (*init)(struct sink *, FILE *))
{
	struct pipeline_config c;
	pipeline_config_init(&c);
	c.resolve = false;
	for (int i = 1; i < argc;) {
		int r = opts_analysis(&c, argc, argv, &i);
		if (r < 0)
			return EXIT_BADINPUT;
		if (r)
			continue;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: scorch %s [-i FILE] [options]\n%s", name, opts_analysis_help);
			return 0;
		}
		fprintf(stderr, "scorch %s: unknown option '%s'\n", name, argv[i]);
		return EXIT_BADINPUT;
	}
	struct sink sink;
	init(&sink, stdout);
	struct err e = { 0 };
	if (pipeline_run(&c, &sink, &e)) {
		cli_print_err(c.input, &e);
		return EXIT_BADINPUT;
	}
	return 0;
}

int cmd_stats(int argc, char **argv)
{
	return run("stats", argc, argv, stats_sink_init);
}

int cmd_header(int argc, char **argv)
{
	return run("header", argc, argv, header_sink_init);
}
