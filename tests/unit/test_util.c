/* test_util.c: hash map, address map, index table, binary search, buffer caps. */
#include "test.h"
#include "util/cachedir.h"
#include "util/amap.h"
#include "util/bsearch.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/fmt.h"
#include "util/hugeheap.h"
#include "util/ksort.h"
#include "util/xalloc.h"
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

TEST(hmap_put_get_del)
{
	struct hmap m;
	hmap_init(&m);
	for (uint64_t i = 0; i < 5000; i++)
		hmap_put(&m, i * 7, (void *)(uintptr_t)(i + 1));
	CHECK_EQ(m.len, 5000);
	for (uint64_t i = 0; i < 5000; i += 2)
		CHECK_EQ((uintptr_t)hmap_del(&m, i * 7), i + 1);
	for (uint64_t i = 0; i < 5000; i++)
		CHECK_EQ((uintptr_t)hmap_get(&m, i * 7), i % 2 ? i + 1 : 0);
	CHECK(hmap_get(&m, 3) == NULL);
	hmap_release(&m);
}

/* The address map against a plain hash map as the model: 32-bit keys in
 * the packed table (key 0, clustered keys, replacement, growth), the keys
 * that go beside it (0xffffffff, the empty mark's key, and wider ones),
 * and every value but AMAP_NONE. */
TEST(amap_against_model)
{
	struct amap m;
	struct hmap model;
	amap_init(&m);
	hmap_init(&model);
	CHECK_EQ(amap_get(&m, 0), AMAP_NONE);
	CHECK_EQ(amap_get(&m, UINT64_MAX), AMAP_NONE);
	uint64_t x = 88172645463325252ULL;
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t key;
		switch (i % 5) {
		case 0: key = x & 0xffff; break;             /* clustered, replaced often */
		case 1: key = 0x400000 + (uint64_t)i * 4; break; /* code addresses in a row */
		case 2: key = x & 0xffffffffULL; break;      /* includes 0xffffffff rarely */
		case 3: key = (x % 7 == 0) ? 0xffffffffULL : UINT32_MAX - 1 - (x & 3); break;
		default: key = x; break;                     /* wide keys */
		}
		uint32_t val = (uint32_t)(x >> 20);
		if (val == AMAP_NONE)
			val = 0;
		amap_put(&m, key, val);
		hmap_put(&model, key, (void *)((uintptr_t)val + 1));
	}
	amap_put(&m, 0, 0);
	hmap_put(&model, 0, (void *)1);
	amap_put(&m, 12345, AMAP_NONE); /* refused: the absent value */
	CHECK_EQ(amap_len(&m), model.len);
	size_t seen = 0;
	for (size_t i = 0; i < model.cap; i++) {
		if (!hmap_used(&model, i))
			continue;
		seen++;
		CHECK_EQ(amap_get(&m, model.slot[i].key), (uint32_t)((uintptr_t)model.slot[i].val - 1));
	}
	CHECK_EQ(seen, amap_len(&m));
	if (!hmap_get(&model, 12345))
		CHECK_EQ(amap_get(&m, 12345), AMAP_NONE);
	CHECK(m.len * 4 <= m.cap * 3);
	CHECK(amap_bytes(&m) >= m.cap * 8);
	/* absent keys next to present ones */
	for (uint64_t k = 0x400000; k < 0x400000 + 4000; k++)
		if (!hmap_get(&model, k))
			CHECK_EQ(amap_get(&m, k), AMAP_NONE);
	amap_release(&m);
	hmap_release(&model);
	CHECK_EQ(amap_get(&m, 5), AMAP_NONE); /* released: empty again */
}

/* The used bitmap across word edges, key 0, and backward-shift deletion
 * wrapping around the end of a small table: iteration sees exactly the
 * live entries. */
