/* test_arena.c: chunk arena and string interning (src/util/arena.c). */
#include "util/arena.h"
#include "test.h"

#include <stdint.h>

TEST(arena_intern_and_alloc)
{
	struct arena a;
	arena_init(&a);
	const char *x = arena_intern(&a, "libc.so.6");
	char buf[] = "libc.so.6";
	CHECK(arena_intern(&a, buf) == x);
	CHECK(arena_intern(&a, "libm.so.6") != x);
	CHECK(arena_intern(&a, NULL) == NULL);
	CHECK(arena_strdup(&a, "libc.so.6") != x);
	/* aligned, and one allocation larger than a chunk */
	for (int i = 1; i < 100; i++)
		CHECK(((uintptr_t)arena_alloc(&a, (size_t)i) & 7) == 0);
	char *big = arena_alloc(&a, 200000);
	memset(big, 1, 200000);
	CHECK_STR(arena_intern(&a, "libc.so.6"), x);
	CHECK(arena_intern(&a, "libc.so.6") == x);
	arena_release(&a);
}
