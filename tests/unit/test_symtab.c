/* test_symtab.c: symbol tables built perf's way (src/analyze/symtab.c). */
#include "analyze/symtab.h"
#include "test.h"

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
	add(&r, 0x600, 8, "first", STB_GLOBAL);
	add(&r, 0x600, 8, "other", STB_GLOBAL);      /* then the first */
	add(&r, 0x700, 0, "to_next", STB_GLOBAL);    /* unsized: to the next */
	add(&r, 0x780, 0, "last", STB_GLOBAL);       /* last unsized: page end */
	struct symtab t;
	symtab_build(&t, r.v, r.n);
	free(r.v);
	CHECK_EQ(t.nr, 8);
	CHECK_STR(symtab_find(&t, 0x100)->name, "sized");
	CHECK_STR(symtab_find(&t, 0x200)->name, "local");
	CHECK_STR(symtab_find(&t, 0x300)->name, "glob");
	CHECK_STR(symtab_find(&t, 0x400)->name, "under");
	CHECK_STR(symtab_find(&t, 0x500)->name, "longer");
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
