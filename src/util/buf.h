/*
 * buf.h: a growable byte buffer with a hard size cap, and a growable array
 * helper. Growth doubles; a request beyond the cap fails with -E2BIG rather
 * than allocating what a hostile length field asks for (the out-of-memory
 * policy is stated once, in util/xalloc.h).
 */
#ifndef SCORCH_BUF_H
#define SCORCH_BUF_H

#include <stddef.h>
#include <stdint.h>
#include "util/xalloc.h" /* the out-of-memory policy; x* helpers */

struct buf {
	uint8_t *data;
	size_t len;
	size_t cap;     /* allocated */
	size_t limit;   /* never allocate more than this; 0 = 1 GiB */
};

void buf_init(struct buf *b, size_t limit);
void buf_release(struct buf *b);
/* Make room for n more bytes; returns 0 or -E2BIG / -ENOMEM. Inline when
 * the room is there (len <= cap <= limit always): the stream encoders
 * reserve for every field they write. */
int buf_grow(struct buf *b, size_t n);
static inline int buf_reserve(struct buf *b, size_t n)
{
	return n <= b->cap - b->len ? 0 : buf_grow(b, n);
}
int buf_append(struct buf *b, const void *p, size_t n);
/* Drop the first n bytes, moving the rest down. */
void buf_consume(struct buf *b, size_t n);

/*
 * Grow *arr (element size esz, *cap elements) to hold at least need elements,
 * at most max elements. Returns 0 or -E2BIG / -ENOMEM.
 */
int array_grow(void **arr, size_t esz, size_t *cap, size_t need, size_t max);
#define ARRAY_GROW(arr, cap, need, max) \
	array_grow((void **)&(arr), sizeof(*(arr)), &(cap), (need), (max))

#endif
