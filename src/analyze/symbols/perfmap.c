/*
 * perfmap.c: the perf-PID.map parser (see perfmap.h).
 *
 * The file is written by the profiled program, so it is untrusted input:
 * lines are read with a fixed buffer (a longer line is read in pieces, each
 * parsed as a line, which perf's getline-based reader would not do but
 * which cannot overrun anything), numbers with strtoull, names up to the
 * newline. The table is built like any other (symtab_build: sorted,
 * aliases resolved perf's way); names are not demangled (perf does not).
 */
#include "analyze/symbols/perfmap.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

void perfmap_read(struct symtab *t, FILE *f, struct arena *a)
{
	struct rawsyms raw = { 0 };
	char line[4096];
	while (fgets(line, sizeof line, f)) {
		char *e1, *e2;
		uint64_t start = strtoull(line, &e1, 16);
		if (e1 == line || *e1 != ' ')
			continue;
		uint64_t size = strtoull(e1 + 1, &e2, 16);
		if (e2 == e1 + 1 || *e2 != ' ')
			continue;
		char *name = e2 + 1;
		name[strcspn(name, "\n")] = 0;
		struct rawsym *y = rawsyms_push(&raw);
		y->start = start;
		y->size = size;
		y->name = arena_intern(a, name);
		y->bind = STB_GLOBAL;
	}
	symtab_build(t, raw.v, raw.n);
	free(raw.v);
}
