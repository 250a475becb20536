/* test_symtab.c: symbol tables built perf's way (src/analyze/symbols/symtab.c). */
#include "analyze/symbols/symtab.h"
#include "test.h"
#include "util/cachedir.h"

#include <gelf.h>

static void add(struct rawsyms *r, uint64_t start, uint64_t size, const char *name, uint8_t bind)
{
	struct rawsym *y = rawsyms_push(r);
	y->start = start;
	y->size = size;
	y->name = name;
	y->bind = bind;
}

TEST(symtab_perf_alias_choice)
{
	struct rawsyms r = { 0 };
	add(&r, 0x100, 0, "unsized", STB_GLOBAL);
	add(&r, 0x100, 8, "sized", STB_LOCAL);       /* sized over unsized */
	add(&r, 0x200, 8, "weak", STB_WEAK);
	add(&r, 0x200, 8, "local", STB_LOCAL);       /* non-weak over weak */
	add(&r, 0x300, 8, "loc", STB_LOCAL);
	add(&r, 0x300, 8, "glob", STB_GLOBAL);       /* global over local */
	add(&r, 0x400, 8, "__under", STB_GLOBAL);
	add(&r, 0x400, 8, "under", STB_GLOBAL);      /* fewer underscores */
	add(&r, 0x500, 8, "short", STB_GLOBAL);
	add(&r, 0x500, 8, "longer", STB_GLOBAL);     /* longer name */
	add(&r, 0x580, 8, "_Z3fooIaEvv", STB_GLOBAL);  /* foo<signed char>: as long mangled, */
	add(&r, 0x580, 8, "_Z3fooItEvv", STB_GLOBAL);  /* foo<unsigned short>: longer demangled */
	add(&r, 0x600, 8, "first", STB_GLOBAL);
	add(&r, 0x600, 8, "other", STB_GLOBAL);      /* then the first */
	add(&r, 0x700, 0, "to_next", STB_GLOBAL);    /* unsized: to the next */
	add(&r, 0x780, 0, "last", STB_GLOBAL);       /* last unsized: page end */
	struct symtab t;
	symtab_build(&t, r.v, r.n);
	free(r.v);
	CHECK_EQ(t.nr, 9);
	CHECK_STR(symtab_find(&t, 0x100)->name, "sized");
	CHECK_STR(symtab_find(&t, 0x200)->name, "local");
	CHECK_STR(symtab_find(&t, 0x300)->name, "glob");
	CHECK_STR(symtab_find(&t, 0x400)->name, "under");
	CHECK_STR(symtab_find(&t, 0x500)->name, "longer");
	CHECK_STR(symtab_find(&t, 0x580)->name, "_Z3fooItEvv");
	CHECK_STR(symtab_find(&t, 0x600)->name, "first");
	CHECK_STR(symtab_find(&t, 0x77f)->name, "to_next");
	CHECK_STR(symtab_find(&t, 0xfff)->name, "last");
	CHECK(symtab_find(&t, 0x1000) == NULL);
	CHECK(symtab_find(&t, 0x108) == NULL);
	CHECK(symtab_find(&t, 0xff) == NULL);
	symtab_release(&t);
}

TEST(symtab_enclosing_symbol)
{
	/* a large symbol enclosing later small ones still covers the gaps */
	struct rawsyms r = { 0 };
	add(&r, 0x1000, 0x1000, "big", STB_GLOBAL);
	add(&r, 0x1100, 0x10, "small", STB_GLOBAL);
	struct symtab t;
	symtab_build(&t, r.v, r.n);
	free(r.v);
	CHECK_STR(symtab_find(&t, 0x1105)->name, "small");
	CHECK_STR(symtab_find(&t, 0x1200)->name, "big");
	symtab_release(&t);
	struct symtab empty = { 0 };
	CHECK(symtab_find(&empty, 0) == NULL);
	CHECK(symtab_find(NULL, 0) == NULL);
}

/* ---- the cached image of a DSO's table (src/analyze/cache/symcache.c) ---- */

#include "analyze/cache/symcache.h"
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <unistd.h>

static void table_of(struct symtab *t, size_t n, char names[][16])
{
	struct rawsyms r = { 0 };
	for (size_t i = 0; i < n; i++) {
		snprintf(names[i], 16, "f%zu", i * 7919 % 100003);
		/* every third unsized: extended to the next */
		add(&r, 0x1000 + 0x40 * i, i % 3 ? 0x30 : 0, names[i], STB_GLOBAL);
	}
	symtab_build(t, r.v, r.n);
	free(r.v);
}

