/* buf.c: see buf.h. */
#include "util/buf.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUF_DEFAULT_LIMIT ((size_t)1 << 30)

void buf_init(struct buf *b, size_t limit)
{
	memset(b, 0, sizeof(*b));
	b->limit = limit ? limit : BUF_DEFAULT_LIMIT;
}

void buf_release(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

int buf_grow(struct buf *b, size_t n)
{
	if (n > b->limit || b->len > b->limit - n)
		return -E2BIG;
	size_t need = b->len + n;
	if (need <= b->cap)
		return 0;
	size_t nc = b->cap ? b->cap : 4096;
	while (nc < need)
		nc *= 2;
	if (nc > b->limit)
		nc = b->limit;
	uint8_t *p = realloc(b->data, nc);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = nc;
	return 0;
}

int buf_append(struct buf *b, const void *p, size_t n)
{
	int rc = buf_reserve(b, n);
	if (rc)
		return rc;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

void buf_consume(struct buf *b, size_t n)
{
	if (n >= b->len) {
		b->len = 0;
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
}

int array_grow(void **arr, size_t esz, size_t *cap, size_t need, size_t max)
{
	if (need <= *cap)
		return 0;
	if (need > max)
		return -E2BIG;
	size_t nc = *cap ? *cap * 2 : 16;
	while (nc < need)
		nc *= 2;
	if (nc > max)
		nc = max;
	if (nc > SIZE_MAX / esz)
		return -E2BIG;
	void *p = realloc(*arr, nc * esz);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = nc;
	return 0;
}
