/*
 * fuzz_jitdump.c: libFuzzer harness for the jit-PID.dump reader (the file
 * is written by the profiled program: untrusted). The input is the file;
 * every function read is then checked: its name and code inside the input,
 * the table sorted, each function found again at its start, its lines.
 */
#include "analyze/symbols/jitdump.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int inside(const uint8_t *data, size_t size, const void *p, size_t n)
{
	const uint8_t *q = p;
	return q >= data && q <= data + size && n <= (size_t)(data + size - q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jitdump j;
	if (jitdump_parse(&j, data, size)) {
		if (j.nr || !j.bad)
			abort(); /* a refused header reads nothing and says why */
		jitdump_release(&j);
		return 0;
	}
	if (j.bad && j.bad_off > size)
		abort();
	for (size_t i = 0; i < j.nr; i++) {
		const struct jitdump_fn *f = &j.fns[i];
		if (i && (f->start < j.fns[i - 1].start ||
			  (f->start == j.fns[i - 1].start && f->time < j.fns[i - 1].time)))
			abort();
		if (!inside(data, size, f->name, strlen(f->name) + 1))
			abort();
		if (f->code && !inside(data, size, f->code, f->size))
			abort();
		if (f->line0 + f->nr_lines > j.nr_lines)
			abort();
		if (f->size) {
			const struct jitdump_fn *g = jitdump_find(&j, f->start, UINT64_MAX);
			if (!g || f->start - g->start >= g->size)
				abort();
			g = jitdump_find(&j, f->start + f->size - 1, f->time);
			if (!g || f->start + f->size - 1 - g->start >= g->size)
				abort();
		}
		const char *file;
		uint32_t line;
		if (jitdump_line(&j, f, f->start + 0x40, &file, &line) &&
		    (!line || !inside(data, size, file, strlen(file) + 1)))
			abort();
	}
	jitdump_release(&j);
	return 0;
}
