/*
 * fuzz_dwline.c: libFuzzer harness for the DWARF line table decoder (a
 * binary's or debug file's .debug_line is untrusted input). The first byte
 * picks the address size (4 or 8) and whether a comp_dir is given; the rest
 * is used as .debug_line and as .debug_line_str/.debug_str both (so string
 * forms find strings). The whole table (dwline_open_full) is then checked:
 * rows sorted as libdw sorts them, every file name readable; and the lazy
 * one (dwline_open) must give the same answer at each row's address and
 * its neighbours, in order and back again; so must the table opened again
 * from its index (dwline_index, as a later run opens it from the on-disk
 * cache). Mode bit 2 then changes the index with the input's bytes: an
 * index that no longer fits may give other rows, never a bad read. Mode
 * bit 3 reads the input as a dwindex image (dwindex_over) and looks up
 * keys taken from it.
 */
#include "analyze/cache/dwindex.h"
#include "analyze/dwarf/dwline.h"
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
	if (mode & 8) {
		/* an image as the cache holds it (mapped: 8-byte aligned) */
		uint64_t *img = malloc(size + 8);
		memcpy(img, data + 1, size - 1);
		struct cacheimg_id id = { 0 };
		struct dwindex *x = dwindex_over(&id, img, size - 1);
		if (x) {
			for (size_t i = 1; i + 8 <= size; i += 8) {
				uint64_t off;
				size_t n;
				memcpy(&off, data + i, 8);
				const uint8_t *p = dwindex_find(x, (enum dwindex_kind)(1 + (off & 1)),
								off & ((1ull << 56) - 1), &n);
				if (p && (p < (uint8_t *)img || p + n > (uint8_t *)img + size - 1))
					abort();
			}
			dwindex_close(x);
		}
		free(img);
		return 0;
	}
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
		if (!dwline_file(t, i) || strcmp(dwline_file(t, i), dwline_file(z, i)))
			abort();
	/* from its index: used, the same answers */
	size_t isz = dwline_index(z, NULL);
	if (isz) {
		uint64_t *ib = malloc(isz);
		dwline_index(z, ib);
		bool used;
		struct dwline *zi = dwline_open_indexed(&sec, 0, cd, asz, ib, isz, &used);
		if (!used || !zi || zi->nrows != t->nrows)
			abort();
		for (size_t i = 0; i < t->nrows; i++)
			for (uint64_t a = t->rows[i].addr - 1; a != t->rows[i].addr + 2; a++) {
				struct dwline_row x, y;
				bool hx = dwline_find(t, a, &x), hy = dwline_find(zi, a, &y);
				if (hx != hy || (hx && (x.addr != y.addr || x.line != y.line ||
							x.file != y.file || x.column != y.column)))
					abort();
			}
		dwline_free(zi);
		if (mode & 4) {
			/* changed by the input: any rows, no bad read */
			for (size_t i = 0; i < isz && i < size; i++)
				((uint8_t *)ib)[(i * 7919) % isz] ^= data[i];
			zi = dwline_open_indexed(&sec, 0, cd, asz, ib, isz, &used);
			for (size_t i = 0; zi && i < t->nrows; i++) {
				struct dwline_row y;
				dwline_find(zi, t->rows[i].addr, &y);
			}
			dwline_free(zi);
		}
		free(ib);
	}
	dwline_free(t);
	dwline_free(z);
	return 0;
}
