/*
 * hash.h: an open-addressing hash map from uint64_t keys to void * values
 * (linear probing, power-of-two capacity, load <= 1/2). Key 0 is allowed: a
 * separate bitmap marks used slots. Used for pid/tid/id lookups on hot paths.
 */
#ifndef SCORCH_HASH_H
#define SCORCH_HASH_H

#include <stddef.h>
#include <stdint.h>

struct hmap_slot {
	uint64_t key;
	void *val;
};
/* A key and its value share a slot, and the used flags are a bitmap (an
 * eighth of a byte per slot), so a lookup touches one slot's cache line and
 * a bitmap small enough to stay cached. */
struct hmap {
	struct hmap_slot *slot;
	uint64_t *used;
	size_t cap;
	size_t len;
};
static inline int hmap_used(const struct hmap *m, size_t i)
{
	return (int)(m->used[i >> 6] >> (i & 63) & 1);
}

void hmap_init(struct hmap *m);
void hmap_release(struct hmap *m);
/* hmap_release after calling destroy on every value (owned values). */
void hmap_release_vals(struct hmap *m, void (*destroy)(void *val));
void *hmap_get(const struct hmap *m, uint64_t key);
/* Insert or replace; returns the previous value or NULL. */
void *hmap_put(struct hmap *m, uint64_t key, void *val);
/* Remove; returns the removed value or NULL. */
void *hmap_del(struct hmap *m, uint64_t key);
/* Iterate: for (size_t i = 0; i < m->cap; i++) if (hmap_used(m, i)) ...m->slot[i].val */


/*
 * An index table: a hash set of uint32_t indices into an array the caller
 * owns, for keys too large or too untrusted for a 64-bit hash alone (the
 * caller compares the full key of each candidate). Open addressing, linear
 * probing, power-of-two capacity, load <= 1/2. Lookup:
 *
 *	for (size_t j = itab_first(t, h); t->slot[j] != ITAB_EMPTY; j = itab_next(t, j))
 *		if (key of element t->slot[j] equals key) return t->slot[j];
 *	(not found: j is the free slot for a new element)
 */
#define ITAB_EMPTY UINT32_MAX
struct itab {
	uint32_t *slot;
	size_t cap;
};
/* Before adding element number n (elements [from, n) are in the table):
 * when n + 1 entries would pass load 1/2, doubles the table (first size
 * min_cap) and re-inserts [from, n) by hash(ctx, i). Inline, as it comes
 * before every insertion and the call cost more than the check; the
 * growing (unconditional: itab_reserve checks) is itab_grow's. */
void itab_grow(struct itab *t, size_t n, size_t from, size_t min_cap,
	       uint64_t (*hash)(const void *ctx, size_t i), const void *ctx);
static inline void itab_reserve(struct itab *t, size_t n, size_t from, size_t min_cap,
				uint64_t (*hash)(const void *ctx, size_t i), const void *ctx)
{
	if ((n + 1) * 2 > t->cap)
		itab_grow(t, n, from, min_cap, hash, ctx);
}
void itab_release(struct itab *t);
static inline size_t itab_first(const struct itab *t, uint64_t h)
{
	return h & (t->cap - 1);
}
static inline size_t itab_next(const struct itab *t, size_t j)
{
	return (j + 1) & (t->cap - 1);
}

static inline uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/*
 * A set of pointers asked about once per frame (the files already checked):
 * the last one and 64 recent ones, direct-mapped, in front of an hmap of
 * pointer -> 1. Pointers must stay valid (interned) while the set lives.
 */
struct ptrset {
	struct hmap m;
	const void *recent[64];
	const void *last;
};
void ptrset_init(struct ptrset *s);
void ptrset_release(struct ptrset *s);
/* Put p (not NULL) in s: true when it was not there before. */
static inline int ptrset_put(struct ptrset *s, const void *p)
{
	if (p == s->last)
		return 0;
	s->last = p;
	const void **r = &s->recent[hash_u64((uintptr_t)p) & 63];
	if (*r == p)
		return 0;
	*r = p;
	if (hmap_get(&s->m, (uint64_t)(uintptr_t)p))
		return 0;
	hmap_put(&s->m, (uint64_t)(uintptr_t)p, (void *)1);
	return 1;
}

uint64_t hash_bytes(const void *p, size_t n);
/* A hash of n bytes at p, 8 at a time (for fixed-size records; a string's
 * hash is hash_bytes). */
uint64_t hash_mem(const void *p, size_t n);

#endif
