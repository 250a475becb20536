/* hash.c: see hash.h. Deletion uses backward-shift so no tombstones. */
#include "util/hash.h"
#include "util/buf.h"
#include <stdlib.h>
#include <string.h>

void hmap_init(struct hmap *m)
{
	memset(m, 0, sizeof(*m));
}

void itab_grow(struct itab *t, size_t n, size_t from, size_t min_cap,
	       uint64_t (*hash)(const void *ctx, size_t i), const void *ctx)
{
	size_t ncap = t->cap ? t->cap * 2 : min_cap;
	uint32_t *s = xmalloc(ncap * sizeof(*s));
	memset(s, 0xff, ncap * sizeof(*s));
	struct itab nt = { s, ncap };
	for (size_t i = from; i < n; i++) {
		size_t j = itab_first(&nt, hash(ctx, i));
		while (s[j] != ITAB_EMPTY)
			j = itab_next(&nt, j);
		s[j] = (uint32_t)i;
	}
	free(t->slot);
	*t = nt;
}

void itab_release(struct itab *t)
{
	free(t->slot);
	t->slot = NULL;
	t->cap = 0;
}

void hmap_release_vals(struct hmap *m, void (*destroy)(void *val))
{
	for (size_t i = 0; i < m->cap; i++)
		if (hmap_used(m, i))
			destroy(m->slot[i].val);
	hmap_release(m);
}

void hmap_release(struct hmap *m)
{
	free(m->slot);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

static void set_used(struct hmap *m, size_t i, int on)
{
	uint64_t bit = (uint64_t)1 << (i & 63);
	if (on)
		m->used[i >> 6] |= bit;
	else
		m->used[i >> 6] &= ~bit;
}

static size_t find(const struct hmap *m, uint64_t key)
{
	size_t mask = m->cap - 1, i = hash_u64(key) & mask;
	while (hmap_used(m, i) && m->slot[i].key != key)
		i = (i + 1) & mask;
	return i;
}

void *hmap_get(const struct hmap *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	size_t i = find(m, key);
	return hmap_used(m, i) ? m->slot[i].val : NULL;
}

static void rehash(struct hmap *m, size_t ncap)
{
	struct hmap n = {
		.slot = xmalloc(ncap * sizeof(struct hmap_slot)),
		.used = xcalloc((ncap + 63) / 64, sizeof(uint64_t)),
		.cap = ncap,
	};
	for (size_t i = 0; i < m->cap; i++) {
		if (!hmap_used(m, i))
			continue;
		size_t j = find(&n, m->slot[i].key);
		set_used(&n, j, 1);
		n.slot[j] = m->slot[i];
		n.len++;
	}
	hmap_release(m);
	*m = n;
}

void *hmap_put(struct hmap *m, uint64_t key, void *val)
{
	if ((m->len + 1) * 2 > m->cap)
		rehash(m, m->cap ? m->cap * 2 : 64);
	size_t i = find(m, key);
	void *old = NULL;
	if (hmap_used(m, i)) {
		old = m->slot[i].val;
	} else {
		set_used(m, i, 1);
		m->slot[i].key = key;
		m->len++;
	}
	m->slot[i].val = val;
	return old;
}

void *hmap_del(struct hmap *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	size_t mask = m->cap - 1, i = find(m, key);
	if (!hmap_used(m, i))
		return NULL;
	void *old = m->slot[i].val;
	set_used(m, i, 0);
	m->len--;
	size_t j = i;
	for (;;) {
		j = (j + 1) & mask;
		if (!hmap_used(m, j))
			break;
		size_t home = hash_u64(m->slot[j].key) & mask;
		/* can slot j move to i? only if home is not in (i, j] cyclically */
		if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
			m->slot[i] = m->slot[j];
			set_used(m, i, 1);
			set_used(m, j, 0);
			i = j;
		}
	}
	return old;
}

uint64_t hash_bytes(const void *p, size_t n)
{
	const uint8_t *s = p;
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint64_t hash_mem(const void *p, size_t n)
{
	const uint8_t *s = p;
	uint64_t h = n, w;
	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = hash_u64(h ^ w);
	}
	if (n) {
		w = 0;
		memcpy(&w, s, n);
		h = hash_u64(h ^ w ^ 0x9e3779b97f4a7c15ULL);
	}
	return h;
}

void ptrset_init(struct ptrset *s)
{
	memset(s, 0, sizeof(*s));
	hmap_init(&s->m);
}

void ptrset_release(struct ptrset *s)
{
	hmap_release(&s->m);
}
