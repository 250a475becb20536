/*
 * arena.h: an arena for small objects that live as long as their owner
 * (symbol names, inline chains, interned strings), carved from 64 KiB
 * chunks and freed all at once by arena_release; and string interning on
 * top of it, so that interned strings compare by pointer and each distinct
 * string is stored once.
 *
 * Why: a profile names the same few thousand functions and files millions of
 * times; one malloc per string (and one free per string at exit) costs more
 * than the lookups. Allocation failure follows util/xalloc.h (fatal).
 */
#ifndef SCORCH_ARENA_H
#define SCORCH_ARENA_H

#include <stddef.h>
#include <string.h>
#include "util/hash.h"

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	char data[];
};

struct arena {
	struct arena_chunk *chunks;
	struct hmap interned;   /* hash(string) -> chain of interned strings */
};

void arena_init(struct arena *a);
/* Frees every allocation and interned string of a. */
void arena_release(struct arena *a);

/* The slow path of arena_alloc: a new chunk. */
void *arena_alloc_chunk(struct arena *a, size_t n);

/* n bytes, 8-byte aligned, uninitialized. (Inline: the hot path of
 * symbol loading is one call per symbol.) */
static inline void *arena_alloc(struct arena *a, size_t n)
{
	n = (n + 7) & ~(size_t)7;
	struct arena_chunk *c = a->chunks;
	if (!c || c->cap - c->used < n)
		return arena_alloc_chunk(a, n);
	void *p = c->data + c->used;
	c->used += n;
	return p;
}

/* A copy of str in a (not interned). */
static inline const char *arena_strdup(struct arena *a, const char *str)
{
	size_t n = strlen(str);
	char *p = arena_alloc(a, n + 1);
	memcpy(p, str, n + 1);
	return p;
}
/* The one copy of str in a; NULL for NULL. */
const char *arena_intern(struct arena *a, const char *str);

#endif
