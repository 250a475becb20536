/* test_util.c: hash map, buffer caps. */
#include "test.h"
#include "util/buf.h"
#include "util/hash.h"
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
