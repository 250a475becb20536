/* test_jitdump.c: the jit-PID.dump reader (src/analyze/symbols/jitdump.c),
 * from buffers built here: loads, debug info, a move, the time rule,
 * damage, the other byte order. */
#include "analyze/symbols/jitdump.h"
#include "test.h"
#include <byteswap.h>
#include <errno.h>
#include <string.h>

struct jb {
	uint8_t b[4096];
	size_t n;
	bool swap;
};

static void put(struct jb *j, const void *p, size_t n)
{
	memcpy(j->b + j->n, p, n);
	j->n += n;
}

static void u32(struct jb *j, uint32_t v)
{
	if (j->swap)
		v = bswap_32(v);
	put(j, &v, 4);
}

static void u64(struct jb *j, uint64_t v)
{
	if (j->swap)
		v = bswap_64(v);
	put(j, &v, 8);
}

static void header(struct jb *j)
{
	u32(j, 0x4A695444);
	u32(j, 1);
	u32(j, 40);
	u32(j, 62);
	u32(j, 0);
	u32(j, 77);
	u64(j, 1);
	u64(j, 0);
}

static void load(struct jb *j, uint64_t time, uint64_t addr, uint64_t size, const char *name,
		 uint64_t index)
{
	size_t l = strlen(name) + 1;
	u32(j, 0);
	u32(j, (uint32_t)(16 + 40 + l + size));
	u64(j, time);
	u32(j, 77);
	u32(j, 77);
	u64(j, addr);
	u64(j, addr);
	u64(j, size);
	u64(j, index);
	put(j, name, l);
	for (uint64_t i = 0; i < size; i++)
		j->b[j->n++] = (uint8_t)(0x90 + i);
}

static void debug2(struct jb *j, uint64_t time, uint64_t addr, const char *file)
{
	size_t l = strlen(file) + 1;
	u32(j, 2);
	u32(j, (uint32_t)(16 + 16 + 2 * 16 + l + 2));
	u64(j, time);
	u64(j, addr);
	u64(j, 2);
	u64(j, addr + 4);
	u32(j, 7);
	u32(j, 0);
	put(j, file, l);
	u64(j, addr + 12);
	u32(j, 9);
	u32(j, 0);
	put(j, "\xff", 2);
}

TEST(jitdump_loads_lines_and_time)
{
	struct jb b = { .n = 0 };
	header(&b);
	debug2(&b, 10, 0x1000, "a.js");
	load(&b, 11, 0x1000, 32, "JS:*hot", 1);
	load(&b, 20, 0x1010, 8, "JS:later", 2);
	/* a move: JS:later from 0x1010 to 0x3000 at time 30 */
	u32(&b, 1);
	u32(&b, 16 + 48);
	u64(&b, 30);
	u32(&b, 77);
	u32(&b, 77);
	u64(&b, 0x3000);
	u64(&b, 0x1010);
	u64(&b, 0x3000);
	u64(&b, 8);
	u64(&b, 2);
	struct jitdump j;
	CHECK_EQ(jitdump_parse(&j, b.b, b.n), 0);
	CHECK(!j.bad);
	CHECK_EQ(j.nr, 3);
	CHECK_EQ(j.pid, 77);
	/* by time: before 20 the first function covers 0x1010, from 20 the second */
	CHECK_STR(jitdump_find(&j, 0x1012, 15)->name, "JS:*hot");
	CHECK_STR(jitdump_find(&j, 0x1012, 25)->name, "JS:later");
	CHECK_STR(jitdump_find(&j, 0x1012, UINT64_MAX)->name, "JS:later");
	/* before any load: the first one after */
	CHECK_STR(jitdump_find(&j, 0x1004, 5)->name, "JS:*hot");
	CHECK(jitdump_find(&j, 0x1020, UINT64_MAX) == NULL);
	CHECK(jitdump_find(&j, 0xfff, UINT64_MAX) == NULL);
	const struct jitdump_fn *m = jitdump_find(&j, 0x3004, UINT64_MAX);
	CHECK_STR(m->name, "JS:later");
	CHECK(m->code != NULL && m->code[0] == 0x90);
	/* lines: the entry at or below the address; the "\xff" entry reuses
	 * the file; below the first entry: none */
	const struct jitdump_fn *h = jitdump_find(&j, 0x1000, 15);
	CHECK(h->code >= b.b && h->code + 32 <= b.b + b.n);
	CHECK(h->code[0] == 0x90 && h->code[31] == (uint8_t)(0x90 + 31));
	const char *file;
	uint32_t line;
	CHECK(!jitdump_line(&j, h, 0x1002, &file, &line));
	CHECK(jitdump_line(&j, h, 0x1008, &file, &line));
	CHECK_STR(file, "a.js");
	CHECK_EQ(line, 7);
	CHECK(jitdump_line(&j, h, 0x1010, &file, &line));
	CHECK_STR(file, "a.js");
	CHECK_EQ(line, 9);
	jitdump_release(&j);
}

TEST(jitdump_damage_keeps_what_came_before)
{
	struct jb b = { .n = 0 };
	header(&b);
	load(&b, 11, 0x1000, 16, "first", 1);
	size_t second = b.n;
	load(&b, 12, 0x2000, 16, "second", 2);
	struct jitdump j;
	/* cut inside the second record */
	CHECK_EQ(jitdump_parse(&j, b.b, b.n - 5), 0);
	CHECK(j.bad);
	CHECK_EQ(j.bad_off, second);
	CHECK_EQ(j.nr, 1);
	CHECK_STR(j.fns[0].name, "first");
	jitdump_release(&j);
	/* a code size past its record */
	uint64_t big = 1ULL << 40;
	memcpy(b.b + second + 16 + 24, &big, 8);
	CHECK_EQ(jitdump_parse(&j, b.b, b.n), 0);
	CHECK(j.bad && j.bad_off == second && j.nr == 1);
	jitdump_release(&j);
	/* not a jitdump */
	CHECK_EQ(jitdump_parse(&j, (const uint8_t *)"hello, this is no jitdump at all......!!", 40), -EINVAL);
	CHECK(j.bad && j.bad_off == 0);
	jitdump_release(&j);
	CHECK_EQ(jitdump_parse(&j, b.b, 20), -EINVAL);
	jitdump_release(&j);
	/* a debug record whose file name is not text loses its lines only */
	struct jb c = { .n = 0 };
	header(&c);
	debug2(&c, 10, 0x1000, "v\x04");
	load(&c, 11, 0x1000, 32, "JS:f", 1);
	CHECK_EQ(jitdump_parse(&j, c.b, c.n), 0);
	CHECK(!j.bad);
	CHECK_EQ(j.nr, 1);
	CHECK_EQ(j.fns[0].nr_lines, 0);
	CHECK_EQ(j.damaged_lines, 1);
	jitdump_release(&j);
}

TEST(jitdump_other_byte_order)
{
	struct jb b = { .n = 0, .swap = true };
	header(&b);
	load(&b, 11, 0x1000, 16, "swapped", 1);
	struct jitdump j;
	CHECK_EQ(jitdump_parse(&j, b.b, b.n), 0);
	CHECK(j.swapped && !j.bad);
	CHECK_EQ(j.pid, 77);
	CHECK_STR(jitdump_find(&j, 0x100f, UINT64_MAX)->name, "swapped");
	jitdump_release(&j);
}
