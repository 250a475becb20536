/* amap.c: see amap.h. Linear probing; nothing is ever deleted. */
#include "util/amap.h"
#include "util/xalloc.h"

#include <string.h>

void amap_init(struct amap *m)
{
	memset(m, 0, sizeof(*m));
	hmap_init(&m->big);
}

void amap_release(struct amap *m)
{
	free(m->slot);
	hmap_release(&m->big);
	memset(m, 0, sizeof(*m));
}

static void grow(struct amap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 256;
	uint64_t *n = xmalloc(ncap * sizeof(*n));
	memset(n, 0xff, ncap * sizeof(*n));
	for (size_t i = 0; i < m->cap; i++)
		if (m->slot[i] != UINT64_MAX)
			n[amap_probe(n, ncap, m->slot[i] >> 32)] = m->slot[i];
	free(m->slot);
	m->slot = n;
	m->cap = ncap;
}

void amap_put(struct amap *m, uint64_t key, uint32_t val)
{
	if (val == AMAP_NONE)
		return;
	if (key >= UINT32_MAX) {
		hmap_put(&m->big, key, (void *)((uintptr_t)val + 1));
		return;
	}
	if ((m->len + 1) * 4 > m->cap * 3)
		grow(m);
	size_t i = amap_probe(m->slot, m->cap, key);
	m->len += m->slot[i] == UINT64_MAX;
	m->slot[i] = key << 32 | val;
}

size_t amap_len(const struct amap *m)
{
	return m->len + m->big.len;
}

size_t amap_bytes(const struct amap *m)
{
	return m->cap * sizeof(*m->slot) + m->big.cap * sizeof(struct hmap_slot) +
	       (m->big.cap + 63) / 64 * sizeof(uint64_t);
}
