/*
 * fuzz_dwline.c: libFuzzer harness for the DWARF line table decoder (a
 * binary's or debug file's .debug_line is untrusted input). The first byte
 * picks the address size (4 or 8) and whether a comp_dir is given; the rest
 * is used as .debug_line and as .debug_line_str/.debug_str both (so string
 * forms find strings). The whole table (dwline_open_full) is then checked:
 * rows sorted as libdw sorts them, every file name readable; and the lazy
 * one (dwline_open) must give the same answer at each row's address and
 * its neighbours, in order and back again.
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
	const char *cd = mode & 1 ? "/comp/dir" : NULL;
	unsigned asz = mode & 2 ? 4 : 8;
	struct dwline *t = dwline_open_full(&sec, 0, cd, asz);
	struct dwline *z = dwline_open(&sec, 0, cd, asz);
	if (!t != !z || (t && (t->nrows != z->nrows || t->nfiles != z->nfiles)))
		abort();
	if (!t)
		return 0;
	for (size_t i = 0; i < t->nrows; i++) {
		const struct dwline_row *r = &t->rows[i];
		if (i && r->addr < t->rows[i - 1].addr)
			abort();
		const char *name = dwline_file(t, r->file);
		if (name && strlen(name) > size * 2 + 16)
			abort();
	}
	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < t->nrows; k++) {
			size_t i = pass ? t->nrows - 1 - k : k;
			for (uint64_t a = t->rows[i].addr - 1; a != t->rows[i].addr + 2; a++) {
				struct dwline_row x, y;
				bool hx = dwline_find(t, a, &x), hy = dwline_find(z, a, &y);
				if (hx != hy)
					abort();
				if (hx && (x.addr > a || x.end_sequence || x.addr != y.addr ||
					   x.line != y.line || x.file != y.file || x.column != y.column))
					abort();
			}
		}
	for (size_t i = 0; i < t->nfiles; i++)
		if (!t->files[i] || strcmp(t->files[i], z->files[i]))
			abort();
	dwline_free(t);
	dwline_free(z);
	return 0;
}
