/*
 * cmd_list.c: `scorch list`: the event names `scorch record -e` accepts
 * (record/events.h: the named software and hardware events, tracefs's
 * tracepoints), as perf list prints them, or with --raw-dump as one
 * space-separated line for shell completion.
 */
#include "cli/cli.h"
#include "cli/opts.h"
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

static void usage(FILE *f, void *ctx)
{
	fprintf(f, "usage: scorch list [--raw-dump]\n"
		   "  --raw-dump             only the names, space-separated\n");
}

static int set(void *ctx, struct opts *p, int id, const char *v)
{
	struct list_out *o = ctx;
	if (id != O_RAW_DUMP)
		return OPTS_UNKNOWN;
	o->raw = true;
	return 0;
}

int cmd_list(int argc, char **argv)
{
	struct list_out o = { .first = true };
	struct opts p = { .cmd = OC_LIST, .prefix = "scorch list", .usage = usage, .terse = 1, .set = set, .ctx = &o };
	if (!opts_parse(&p, argc, argv))
		return p.status;
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
