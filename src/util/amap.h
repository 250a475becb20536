/*
 * amap.h: a compact map from addresses to 32-bit values, for the caches
 * that hold one entry per distinct code address (the unwinder's CFI rule per
 * address, the inline frames per address). On a long recording of big
 * binaries those are the tables that grow with the file: a struct hmap slot
 * is 16 bytes at load <= 1/2 (32-64 bytes an entry, plus a bitmap to read
 * first); an amap slot is the key's low 32 bits and the value packed in 8
 * bytes at load <= 3/4 (11-21 bytes an entry), and a lookup reads one slot.
 *
 * Keys that do not fit 32 bits (and the one key 0xffffffff, which marks an
 * empty slot) go to a struct hmap beside it, so any uint64_t key works.
 * Values are what the caller makes of them (an index into its own array,
 * a code); AMAP_NONE is "absent" and cannot be stored.
 */
#ifndef SCORCH_AMAP_H
#define SCORCH_AMAP_H

#include "util/hash.h"

#include <stddef.h>
#include <stdint.h>

#define AMAP_NONE UINT32_MAX

struct amap {
	uint64_t *slot; /* key << 32 | value; all ones: empty */
	size_t cap;     /* 0 or a power of two */
	size_t len;     /* entries in slot[] */
	struct hmap big; /* keys >= 0xffffffff: value + 1 as the pointer */
};

void amap_init(struct amap *m);
void amap_release(struct amap *m);
/* The index of the slot holding the 32-bit key, else of the empty slot
 * where it would go (cap > 0, and never full). */
static inline size_t amap_probe(const uint64_t *slot, size_t cap, uint64_t key)
{
	size_t mask = cap - 1, i = hash_u64(key) & mask;
	while (slot[i] != UINT64_MAX && slot[i] >> 32 != key)
		i = (i + 1) & mask;
	return i;
}
/* The value stored for key, or AMAP_NONE. */
static inline uint32_t amap_get(const struct amap *m, uint64_t key)
{
	if (key >= UINT32_MAX) {
		void *v = hmap_get(&m->big, key);
		return v ? (uint32_t)((uintptr_t)v - 1) : AMAP_NONE;
	}
	if (!m->cap)
		return AMAP_NONE;
	uint64_t s = m->slot[amap_probe(m->slot, m->cap, key)];
	return s == UINT64_MAX ? AMAP_NONE : (uint32_t)s;
}
/* Insert or replace (val != AMAP_NONE). */
void amap_put(struct amap *m, uint64_t key, uint32_t val);
/* Entries and the bytes held, for statistics and tests. */
size_t amap_len(const struct amap *m);
size_t amap_bytes(const struct amap *m);

#endif
