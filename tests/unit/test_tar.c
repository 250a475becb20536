/* test_tar.c: the tar format (src/archive/tar.c), written into memory and
 * read back: plain and pax (long) names, links, the end; then damage: a
 * bad checksum, a cut stream, the member count and size caps. */
#include "archive/tar.h"
#include "test.h"
#include <errno.h>
#include <string.h>

struct mem {
	uint8_t b[1 << 16];
	size_t n, pos, limit;
};

static int mem_write(void *ctx, const void *p, size_t n)
{
	struct mem *m = ctx;
	if (m->n + n > sizeof m->b)
		return -ENOSPC;
	memcpy(m->b + m->n, p, n);
	m->n += n;
	return 0;
}

static int64_t mem_read(void *ctx, void *p, size_t n, struct err *e)
{
	struct mem *m = ctx;
	(void)e;
	size_t end = m->limit ? m->limit : m->n;
	size_t k = m->pos + n <= end ? n : end - m->pos;
	memcpy(p, m->b + m->pos, k);
	m->pos += k;
	return (int64_t)k;
}

static const char *long_name(void)
{
	static char s[200];
	memset(s, 'x', sizeof s - 1);
	memcpy(s, "usr/lib/", 8);
	s[60] = '/';
	s[sizeof s - 1] = 0;
	return s;
}

static void write_sample(struct mem *m)
{
	struct tar_w t = { .write = mem_write, .ctx = m };
	char data[600];
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (char)i;
	CHECK_EQ(tar_w_mem(&t, "first", "abc", 3, 0), 0);
	CHECK_EQ(tar_w_mem(&t, long_name(), data, sizeof data, 1234), 0);
	char target[160];
	snprintf(target, sizeof target, "../../%s", long_name() + 50);
	CHECK_EQ(tar_w_symlink(&t, ".build-id/ab/cdef", target, 0), 0);
	CHECK_EQ(tar_w_end(&t), 0);
	CHECK_EQ(t.off, m->n);
	CHECK_EQ(m->n % TAR_BLOCK, 0);
}

TEST(tar_round_trip)
{
	static struct mem m;
	memset(&m, 0, sizeof m);
	write_sample(&m);
	struct tar_r r = { .read = mem_read, .ctx = &m, .max_members = 100, .max_size = 1 << 20 };
	struct tar_member *t = calloc(1, sizeof *t);
	struct err e = { 0 };
	char buf[1024];
	CHECK_EQ(tar_r_next(&r, t, &e), 1);
	CHECK_STR(t->name, "first");
	CHECK_EQ(t->type, TAR_FILE);
	CHECK_EQ(t->size, 3);
	CHECK_EQ(tar_r_data(&r, buf, sizeof buf, &e), 3);
	CHECK(!memcmp(buf, "abc", 3));
	CHECK_EQ(tar_r_next(&r, t, &e), 1);
	CHECK_STR(t->name, long_name()); /* from its pax header */
	CHECK_EQ(t->size, 600);
	/* read partly: the next call skips the rest */
	CHECK_EQ(tar_r_data(&r, buf, 10, &e), 10);
	CHECK_EQ(buf[9], 9);
	CHECK_EQ(tar_r_next(&r, t, &e), 1);
	CHECK_EQ(t->type, TAR_SYMLINK);
	CHECK_STR(t->name, ".build-id/ab/cdef");
	CHECK(!strncmp(t->link, "../../", 6) && strlen(t->link) == 6 + strlen(long_name() + 50));
	CHECK_EQ(tar_r_next(&r, t, &e), 0);
	CHECK(!e.set);
	tar_r_release(&r);
	free(t);
}

TEST(tar_damage)
{
	static struct mem m;
	memset(&m, 0, sizeof m);
	write_sample(&m);
	struct tar_member *t = calloc(1, sizeof *t);
	struct err e = { 0 };
	/* a changed name: the checksum no longer fits (the second member's
	 * pax header is at 1024) */
	m.b[1024 + 3] ^= 1;
	struct tar_r r = { .read = mem_read, .ctx = &m, .max_members = 100, .max_size = 1 << 20 };
	CHECK_EQ(tar_r_next(&r, t, &e), 1);
	CHECK(tar_r_next(&r, t, &e) < 0);
	CHECK(e.set && e.has_offset && e.offset == 1024);
	CHECK(strstr(e.msg, "checksum"));
	tar_r_release(&r);
	m.b[1024 + 3] ^= 1;

	/* cut inside the second member's data */
	memset(&e, 0, sizeof e);
	m.pos = 0;
	m.limit = 2560 + 100; /* its header at 2048, its data at 2560 */
	r = (struct tar_r){ .read = mem_read, .ctx = &m, .max_members = 100, .max_size = 1 << 20 };
	CHECK_EQ(tar_r_next(&r, t, &e), 1);
	CHECK_EQ(tar_r_next(&r, t, &e), 1);
	char buf[1024];
	CHECK(tar_r_data(&r, buf, sizeof buf, &e) < 0);
	CHECK(e.has_offset && e.offset == 2660 && strstr(e.msg, "truncated"));
	tar_r_release(&r);

	/* the caps */
	memset(&e, 0, sizeof e);
	m.pos = 0;
	m.limit = 0;
	r = (struct tar_r){ .read = mem_read, .ctx = &m, .max_members = 2, .max_size = 1 << 20 };
	CHECK_EQ(tar_r_next(&r, t, &e), 1);
	CHECK(tar_r_next(&r, t, &e) < 0); /* the pax header is the second */
	CHECK(strstr(e.msg, "more than 2 members"));
	tar_r_release(&r);
	memset(&e, 0, sizeof e);
	m.pos = 0;
	r = (struct tar_r){ .read = mem_read, .ctx = &m, .max_members = 100, .max_size = 100 };
	CHECK_EQ(tar_r_next(&r, t, &e), 1);
	CHECK(tar_r_next(&r, t, &e) < 0);
	CHECK(e.offset == 2048 && strstr(e.msg, "600 bytes"));
	tar_r_release(&r);
	free(t);
}