TEST(hmap_bitmap_iteration_and_wrap)
{
	struct hmap m;
	hmap_init(&m);
	for (uint64_t i = 0; i < 31; i++) /* cap 64: a slot in every word */
		hmap_put(&m, i * 0x9e3779b97f4a7c15ULL, (void *)(uintptr_t)(i + 1));
	CHECK_EQ(m.cap, 64);
	for (uint64_t i = 0; i < 31; i += 3)
		CHECK_EQ((uintptr_t)hmap_del(&m, i * 0x9e3779b97f4a7c15ULL), i + 1);
	size_t live = 0;
	uintptr_t sum = 0;
	for (size_t i = 0; i < m.cap; i++)
		if (hmap_used(&m, i)) {
			live++;
			sum += (uintptr_t)m.slot[i].val;
		}
	CHECK_EQ(live, m.len);
	uintptr_t want = 0;
	for (uint64_t i = 0; i < 31; i++)
		if (i % 3)
			want += i + 1;
	CHECK_EQ(sum, want);
	CHECK_EQ((uintptr_t)hmap_get(&m, 0), 0); /* key 0 (i = 0) was deleted */
	hmap_put(&m, 0, (void *)7);
	CHECK_EQ((uintptr_t)hmap_get(&m, 0), 7);
	for (uint64_t i = 1; i < 31; i++)
		CHECK_EQ((uintptr_t)hmap_get(&m, i * 0x9e3779b97f4a7c15ULL), i % 3 ? i + 1 : 0);
	hmap_release(&m);
}

static long anon_huge_kb(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	long kb = -1;
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "AnonHugePages:", 14))
			kb = strtol(line + 14, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

/* After hugeheap_init, heap memory touched after a tick is huge pages
 * (when the kernel allows them, and the allocator is glibc's). */
TEST(hugeheap_heap_gets_huge_pages)
{
	hugeheap_init();
	hugeheap_init(); /* twice: no harm */
	size_t n = 24u << 20;
	char *p = malloc(n);
	CHECK(p != NULL);
	hugeheap_tick();
	long before = anon_huge_kb();
	memset(p, 1, n);
	long after = anon_huge_kb();
#if defined(__SANITIZE_ADDRESS__)
	(void)before;
	(void)after; /* the sanitizer's allocator: no brk heap to advise */
#else
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char mode[128] = "";
	if (f) {
		if (!fgets(mode, sizeof mode, f))
			mode[0] = 0;
		fclose(f);
	}
	if (strstr(mode, "[madvise]") || strstr(mode, "[always]"))
		CHECK(after >= before + 2048);
#endif
	free(p);
	hugeheap_tick();
}

TEST(buf_cap_refuses_hostile_length)
{
	struct buf b;
	buf_init(&b, 1024);
	CHECK_EQ(buf_reserve(&b, 1000), 0);
	CHECK_EQ(buf_reserve(&b, 2000), -E2BIG);
	CHECK_EQ(buf_reserve(&b, SIZE_MAX), -E2BIG);
	CHECK_EQ(buf_append(&b, "abcd", 4), 0);
	buf_consume(&b, 2);
	CHECK_EQ(b.len, 2);
	CHECK(b.data[0] == 'c');
	buf_release(&b);
}

/* itab: elements found by full key, including under colliding hashes. */
static const char *itab_keys[3000];
static uint64_t itab_test_hash(const char *s)
{
	return hash_bytes(s, 2); /* deliberately weak: many collisions */
}
static uint64_t itab_hash_at(const void *ctx, size_t i)
{
	return itab_test_hash(((const char *const *)ctx)[i]);
}

TEST(itab_index_table)
{
	static char names[3000][16];
	struct itab t = { 0 };
	size_t n = 0;
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 3000; i++) {
			snprintf(names[i], sizeof names[i], "k%d", i);
			itab_reserve(&t, n, 0, 16, itab_hash_at, itab_keys);
			size_t j, found = SIZE_MAX;
			for (j = itab_first(&t, itab_test_hash(names[i])); t.slot[j] != ITAB_EMPTY;
			     j = itab_next(&t, j))
				if (!strcmp(itab_keys[t.slot[j]], names[i]))
					found = t.slot[j];
			if (round == 0) {
				CHECK(found == SIZE_MAX);
				itab_keys[n] = names[i];
				t.slot[j] = (uint32_t)n++;
			} else {
				CHECK_EQ(found, (size_t)i);
			}
		}
	CHECK(t.cap >= 2 * n);
	itab_release(&t);
	CHECK(t.slot == NULL && t.cap == 0);
}

