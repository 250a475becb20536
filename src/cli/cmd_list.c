/*
 * cmd_list.c: `scorch list`: the event names `scorch record -e` accepts
 * (record/events.h: the named software and hardware events, tracefs's
 * tracepoints), as perf list prints them, or with --raw-dump as one
 * space-separated line for shell completion.
 */
#include "cli/cli.h"
#include "record/events.h"
#include <stdio.h>
#include <string.h>

struct list_out {
	bool raw;
	bool first;
};

static void put(struct list_out *o, const char *name, const char *kind)
{
	if (o->raw)
		printf("%s%s", o->first ? "" : " ", name);
	else
		printf("  %-48s [%s]\n", name, kind);
	o->first = false;
}

static void put_tracepoint(void *ctx, const char *name)
{
	put(ctx, name, "Tracepoint event");
}

int cmd_list(int argc, char **argv)
{
	struct list_out o = { .first = true };
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--raw-dump")) {
			o.raw = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: scorch list [--raw-dump]\n"
			       "  --raw-dump             only the names, space-separated\n");
			return EXIT_OK;
		} else {
			fprintf(stderr, "scorch list: unknown option '%s'\n", argv[i]);
			return EXIT_BADINPUT;
		}
	}
	if (!o.raw)
		printf("\nList of events scorch record -e accepts:\n\n");
	for (int hw = 0; hw < 2; hw++) {
		bool is_hw;
		const char *n;
		for (size_t i = 0; (n = events_named(i, &is_hw)); i++)
			if (is_hw == (hw == 1))
				put(&o, n, hw ? "Hardware event" : "Software event");
	}
	if (events_tracepoints(put_tracepoint, &o) < 0 && !o.raw)
		printf("  (no tracepoints: tracefs is not mounted or not readable)\n");
	if (o.raw)
		putchar('\n');
	return fflush(stdout) ? EXIT_FAIL : EXIT_OK;
}
