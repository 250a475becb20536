/*
 * fuzz_dwline.c: libFuzzer harness for the DWARF line table decoder (a
 * binary's or debug file's .debug_line is untrusted input). The first byte
 * picks the address size (4 or 8) and whether a comp_dir is given; the rest
 * is used as .debug_line and as .debug_line_str/.debug_str both (so string
 * forms find strings). The table is then checked: rows sorted as libdw
 * sorts them, every row's address looked up, every file name readable.
 */
#include "analyze/dwline.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	unsigned mode = data[0];
	struct dwline_sections sec = {
		.line = data + 1, .line_size = size - 1,
		.line_str = data + 1, .line_str_size = size - 1,
		.str = data + 1, .str_size = size - 1,
	};
	struct dwline *t = dwline_open(&sec, 0, mode & 1 ? "/comp/dir" : NULL, mode & 2 ? 4 : 8);
	if (!t)
		return 0;
	for (size_t i = 0; i < t->nrows; i++) {
		const struct dwline_row *r = &t->rows[i];
		if (i && r->addr < t->rows[i - 1].addr)
			abort();
		const struct dwline_row *f = dwline_find(t, r->addr);
		if (f && (f->addr > r->addr || f->end_sequence))
			abort();
		dwline_find(t, r->addr - 1);
		const char *name = dwline_file(t, r->file);
		if (name && strlen(name) > size * 2 + 16)
			abort();
	}
	for (size_t i = 0; i < t->nfiles; i++)
		if (!t->files[i])
			abort();
	dwline_free(t);
	return 0;
}
