/*
 * bsearch.h: the one binary search scorch needs, over arrays of structs
 * sorted by a uint64_t field (maps by start, symbols by start, comms by
 * time, function ranges by low pc): how many elements have a key <= key,
 * i.e. the index just after the last element at or before key. Inline, so
 * with the constant stride and offset of UPPER_BOUND it compiles to the
 * hand-written loop it replaces.
 */
#ifndef SCORCH_BSEARCH_H
#define SCORCH_BSEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline size_t upper_bound_u64(const void *base, size_t n, size_t size, size_t off,
				     uint64_t key)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;
		memcpy(&k, (const char *)base + mid * size + off, sizeof k);
		if (k <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* UPPER_BOUND(array, n, field, key): upper_bound_u64 on array[i].field. */
#define UPPER_BOUND(arr, n, field, key) \
	upper_bound_u64((arr), (n), sizeof(*(arr)), offsetof(__typeof__(*(arr)), field), (key))

#endif
