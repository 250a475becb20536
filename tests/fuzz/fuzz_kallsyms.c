/*
 * fuzz_kallsyms.c: libFuzzer harness for the kallsyms parser (a file from
 * perf's build-id cache or --kallsyms is untrusted). The input is the file;
 * it is read through fmemopen, as symbols.c reads the real file through
 * fopen, then every symbol is looked up by its start and its end - 1 and
 * its module name formatted, checking the table's invariants.
 */
#include "analyze/kallsyms.h"
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
	struct kallsyms k;
	int rc = kallsyms_read(&k, f, &a);
	fclose(f);
	if (rc == 0) {
		for (size_t i = 0; i < k.t.nr; i++) {
			const struct sym *y = &k.t.syms[i];
			if (i && y->start <= k.t.syms[i - 1].start)
				abort(); /* sorted, aliases removed */
			if (y->end > y->start) {
				if (!symtab_find(&k.t, y->start))
					abort();
				symtab_find(&k.t, y->end - 1);
			}
			kallsyms_module(&k, y, &a);
		}
	} else if (k.t.nr) {
		abort(); /* hidden: nothing loaded */
	}
	kallsyms_release(&k);
	arena_release(&a);
	return 0;
}
