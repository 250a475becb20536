/*
 * arena.c: chunked allocation and string interning (see arena.h).
 *
 * Chunks are 64 KiB (or one allocation's size when larger), newest first;
 * a request that does not fit the newest chunk starts a new one, so the
 * waste is at most one allocation per chunk. Interned strings are chained
 * per 64-bit hash in a util/hash map; the chain nodes live in the arena.
 */
#include "util/arena.h"
#include "util/xalloc.h"

#include <string.h>

struct istr {
	struct istr *next;
	const char *s;
};

void arena_init(struct arena *a)
{
	a->chunks = NULL;
	hmap_init(&a->interned);
}

void arena_release(struct arena *a)
{
	while (a->chunks) {
		struct arena_chunk *c = a->chunks->next;
		free(a->chunks);
		a->chunks = c;
	}
	hmap_release(&a->interned);
}

void *arena_alloc_chunk(struct arena *a, size_t n)
{
	size_t cap = n > 65536 ? n : 65536;
	struct arena_chunk *c = xmalloc(sizeof(*c) + cap);
	c->next = a->chunks;
	c->used = n;
	c->cap = cap;
	a->chunks = c;
	return c->data;
}

const char *arena_intern(struct arena *a, const char *str)
{
	if (!str)
		return NULL;
	size_t n = strlen(str);
	uint64_t h = hash_bytes(str, n);
	struct istr *e = hmap_get(&a->interned, h);
	for (struct istr *i = e; i; i = i->next)
		if (!strcmp(i->s, str))
			return i->s;
	struct istr *ni = arena_alloc(a, sizeof(*ni));
	char *p = arena_alloc(a, n + 1);
	memcpy(p, str, n + 1);
	ni->s = p;
	ni->next = e;
	hmap_put(&a->interned, h, ni);
	return p;
}
