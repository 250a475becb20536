/*
 * ksort.h: sort an array of records by a uint64_t key, for the symbol and
 * function-range tables (see ksort.c).
 */
#ifndef SCORCH_UTIL_KSORT_H
#define SCORCH_UTIL_KSORT_H

#include <stddef.h>

/* Sort n records of `size` bytes at base into the order of cmp, which must
 * order first by the uint64_t at key_off. Returns what qsort(base, n, size,
 * cmp) leaves whenever cmp is a strict total order on the records (ties on
 * the key broken by a unique field): a stable radix sort on the key runs
 * first and the result is checked with cmp; a tie in the wrong order (or an
 * allocation failure) falls back to qsort. */
void ksort_u64(void *base, size_t n, size_t size, size_t key_off,
	       int (*cmp)(const void *, const void *));

#endif