static int freed;
static void count_free(void *v)
{
	freed += v != NULL;
	free(v);
}

TEST(hmap_release_vals_and_bsearch)
{
	struct hmap m;
	hmap_init(&m);
	for (uint64_t i = 0; i < 100; i++)
		hmap_put(&m, i, malloc(8));
	hmap_release_vals(&m, count_free);
	CHECK_EQ(freed, 100);
	struct { uint32_t pad; uint64_t key; } a[] = { { 0, 10 }, { 0, 20 }, { 0, 20 }, { 0, 30 } };
	CHECK_EQ(UPPER_BOUND(a, 4, key, 5), 0);
	CHECK_EQ(UPPER_BOUND(a, 4, key, 10), 1);
	CHECK_EQ(UPPER_BOUND(a, 4, key, 20), 3);
	CHECK_EQ(UPPER_BOUND(a, 4, key, 29), 3);
	CHECK_EQ(UPPER_BOUND(a, 4, key, UINT64_MAX), 4);
	CHECK_EQ(UPPER_BOUND(a, 0, key, 10), 0);
}

struct ks_rec {
	uint32_t tag;
	uint64_t key;
	uint32_t seq;
};

static int ks_cmp(const void *a, const void *b)
{
	const struct ks_rec *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* ksort_u64 leaves what qsort leaves: random keys (few distinct bytes, full
 * 64-bit, with ties), sorted input, ties whose seq is not in array order
 * (the fallback), and tiny arrays. */
TEST(ksort_matches_qsort)
{
	uint64_t rnd = 88172645463325252ULL;
	for (int round = 0; round < 40; round++) {
		size_t n = round < 5 ? (size_t)round : 50 + (size_t)round * 97;
		struct ks_rec *a = calloc(n ? n : 1, sizeof *a), *b = calloc(n ? n : 1, sizeof *b);
		for (size_t i = 0; i < n; i++) {
			rnd ^= rnd << 13, rnd ^= rnd >> 7, rnd ^= rnd << 17;
			uint64_t k = round % 4 == 0 ? rnd : round % 4 == 1 ? 0xffffffff81000000ULL + (rnd % 5000) * 16
				   : round % 4 == 2 ? i * 3 : rnd % 37;
			a[i] = (struct ks_rec){ (uint32_t)i, k, round % 5 == 3 ? (uint32_t)(n - i) : (uint32_t)i };
		}
		memcpy(b, a, n * sizeof *a);
		ksort_u64(a, n, sizeof *a, offsetof(struct ks_rec, key), ks_cmp);
		if (n)
			qsort(b, n, sizeof *b, ks_cmp);
		CHECK(n == 0 || memcmp(a, b, n * sizeof *a) == 0);
		free(a);
		free(b);
	}
}

/* (SCORCH_CACHE_MAX's sizes are parse_size's: test_parse.c) */
TEST(cachedir_max_configured)
{
	struct cachedir_config c = *cachedir_config();
	c.max = 12345;
	cachedir_configure(&c);
	CHECK_EQ(cachedir_max(), 12345);
}

/* fmt.h's numbers are printf's, digit for digit, at every length and width */
TEST(fmt_numbers_as_printf)
{
	uint64_t vals[200];
	size_t nv = 0;
	vals[nv++] = 0;
	for (int b = 0; b < 64; b++) {
		vals[nv++] = 1ull << b;
		vals[nv++] = (1ull << b) - 1 + (b ? 0 : 1);
		vals[nv++] = ((1ull << b) | 0xa5a5a5a5a5a5a5a5ull) >> (63 - b);
	}
	vals[nv++] = UINT64_MAX;
	vals[nv++] = 0xfedcba9876543210ull;
	vals[nv++] = 999999;
	vals[nv++] = 1000000;
	char want[64], got[64 + FMT_ROOM];
	int bad = 0;
	for (size_t i = 0; i < nv; i++) {
		for (int w = 0; w <= 20; w++) {
			if (w <= 16) {
				memset(got, 'x', sizeof got);
				int n = fmt_hex(got, vals[i], w);
				snprintf(want, sizeof want, "%*llx", w, (unsigned long long)vals[i]);
				bad += n != (int)strlen(want) || memcmp(got, want, strlen(want));
			}
			memset(got, 'x', sizeof got);
			int n = fmt_dec(got, vals[i], w, 0);
			snprintf(want, sizeof want, "%*llu", w, (unsigned long long)vals[i]);
			bad += n != (int)strlen(want) || memcmp(got, want, strlen(want));
			n = fmt_dec(got, vals[i], w, 1);
			snprintf(want, sizeof want, "%0*llu", w, (unsigned long long)vals[i]);
			bad += n != (int)strlen(want) || memcmp(got, want, strlen(want));
			int64_t sv[3] = { (int64_t)vals[i], -(int64_t)(vals[i] >> 1), INT64_MIN };
			for (int j = 0; j < 3; j++) {
				n = fmt_sdec(got, sv[j], w);
				snprintf(want, sizeof want, "%*lld", w, (long long)sv[j]);
				bad += n != (int)strlen(want) || memcmp(got, want, strlen(want));
			}
		}
	}
	CHECK_EQ(bad, 0);
	/* pseudo-random values */
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 100000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint64_t v = x >> (x & 63);
		int w = (int)(x >> 58) % 17;
		int n = fmt_hex(got, v, w);
		snprintf(want, sizeof want, "%*llx", w, (unsigned long long)v);
		bad += n != (int)strlen(want) || memcmp(got, want, strlen(want));
		n = fmt_dec(got, v, w, (int)(x & 1));
		snprintf(want, sizeof want, x & 1 ? "%0*llu" : "%*llu", w, (unsigned long long)v);
		bad += n != (int)strlen(want) || memcmp(got, want, strlen(want));
	}
	CHECK_EQ(bad, 0);
}

