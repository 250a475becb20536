/* test_namecache.c: demangled names kept across runs
 * (src/analyze/cache/namecache.c): an entry's names found again by their mangled
 * names, each refusal, every byte of an entry changed in turn (refused, or
 * every name found inside it and NUL-terminated: ASan), and storing through
 * the cache directory (kept names and a run's new ones merged; the file's
 * identity; the caches off). */
#include "analyze/cache/namecache.h"
#include "test.h"
#include "util/hash.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *mangled[3] = { "_ZN3app6detail4workEm", "_ZN3app3runEv", "_Z1fv" };
static const char *demangled[3] = { "app::detail::work", "app::run", "f" };

static uint64_t h(const char *s)
{
	return hash_bytes(s, strlen(s));
}

/* The entry of the three names (sorted by hash, as close writes them). */
static uint8_t *entry3(size_t *size)
{
	uint64_t hs[3];
	const char *ns[3];
	int order[3] = { 0, 1, 2 };
	for (int i = 0; i < 3; i++)
		for (int j = i + 1; j < 3; j++)
			if (h(mangled[order[j]]) < h(mangled[order[i]])) {
				int t = order[i];
				order[i] = order[j];
				order[j] = t;
			}
	for (int i = 0; i < 3; i++) {
		hs[i] = h(mangled[order[i]]);
		ns[i] = demangled[order[i]];
	}
	return namecache_entry(3, hs, ns, size);
}

TEST(namecache_entry_roundtrip_and_refusals)
{
	size_t size;
	uint8_t *e = entry3(&size);
	CHECK(e != NULL && size % 8 == 0);
	struct namecache *c = namecache_over(e, size);
	CHECK(c != NULL);
	for (int i = 0; i < 3; i++)
		CHECK_STR(namecache_find(c, mangled[i]), demangled[i]);
	CHECK(namecache_find(c, "_Z4mainv") == NULL);
	namecache_close(c);
	/* out of order, cut short, grown, unaligned: refused */
	uint64_t two[2] = { 5, 5 };
	const char *nm[2] = { "a", "b" };
	size_t s2;
	CHECK(namecache_entry(2, two, nm, &s2) == NULL);
	CHECK(namecache_over(e, size - 8) == NULL);
	CHECK(namecache_over(e, 8) == NULL);
	uint8_t *big = calloc(1, size + 16);
	memcpy(big + 8, e, size);
	CHECK(namecache_over(big + 8, size + 8) == NULL);
	CHECK(namecache_over(big + 4, size) == NULL);
	free(big);
	/* every byte changed in turn */
	int accepted = 0;
	for (size_t i = 0; i < size; i++) {
		uint8_t old = e[i];
		e[i] ^= 0x24;
		c = namecache_over(e, size);
		if (c) {
			accepted++;
			for (int k = 0; k < 3; k++) {
				const char *n = namecache_find(c, mangled[k]);
				CHECK(!n || ((const uint8_t *)n >= e && (const uint8_t *)n + strlen(n) < e + size));
			}
			namecache_close(c);
		}
		e[i] = old;
	}
	CHECK(accepted > 0); /* a name's letters changed: still an entry */
	free(e);
}

TEST(namecache_store_keep_and_add)
{
	char dir[] = "/tmp/scorch-namecache-XXXXXX";
	test_cache_begin(dir);
	int fd = test_cache_file(dir, "binary");
	struct namecache *c = namecache_open(fd);
	CHECK(c != NULL);
	CHECK(namecache_find(c, mangled[0]) == NULL);
	namecache_note(c, mangled[0], demangled[0]);
	namecache_note(c, mangled[1], demangled[1]);
	namecache_close(c);
	c = namecache_open(fd);
	CHECK_STR(namecache_find(c, mangled[0]), demangled[0]);
	CHECK_STR(namecache_find(c, mangled[1]), demangled[1]);
	CHECK(namecache_find(c, mangled[2]) == NULL);
	/* a later run adds one: all three kept */
	namecache_note(c, mangled[2], demangled[2]);
	namecache_close(c);
	c = namecache_open(fd);
	for (int i = 0; i < 3; i++)
		CHECK_STR(namecache_find(c, mangled[i]), demangled[i]);
	namecache_close(c);
	/* the file changed: none kept */
	CHECK_EQ(write(fd, "y", 1), 1);
	c = namecache_open(fd);
	CHECK(c != NULL && namecache_find(c, mangled[0]) == NULL);
	namecache_close(c);
	/* off: none at all */
	test_cache_off(true);
	CHECK(namecache_open(fd) == NULL);
	test_cache_off(false);
	CHECK(namecache_find(NULL, mangled[0]) == NULL);
	namecache_note(NULL, mangled[0], demangled[0]);
	close(fd);
	test_cache_end(dir);
}