TEST(symcache_image_roundtrip_and_refusals)
{
	static char names[3000][16];
	struct symtab t;
	table_of(&t, 3000, names);
	struct symcache_id id = { .bin = { .dev = 8, .ino = 1234, .size = 99 }, .version = 1 };
	size_t size;
	uint8_t *img = symcache_image(&t, &id, &size);
	CHECK(img != NULL);
	struct symtab c;
	CHECK_EQ(symcache_parse(&c, img, size, &id), 0);
	CHECK_EQ(c.nr, t.nr);
	for (size_t i = 0; i < t.nr; i++) {
		CHECK_EQ(c.syms[i].start, t.syms[i].start);
		CHECK_EQ(c.syms[i].end, t.syms[i].end);
		CHECK_STR(c.syms[i].name, t.syms[i].name);
		CHECK(!c.syms[i].demangled);
	}
	for (uint64_t a = 0xff0; a < 0x1000 + 0x40 * 3000 + 0x1010; a += 7) {
		const struct sym *p = symtab_find(&t, a), *q = symtab_find(&c, a);
		CHECK((p == NULL) == (q == NULL));
		if (p)
			CHECK_STR(p->name, q->name);
	}
	symtab_release(&c);
	/* refused: another identity (each field of either file, the version) */
	struct symcache_id other = id;
	other.dbg.ino = 1;
	CHECK_EQ(symcache_parse(&c, img, size, &other), -1);
	other = id;
	other.bin.mtime_ns = 1;
	CHECK_EQ(symcache_parse(&c, img, size, &other), -1);
	other = id;
	other.version = 2;
	CHECK_EQ(symcache_parse(&c, img, size, &other), -1);
	/* cut short, one byte more, names not ending in a NUL */
	CHECK_EQ(symcache_parse(&c, img, size - 1, &id), -1);
	uint8_t *big = malloc(size + 1);
	memcpy(big, img, size);
	big[size] = 0;
	CHECK_EQ(symcache_parse(&c, big, size + 1, &id), -1);
	free(big);
	img[size - 1] = 'x';
	CHECK_EQ(symcache_parse(&c, img, size, &id), -1);
	img[size - 1] = 0;
	/* a name offset past the names; starts out of order */
	size_t hdr = 8 + sizeof id + 16, n = t.nr;
	uint32_t off, bad = 0x7fffffff;
	memcpy(&off, img + hdr + 16 * n + 4 * 5, 4);
	memcpy(img + hdr + 16 * n + 4 * 5, &bad, 4);
	CHECK_EQ(symcache_parse(&c, img, size, &id), -1);
	memcpy(img + hdr + 16 * n + 4 * 5, &off, 4);
	uint64_t s5, s6;
	memcpy(&s5, img + hdr + 8 * 5, 8);
	memcpy(&s6, img + hdr + 8 * 6, 8);
	memcpy(img + hdr + 8 * 5, &s6, 8);
	CHECK_EQ(symcache_parse(&c, img, size, &id), -1);
	memcpy(img + hdr + 8 * 5, &s5, 8);
	CHECK_EQ(symcache_parse(&c, img, size, &id), 0); /* whole again */
	symtab_release(&c);
	free(img);
	/* a table whose names were demangled already is not stored */
	t.syms[10].demangled = true;
	CHECK(symcache_image(&t, &id, &size) == NULL);
	symtab_release(&t);
}

TEST(symcache_store_load_and_identity)
{
	char dir[] = "/tmp/scorch-symcache-XXXXXX";
	test_cache_begin(dir);
	int fd = test_cache_file(dir, "bin");
	struct symcache_id id;
	CHECK(symcache_id_of(fd, -1, &id));
	struct symcache_id none;
	CHECK(!symcache_id_of(-1, -1, &none));
	CHECK(symcache_id_of(fd, -1, &id));
	id.version = 1;
	static char names[2000][16];
	struct symtab t, c;
	table_of(&t, 2000, names);
	void *map = NULL;
	CHECK_EQ(symcache_load(&c, &id, &map), -1); /* nothing stored yet */
	symcache_store(&t, &id);
	CHECK_EQ(symcache_load(&c, &id, &map), 0);
	CHECK_EQ(c.nr, t.nr);
	CHECK_STR(symtab_find(&c, 0x1000 + 0x40 * 1500)->name, symtab_find(&t, 0x1000 + 0x40 * 1500)->name);
	/* a second load (another -j thread's) shares the one mapping, which
	 * lasts until its last holder gives it back */
	struct symtab c2;
	void *map2 = NULL;
	CHECK_EQ(symcache_load(&c2, &id, &map2), 0);
	CHECK(map2 == map);
	CHECK_EQ(cachedir_map_refs(map), 2);
	symtab_release(&c);
	cachedir_unmap(map);
	CHECK_EQ(cachedir_map_refs(map), 1);
	CHECK_STR(symtab_find(&c2, 0x1000 + 0x40 * 1500)->name, symtab_find(&t, 0x1000 + 0x40 * 1500)->name);
	/* stored again (a new file renamed over the path): a mapping of its
	 * own; the one still held keeps the old file's bytes */
	symcache_store(&t, &id);
	CHECK_EQ(symcache_load(&c, &id, &map), 0);
	CHECK(map != map2);
	CHECK_EQ(cachedir_map_refs(map), 1);
	CHECK_EQ(cachedir_map_refs(map2), 1);
	CHECK_STR(symtab_find(&c2, 0x1000 + 0x40 * 1500)->name, symtab_find(&c, 0x1000 + 0x40 * 1500)->name);
	symtab_release(&c2);
	cachedir_unmap(map2);
	CHECK_EQ(cachedir_map_refs(map2), 0);
	symtab_release(&c);
	cachedir_unmap(map);
	CHECK_EQ(cachedir_map_refs(map), 0);
	test_cache_off(true);
	CHECK_EQ(symcache_load(&c, &id, &map), -1);
	test_cache_off(false);
	/* the binary changed: its identity no longer matches the image */
	CHECK_EQ(write(fd, "y", 1), 1);
	struct symcache_id changed;
	CHECK(symcache_id_of(fd, -1, &changed));
	changed.version = 1;
	CHECK_EQ(symcache_load(&c, &changed, &map), -1);
	close(fd);
	symtab_release(&t);
	test_cache_end(dir);
}