/* ptrset_put says "new" once per pointer, whatever the order and however
 * many share a recent slot */
TEST(ptrset_once_per_pointer)
{
	static char objs[1000];
	struct ptrset s;
	ptrset_init(&s);
	int news = 0, bad = 0;
	uint64_t x = 88172645463325252ull;
	for (int round = 0; round < 20000; round++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		const char *p = &objs[x % 1000];
		bool had = hmap_get(&s.m, (uint64_t)(uintptr_t)p) != NULL;
		int n = ptrset_put(&s, p);
		bad += n == had;
		news += n;
		bad += ptrset_put(&s, p) != 0; /* again at once: the last one */
	}
	CHECK_EQ(bad, 0);
	CHECK(news > 900 && news <= 1000);
	ptrset_release(&s);
}

/* Input-sized blocks: over the cap refused (NULL, the caller's error), the
 * block kept when a growth is refused; aligned blocks zeroed. */
TEST(xalloc_input_caps_and_aligned)
{
	CHECK(xmalloc_input(4097, 4096) == NULL);
	char *p = xmalloc_input(16, 4096);
	CHECK(p != NULL);
	memcpy(p, "0123456789abcde", 16);
	CHECK(xrealloc_input(p, 8192, 4096) == NULL);
	CHECK(!memcmp(p, "0123456789abcde", 16));
	char *q = xrealloc_input(p, 4096, 4096);
	CHECK(q != NULL);
	CHECK(!memcmp(q, "0123456789abcde", 16));
	free(q);
	unsigned char *a = xaligned_calloc(64, 200);
	CHECK(((uintptr_t)a & 63) == 0);
	for (int i = 0; i < 200; i++)
		CHECK_EQ(a[i], 0);
	free(a);
}
