/* test_dwindex.c: the on-disk cache of DWARF indexes (src/analyze/cache/dwindex.c):
 * an image's entries found again, every refusal of a damaged image, and
 * storing through the cache directory (entries kept, added, replaced; the
 * identity of the file; the caches off). */
#include "analyze/cache/dwindex.h"
#include "test.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

static const uint64_t keys3[3] = { (uint64_t)DWINDEX_LINES << 56 | 16,
				   (uint64_t)DWINDEX_LINES << 56 | 4096,
				   (uint64_t)DWINDEX_FUNCS << 56 | 11 };

static uint8_t *image3(const struct cacheimg_id *id, size_t *size)
{
	static const char a[] = "first entry", b[] = "2nd", c[] = "the third entry, longest";
	const void *p[3] = { a, b, c };
	size_t sizes[3] = { sizeof a, sizeof b, sizeof c };
	return dwindex_image(id, 3, keys3, p, sizes, size);
}

TEST(dwindex_image_roundtrip_and_refusals)
{
	struct cacheimg_id id = { 1, 2, 3, 4, 5, 6, 7 }, other = id;
	other.ino = 99;
	size_t size;
	uint8_t *img = image3(&id, &size);
	CHECK(img != NULL && size % 8 == 0);
	uint64_t *buf = calloc(1, size + 64);
	memcpy(buf, img, size);
	struct dwindex *x = dwindex_over(&id, buf, size);
	CHECK(x != NULL);
	size_t n = 0;
	const char *e = dwindex_find(x, DWINDEX_LINES, 4096, &n);
	CHECK(e != NULL && (uintptr_t)e % 8 == 0);
	CHECK_EQ(n, 4);
	CHECK_STR(e, "2nd");
	e = dwindex_find(x, DWINDEX_FUNCS, 11, &n);
	CHECK(e != NULL);
	CHECK_STR(e, "the third entry, longest");
	e = dwindex_find(x, DWINDEX_LINES, 16, &n);
	CHECK(e != NULL);
	CHECK_STR(e, "first entry");
	CHECK(dwindex_find(x, DWINDEX_FUNCS, 16, &n) == NULL); /* another kind */
	CHECK(dwindex_find(x, DWINDEX_LINES, 17, &n) == NULL);
	CHECK(dwindex_find(x, DWINDEX_LINES, (uint64_t)1 << 56 | 16, &n) == NULL);
	dwindex_close(x); /* over a caller's image: stores nothing, frees x */
	/* refused: another file, cut short, longer than it says, misaligned */
	CHECK(dwindex_over(&other, buf, size) == NULL);
	CHECK(dwindex_over(&id, buf, size - 8) == NULL);
	CHECK(dwindex_over(&id, buf, size + 8) == NULL);
	memcpy((uint8_t *)buf + 4, img, size);
	CHECK(dwindex_over(&id, (uint8_t *)buf + 4, size) == NULL);
	/* the entries (after the 80-byte header, 24 bytes each: key, at,
	 * size): keys out of order, data misaligned, past the end, inside the
	 * entries */
	size_t ent = 80;
	for (int bad = 0; bad < 4; bad++) {
		memcpy(buf, img, size);
		uint64_t *f = (uint64_t *)((uint8_t *)buf + ent);
		switch (bad) {
		case 0: f[0] = f[3]; break;      /* key 0 = key 1 */
		case 1: f[4] += 1; break;        /* entry 1's data at an odd place */
		case 2: f[8] = size - 8; break;  /* entry 2: 25 bytes from size - 8 */
		case 3: f[1] = ent; break;       /* entry 0's data in the entries */
		}
		CHECK(dwindex_over(&id, buf, size) == NULL);
	}
	/* an image of keys out of order is not made */
	const void *p2[2] = { "a", "b" };
	size_t s2[2] = { 2, 2 }, sz;
	uint64_t k2[2] = { 5, 5 };
	CHECK(dwindex_image(&id, 2, k2, p2, s2, &sz) == NULL);
	free(buf);
	free(img);
}

static const char *entry(struct dwindex *x, enum dwindex_kind k, uint64_t off)
{
	size_t n;
	const char *e = dwindex_find(x, k, off, &n);
	return e && n && !e[n - 1] ? e : "(none)";
}

static void add(struct dwindex *x, enum dwindex_kind k, uint64_t off, const char *s)
{
	dwindex_add(x, k, off, strdup(s), strlen(s) + 1);
}

