/*
 * scorch.c: the command table. `scorch CMD ARGS` runs cmd_CMD; when started
 * as "scorch-perfparser" (a link in build/) it behaves as `scorch perfparser`,
 * so hotspot can run it via HOTSPOT_PERFPARSER.
 */
#include "cli/cli.h"
#include <libgen.h>
#include <stdio.h>
#include <string.h>

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "record", cmd_record, "record a profile into perf.data" },
	{ "script", cmd_script, "print samples like perf script" },
	{ "report", cmd_report, "top functions and call tree" },
	{ "flame", cmd_flame, "write an interactive flame graph" },
	{ "export", cmd_export, "export folded, pprof or speedscope" },
	{ "diff", cmd_diff, "what changed between two recordings" },
	{ "stats", cmd_stats, "counts of records, samples and ordering statistics" },
	{ "header", cmd_header, "print the header and features" },
	{ "perfparser", cmd_perfparser, "hotspot-perfparser compatible stream" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: scorch COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].help);
}

void cli_print_err(const char *file, const struct err *e)
{
	if (e->has_offset)
		fprintf(stderr, "scorch: %s: offset %llu: %s\n", file,
			(unsigned long long)e->offset, e->msg);
	else
		fprintf(stderr, "scorch: %s: %s\n", file, e->msg);
}

int main(int argc, char **argv)
{
	char *self = basename(argv[0]);
	if (strstr(self, "perfparser"))
		return cmd_perfparser(argc, argv);
	if (argc < 2) {
		usage(stderr);
		return EXIT_BADINPUT;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("scorch 0.1\n");
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "scorch: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_BADINPUT;
}
