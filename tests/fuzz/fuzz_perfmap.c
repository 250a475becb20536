/*
 * fuzz_perfmap.c: libFuzzer harness for the perf-PID.map parser (the file
 * is written by the profiled program: untrusted). The input is the file,
 * read through fmemopen as symbols.c reads the real one through fopen; every
 * symbol is then looked up by its start, checking the table's invariants.
 */
#include "analyze/symbols/perfmap.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	FILE *f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	struct arena a;
	arena_init(&a);
	struct symtab t;
	perfmap_read(&t, f, &a);
	fclose(f);
	for (size_t i = 0; i < t.nr; i++) {
		if (i && t.syms[i].start <= t.syms[i - 1].start)
			abort(); /* sorted, aliases removed */
		if (t.syms[i].end > t.syms[i].start && !symtab_find(&t, t.syms[i].start))
			abort();
	}
	symtab_release(&t);
	arena_release(&a);
	return 0;
}