TEST(dwindex_store_keep_add_replace)
{
	char dir[] = "/tmp/scorch-dwindex-XXXXXX";
	test_cache_begin(dir);
	int fd = test_cache_file(dir, "debugfile");
	struct dwindex *x = dwindex_open(fd);
	CHECK(x != NULL);
	CHECK_STR(entry(x, DWINDEX_LINES, 100), "(none)"); /* nothing stored yet */
	add(x, DWINDEX_LINES, 100, "lines at 100");
	add(x, DWINDEX_FUNCS, 100, "funcs at 100");
	dwindex_close(x);
	x = dwindex_open(fd);
	CHECK_STR(entry(x, DWINDEX_LINES, 100), "lines at 100");
	CHECK_STR(entry(x, DWINDEX_FUNCS, 100), "funcs at 100");
	/* a run adds one and replaces one: the others are kept */
	add(x, DWINDEX_LINES, 50, "lines at 50");
	add(x, DWINDEX_FUNCS, 100, "funcs at 100, again");
	dwindex_close(x);
	x = dwindex_open(fd);
	CHECK_STR(entry(x, DWINDEX_LINES, 50), "lines at 50");
	CHECK_STR(entry(x, DWINDEX_LINES, 100), "lines at 100");
	CHECK_STR(entry(x, DWINDEX_FUNCS, 100), "funcs at 100, again");
	dwindex_close(x);
	/* off: no dwindex at all */
	test_cache_off(true);
	CHECK(dwindex_open(fd) == NULL);
	test_cache_off(false);
	/* the file changed: its entries are gone (the image is another
	 * file's), and what this run adds replaces the image */
	CHECK_EQ(write(fd, "y", 1), 1);
	x = dwindex_open(fd);
	CHECK(x != NULL);
	CHECK_STR(entry(x, DWINDEX_LINES, 100), "(none)");
	add(x, DWINDEX_LINES, 7, "new");
	dwindex_close(x);
	x = dwindex_open(fd);
	CHECK_STR(entry(x, DWINDEX_LINES, 7), "new");
	CHECK_STR(entry(x, DWINDEX_LINES, 100), "(none)");
	dwindex_close(x);
	/* not a regular file: none */
	CHECK(dwindex_open(-1) == NULL);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(dwindex_open(dfd) == NULL);
	close(dfd);
	close(fd);
	test_cache_end(dir);
}

/* Two writers that opened the same image (two threads of a `-j 2` run):
 * the one that stores second keeps the first one's entries as well (the
 * last rename no longer drops them), ours where both made one; and
 * dwindex_refresh gives a caller the image stored since it opened its own. */
TEST(dwindex_store_merges_a_newer_image)
{
	char dir[] = "/tmp/scorch-dwindex-XXXXXX";
	test_cache_begin(dir);
	int fd = test_cache_file(dir, "debugfile");
	struct dwindex *x = dwindex_open(fd);
	add(x, DWINDEX_LINES, 1, "kept");
	dwindex_close(x);
	struct dwindex *a = dwindex_open(fd), *b = dwindex_open(fd), *c = dwindex_open(fd);
	struct dwindex *was = a;
	CHECK(!dwindex_refresh(&a)); /* nothing stored since */
	CHECK(a == was);
	add(a, DWINDEX_LINES, 10, "a's");
	add(a, DWINDEX_FUNCS, 5, "both: a's");
	add(b, DWINDEX_LINES, 20, "b's");
	add(b, DWINDEX_FUNCS, 5, "both: b's");
	dwindex_close(a);
	CHECK_STR(entry(c, DWINDEX_LINES, 10), "(none)");
	add(c, DWINDEX_LINES, 40, "c's"); /* carried to the newer image, stored from there */
	CHECK(dwindex_refresh(&c));
	CHECK_STR(entry(c, DWINDEX_LINES, 10), "a's");
	dwindex_close(c);
	dwindex_close(b);
	x = dwindex_open(fd);
	CHECK_STR(entry(x, DWINDEX_LINES, 1), "kept");
	CHECK_STR(entry(x, DWINDEX_LINES, 10), "a's");
	CHECK_STR(entry(x, DWINDEX_LINES, 20), "b's");
	CHECK_STR(entry(x, DWINDEX_FUNCS, 5), "both: b's");
	CHECK_STR(entry(x, DWINDEX_LINES, 40), "c's");
	CHECK(!dwindex_refresh(&x));
	/* stored now, and forgotten: closing stores nothing more */
	add(x, DWINDEX_LINES, 30, "now");
	dwindex_store_now(x);
	struct dwindex *y = dwindex_open(fd);
	CHECK_STR(entry(y, DWINDEX_LINES, 30), "now");
	dwindex_close(y);
	dwindex_close(x);
	close(fd);
	test_cache_end(dir);
}
