/*
 * ksort.c: key sort for symbol tables (see ksort.h).
 *
 * Why: building a DSO's symbol table (tens of thousands of .symtab
 * entries) or a CU's function index sorted with qsort, whose merge sort
 * calls the comparator n log n times through a pointer; that was a large
 * part of opening a big binary for a few samples. Here: one pass checks
 * whether the array is already in order (kallsyms, most CUs), else a
 * stable LSD radix sort on (key, position) pairs, 8 bits a pass, skipping
 * the passes where every key has the same byte, and one gather. The result
 * is then checked pairwise with the caller's comparator, so an input whose
 * ties are not already in the comparator's order still gets qsort's order.
 */
#include "util/ksort.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct kpos {
	uint64_t key;
	size_t pos;
};

static uint64_t key_at(const char *base, size_t i, size_t size, size_t key_off)
{
	uint64_t k;
	memcpy(&k, base + i * size + key_off, sizeof k);
	return k;
}

static int in_order(const char *base, size_t n, size_t size,
		    int (*cmp)(const void *, const void *))
{
	for (size_t i = 1; i < n; i++)
		if (cmp(base + (i - 1) * size, base + i * size) >= 0)
			return 0;
	return 1;
}

void ksort_u64(void *base_, size_t n, size_t size, size_t key_off,
	       int (*cmp)(const void *, const void *))
{
	char *base = base_;
	if (n < 2 || in_order(base, n, size, cmp))
		return;
	if (n < 64 || n > SIZE_MAX / 2 / sizeof(struct kpos) || n > SIZE_MAX / size)
		goto fallback;
	struct kpos *a = malloc(2 * n * sizeof *a);
	char *out = malloc(n * size);
	if (!a || !out) {
		free(a);
		free(out);
		goto fallback;
	}
	struct kpos *b = a + n;
	uint64_t all_or = 0, all_and = ~0ULL;
	for (size_t i = 0; i < n; i++) {
		a[i].key = key_at(base, i, size, key_off);
		a[i].pos = i;
		all_or |= a[i].key;
		all_and &= a[i].key;
	}
	uint64_t differ = all_or ^ all_and;
	for (unsigned shift = 0; shift < 64; shift += 8) {
		if (!((differ >> shift) & 0xff))
			continue;
		size_t count[257] = { 0 };
		for (size_t i = 0; i < n; i++)
			count[((a[i].key >> shift) & 0xff) + 1]++;
		for (unsigned d = 1; d < 257; d++)
			count[d] += count[d - 1];
		for (size_t i = 0; i < n; i++)
			b[count[(a[i].key >> shift) & 0xff]++] = a[i];
		struct kpos *t = a;
		a = b;
		b = t;
	}
	for (size_t i = 0; i < n; i++)
		memcpy(out + i * size, base + a[i].pos * size, size);
	int ok = in_order(out, n, size, cmp);
	if (ok)
		memcpy(base, out, n * size);
	free(a < b ? a : b);
	free(out);
	if (ok)
		return;
fallback:
	qsort(base, n, size, cmp);
}
