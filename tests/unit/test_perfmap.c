/* test_perfmap.c: the perf-PID.map parser (src/analyze/symbols/perfmap.c), from a
 * buffer. */
#include "analyze/symbols/perfmap.h"
#include "test.h"

TEST(perfmap_parse)
{
	const char *text = "7f0000001010 20 Lua::jit b\n"
			   "7f0000001000 10 jit_a\n"
			   "garbage line\n"
			   "7f0000002000 zz no_size\n"
			   "7f0000003000 0 unsized\n"
			   "7f0000003000 8 sized_alias\n"
			   "7f0000004000 4 last";
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	CHECK(f != NULL);
	struct arena a;
	arena_init(&a);
	struct symtab t;
	perfmap_read(&t, f, &a);
	fclose(f);
	CHECK_EQ(t.nr, 4);
	CHECK_STR(symtab_find(&t, 0x7f0000001005ULL)->name, "jit_a");
	CHECK_STR(symtab_find(&t, 0x7f000000102fULL)->name, "Lua::jit b");
	CHECK(symtab_find(&t, 0x7f0000001030ULL) == NULL);
	/* sized over unsized at one address (perf's choice) */
	CHECK_STR(symtab_find(&t, 0x7f0000003004ULL)->name, "sized_alias");
	CHECK(symtab_find(&t, 0x7f0000003008ULL) == NULL);
	/* a last line without a newline counts; names are interned */
	const struct sym *l = symtab_find(&t, 0x7f0000004000ULL);
	CHECK_STR(l->name, "last");
	CHECK(l->name == arena_intern(&a, "last"));
	symtab_release(&t);
	arena_release(&a);
}
