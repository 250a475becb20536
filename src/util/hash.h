/*
 * hash.h: an open-addressing hash map from uint64_t keys to void * values
 * (linear probing, power-of-two capacity, load <= 1/2). Key 0 is allowed: a
 * separate flag marks used slots. Used for pid/tid/id lookups on hot paths.
 */
#ifndef SCORCH_HASH_H
#define SCORCH_HASH_H

#include <stddef.h>
#include <stdint.h>

struct hmap {
	uint64_t *keys;
	void **vals;
	uint8_t *used;
	size_t cap;
	size_t len;
};

void hmap_init(struct hmap *m);
void hmap_release(struct hmap *m);
/* hmap_release after calling destroy on every value (owned values). */
void hmap_release_vals(struct hmap *m, void (*destroy)(void *val));
void *hmap_get(const struct hmap *m, uint64_t key);
/* Insert or replace; returns the previous value or NULL. */
void *hmap_put(struct hmap *m, uint64_t key, void *val);
/* Remove; returns the removed value or NULL. */
void *hmap_del(struct hmap *m, uint64_t key);
/* Iterate: for (size_t i = 0; i < m->cap; i++) if (m->used[i]) ... */

static inline uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

uint64_t hash_bytes(const void *p, size_t n);

#endif
