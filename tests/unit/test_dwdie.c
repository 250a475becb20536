/* test_dwdie.c: the CU function-range reader (src/analyze/dwarf/dwdie.c):
 * hand-made units for what it reports and where it must give up (a
 * sibling that points back, a truncated unit, an unknown abbreviation or
 * form), and the same function index as libdw's walk (inlines.c's
 * index_scope: dwarf_child, dwarf_siblingof, dwarf_tag, dwarf_ranges) for
 * every CU of real files: this test binary (gcc's DWARF 5), the C++
 * workload when built, and installed debug files (libc6-dbg). */
#include "analyze/dwarf/dwdie.h"
#include "analyze/symbols/elffile.h"
#include "test.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <glob.h>
#include <unistd.h>

/* ---- what the reader reports --------------------------------------------- */

struct seen {
	uint64_t off[64], lo[64], hi[64];
	int n;
	uint64_t asked[16];
	int nasked;
};

static void on_range(void *ctx, uint64_t die_off, uint64_t lo, uint64_t hi)
{
	struct seen *s = ctx;
	if (s->n < 64) {
		s->off[s->n] = die_off;
		s->lo[s->n] = lo;
		s->hi[s->n++] = hi;
	}
}

static void on_ask(void *ctx, uint64_t die_off)
{
	struct seen *s = ctx;
	if (s->nasked < 16)
		s->asked[s->nasked++] = die_off;
}

struct bytes {
	uint8_t b[8192];
	size_t n;
};

static void put(struct bytes *p, const void *d, size_t n)
{
	memcpy(p->b + p->n, d, n);
	p->n += n;
}
static void u8(struct bytes *p, unsigned v)
{
	uint8_t c = (uint8_t)v;
	put(p, &c, 1);
}
static void u32(struct bytes *p, uint32_t v)
{
	put(p, &v, 4);
}
static void u64(struct bytes *p, uint64_t v)
{
	put(p, &v, 8);
}

/* abbreviations: 1 CU (children, name string); 2 subprogram (low_pc addr,
 * high_pc data4); 3 subprogram with children (sibling ref4, low_pc addr,
 * high_pc addr); 4 base type (name string); 5 subprogram (ranges
 * sec_offset); 6 namespace (children); 7 subprogram declaration (name
 * string); 8 variable (name string: no fixed size) */
static void abbrevs(struct bytes *a)
{
	u8(a, 1), u8(a, DW_TAG_compile_unit), u8(a, 1), u8(a, DW_AT_name), u8(a, DW_FORM_string),
		u8(a, 0), u8(a, 0);
	u8(a, 2), u8(a, DW_TAG_subprogram), u8(a, 0), u8(a, DW_AT_low_pc), u8(a, DW_FORM_addr),
		u8(a, DW_AT_high_pc), u8(a, DW_FORM_data4), u8(a, 0), u8(a, 0);
	u8(a, 3), u8(a, DW_TAG_subprogram), u8(a, 1), u8(a, DW_AT_sibling), u8(a, DW_FORM_ref4),
		u8(a, DW_AT_low_pc), u8(a, DW_FORM_addr), u8(a, DW_AT_high_pc), u8(a, DW_FORM_addr),
		u8(a, 0), u8(a, 0);
	u8(a, 4), u8(a, DW_TAG_base_type), u8(a, 0), u8(a, DW_AT_name), u8(a, DW_FORM_string),
		u8(a, 0), u8(a, 0);
	u8(a, 5), u8(a, DW_TAG_subprogram), u8(a, 0), u8(a, DW_AT_ranges),
		u8(a, DW_FORM_sec_offset), u8(a, 0), u8(a, 0);
	u8(a, 6), u8(a, DW_TAG_namespace), u8(a, 1), u8(a, 0), u8(a, 0);
	u8(a, 7), u8(a, DW_TAG_subprogram), u8(a, 0), u8(a, DW_AT_name), u8(a, DW_FORM_string),
		u8(a, 0), u8(a, 0);
	u8(a, 8), u8(a, DW_TAG_variable), u8(a, 0), u8(a, DW_AT_name), u8(a, DW_FORM_string),
		u8(a, 0), u8(a, 0);
	u8(a, 0);
}

/* A DWARF 4 unit: the CU DIE, then body (sibling values in it are offsets
 * from the unit's start, 11 bytes of header before the CU DIE). */
static void unit(struct bytes *info, const struct bytes *body)
{
	uint32_t len = (uint32_t)(2 + 4 + 1 + 4 /* CU DIE: code, "cu\0" */ + body->n);
	u32(info, len);
	u8(info, 4), u8(info, 0);  /* version 4 */
	u32(info, 0);              /* abbrev offset */
	u8(info, 8);               /* address size */
	u8(info, 1), put(info, "cu", 3);
	put(info, body->b, body->n);
}

static int no_haspc(void *ctx, uint64_t die_off, uint64_t pc)
{
	(void)ctx, (void)die_off, (void)pc;
	return -1;
}

static bool walk(const struct bytes *info, const struct bytes *ab, bool types, struct seen *s)
{
	struct dwdie_sections sec = { .info = info->b, .abbrev = ab->b, .info_size = info->n,
				      .abbrev_size = ab->n };
	struct dwdie_visitor v = { on_range, on_ask, no_haspc, s };
	memset(s, 0, sizeof *s);
	struct dwdie_cu *c = dwdie_cu_open(&sec, 0, types);
	bool ok = c && dwdie_functions(c, &v);
	dwdie_cu_free(c);
	return ok;
}

TEST(dwdie_reports_functions_in_die_order)
{
	struct bytes ab = { .n = 0 }, body = { .n = 0 }, info = { .n = 0 };
	abbrevs(&ab);
	/* DIE offsets: the unit's header (11 bytes) and CU DIE (4) come first */
	uint64_t f = 15 + body.n;
	u8(&body, 2), u64(&body, 0x1000), u32(&body, 0x40);
	u8(&body, 4), put(&body, "int", 4);
	uint64_t g = 15 + body.n;
	/* g has a child; its sibling: after g (21 bytes), the child (4), the
	 * null entry */
	u8(&body, 3), u32(&body, (uint32_t)(g + 21 + 4 + 1)), u64(&body, 0x2000), u64(&body, 0x2100);
	u8(&body, 7), put(&body, "in", 3), u8(&body, 0); /* (not at CU level) */
	/* a declaration, a variable, ranges, a namespace holding k */
	u8(&body, 7), put(&body, "decl", 5);
	u8(&body, 8), put(&body, "v", 2);
	uint64_t r = 15 + body.n;
	u8(&body, 5), u32(&body, 0x40);
	u8(&body, 6), u8(&body, 2), u64(&body, 0x3000), u32(&body, 0x10), u8(&body, 0);
	u8(&body, 0);
	unit(&info, &body);
	struct seen s;
	CHECK(walk(&info, &ab, false, &s));
	CHECK_EQ(s.n, 2);
	CHECK_EQ(s.off[0], f);
	CHECK_EQ(s.lo[0], 0x1000);
	CHECK_EQ(s.hi[0], 0x1040);
	CHECK_EQ(s.off[1], g);
	CHECK_EQ(s.lo[1], 0x2000);
	CHECK_EQ(s.hi[1], 0x2100);
	CHECK_EQ(s.nasked, 1); /* DW_AT_ranges: libdw's */
	CHECK_EQ(s.asked[0], r);
	/* with types, the namespace is walked too */
	CHECK(walk(&info, &ab, true, &s));
	CHECK_EQ(s.n, 3);
	CHECK_EQ(s.lo[2], 0x3000);
	CHECK_EQ(s.hi[2], 0x3010);
}

TEST(dwdie_gives_up_where_libdw_would_fail)
{
	struct bytes ab = { .n = 0 }, body = { .n = 0 }, info = { .n = 0 };
	struct seen s;
	abbrevs(&ab);
	/* a sibling pointing back at its own DIE */
	u8(&body, 3), u32(&body, 15), u64(&body, 0x2000), u64(&body, 0x2100), u8(&body, 0);
	u8(&body, 0);
	unit(&info, &body);
	CHECK(!walk(&info, &ab, false, &s));
	/* an abbreviation code the table does not have */
	body.n = info.n = 0;
	u8(&body, 9), u8(&body, 0);
	unit(&info, &body);
	CHECK(!walk(&info, &ab, false, &s));
	/* a unit cut inside a DIE */
	body.n = info.n = 0;
	u8(&body, 2), u64(&body, 0x1000);
	unit(&info, &body);
	CHECK(!walk(&info, &ab, false, &s));
	/* a unit longer than the section */
	info.n -= 4;
	CHECK(!walk(&info, &ab, false, &s));
	/* a form this reader does not know */
	struct bytes bad = { .n = 0 };
	u8(&bad, 1), u8(&bad, DW_TAG_compile_unit), u8(&bad, 1), u8(&bad, DW_AT_name), u8(&bad, 0x7f),
		u8(&bad, 0), u8(&bad, 0), u8(&bad, 0);
	body.n = info.n = 0;
	u8(&body, 0);
	unit(&info, &body);
	CHECK(!walk(&info, &bad, false, &s));
	/* no children: nothing to report, not a failure */
	body.n = info.n = 0;
	u8(&body, 0);
	unit(&info, &body);
	CHECK(walk(&info, &ab, false, &s));
	CHECK_EQ(s.n, 0);
}

/* ---- inline walks, hand-made ---------------------------------------------- */

static int asked;

static int count_haspc(void *ctx, uint64_t die_off, uint64_t pc)
{
	(void)ctx, (void)die_off;
	asked++;
	return pc == 0x1070; /* "libdw": only there */
}

/* abbreviations: 1 CU (children, name), 9 subprogram (children, low_pc,
 * high_pc data4), 10 inlined subroutine (children, ranges sec_offset), 11
 * lexical block (children, low_pc, high_pc data4), 12 inlined subroutine
 * (low_pc, high_pc addr) */
static void inline_abbrevs(struct bytes *a)
{
	u8(a, 1), u8(a, DW_TAG_compile_unit), u8(a, 1), u8(a, DW_AT_name), u8(a, DW_FORM_string),
		u8(a, 0), u8(a, 0);
	for (unsigned code = 2; code < 9; code++) /* codes run 1, 2, ... */
		u8(a, code), u8(a, DW_TAG_base_type), u8(a, 0), u8(a, 0), u8(a, 0);
	u8(a, 9), u8(a, DW_TAG_subprogram), u8(a, 1), u8(a, DW_AT_low_pc), u8(a, DW_FORM_addr),
		u8(a, DW_AT_high_pc), u8(a, DW_FORM_data4), u8(a, 0), u8(a, 0);
	u8(a, 10), u8(a, DW_TAG_inlined_subroutine), u8(a, 1), u8(a, DW_AT_ranges),
		u8(a, DW_FORM_sec_offset), u8(a, 0), u8(a, 0);
	u8(a, 11), u8(a, DW_TAG_lexical_block), u8(a, 1), u8(a, DW_AT_low_pc), u8(a, DW_FORM_addr),
		u8(a, DW_AT_high_pc), u8(a, DW_FORM_data4), u8(a, 0), u8(a, 0);
	u8(a, 12), u8(a, DW_TAG_inlined_subroutine), u8(a, 0), u8(a, DW_AT_low_pc),
		u8(a, DW_FORM_addr), u8(a, DW_AT_high_pc), u8(a, DW_FORM_addr), u8(a, 0), u8(a, 0);
	u8(a, 0);
}

/* f [0x1000, 0x1100) > A (ranges at 0) > block [0x1040, 0x1050) > B
 * [0x1044, 0x1048), then a second A (ranges at list2); offsets into off[] */
static void inline_body(struct bytes *body, uint64_t first, uint32_t list2, uint64_t off[4])
{
	off[0] = first + body->n;
	u8(body, 9), u64(body, 0x1000), u32(body, 0x100);
	off[1] = first + body->n;
	u8(body, 10), u32(body, 0);
	u8(body, 11), u64(body, 0x1040), u32(body, 0x10);
	off[2] = first + body->n;
	u8(body, 12), u64(body, 0x1044), u64(body, 0x1048);
	u8(body, 0), u8(body, 0); /* block, A */
	off[3] = first + body->n;
	u8(body, 10), u32(body, list2), u8(body, 0); /* a second inline */
	u8(body, 0), u8(body, 0); /* f, CU */
}

static void check_walks(const struct dwdie_sections *sec, const uint64_t off[4])
{
	struct dwdie_visitor v = { on_range, on_ask, count_haspc, NULL };
	struct dwdie_cu *c = dwdie_cu_open(sec, 0, false);
	CHECK(c != NULL);
	uint64_t path[8];
	CHECK_EQ(dwdie_inlines(c, off[0], 0x1025, path, 8, &v), 2);
	CHECK_EQ(path[0], off[0]);
	CHECK_EQ(path[1], off[1]);
	CHECK_EQ(dwdie_inlines(c, off[0], 0x1045, path, 8, &v), 3);
	CHECK_EQ(path[2], off[2]);
	CHECK_EQ(dwdie_inlines(c, off[0], 0x1041, path, 8, &v), 2); /* the block, not B */
	CHECK_EQ(dwdie_inlines(c, off[0], 0x1035, path, 8, &v), 1); /* between A's ranges */
	CHECK_EQ(dwdie_inlines(c, off[0], 0x1045, path, 2, &v), 2); /* at most max */
	asked = 0;
	CHECK_EQ(dwdie_inlines(c, off[0], 0x1070, path, 8, &v), 2); /* the second A, by "libdw" */
	CHECK_EQ(path[1], off[3]);
	CHECK(asked > 0);
	CHECK_EQ(dwdie_inlines(c, off[0] + 1, 0x1025, path, 8, &v), -1); /* not a DIE */
	dwdie_cu_free(c);
}

TEST(dwdie_inline_walk_dwarf4_ranges)
{
	struct bytes ab = { .n = 0 }, body = { .n = 0 }, info = { .n = 0 }, rl = { .n = 0 };
	uint64_t off[4];
	inline_abbrevs(&ab);
	inline_body(&body, 15, 64, off);
	unit(&info, &body);
	/* .debug_ranges at 0: a base address selection (0x1000), [0x20,
	 * 0x30), [0x40, 0x50), the end; at 64: [0x70, 0x80) from the CU's
	 * base (0: it has no DW_AT_low_pc) */
	u64(&rl, UINT64_MAX), u64(&rl, 0x1000), u64(&rl, 0x20), u64(&rl, 0x30);
	u64(&rl, 0x40), u64(&rl, 0x50), u64(&rl, 0), u64(&rl, 0);
	u64(&rl, 0x70), u64(&rl, 0x80), u64(&rl, 0), u64(&rl, 0);
	struct dwdie_sections sec = { .info = info.b, .abbrev = ab.b, .ranges = rl.b,
				      .info_size = info.n, .abbrev_size = ab.n,
				      .ranges_size = rl.n };
	struct dwdie_visitor v = { on_range, on_ask, count_haspc, NULL };
	struct dwdie_cu *c = dwdie_cu_open(&sec, 0, false);
	CHECK(c != NULL);
	uint64_t path[8];
	asked = 0;
	CHECK_EQ(dwdie_inlines(c, off[0], 0x1025, path, 8, &v), 2);
	CHECK_EQ(path[1], off[1]);
	CHECK_EQ(dwdie_inlines(c, off[0], 0x1045, path, 8, &v), 3);
	CHECK_EQ(path[2], off[2]);
	CHECK_EQ(dwdie_inlines(c, off[0], 0x1041, path, 8, &v), 2);
	CHECK_EQ(dwdie_inlines(c, off[0], 0x1035, path, 8, &v), 1);
	CHECK_EQ(dwdie_inlines(c, off[0], 0x75, path, 8, &v), 2);
	CHECK_EQ(path[1], off[3]);
	CHECK_EQ(asked, 0); /* all read here */
	dwdie_cu_free(c);
}

TEST(dwdie_inline_walk_dwarf5_rnglists)
{
	struct bytes ab = { .n = 0 }, body = { .n = 0 }, info = { .n = 0 }, rl = { .n = 0 };
	uint64_t off[4];
	inline_abbrevs(&ab);
	inline_body(&body, 16, 32, off);
	/* a DWARF 5 compile unit: 12 bytes of header, CU DIE (4) */
	u32(&info, (uint32_t)(2 + 1 + 1 + 4 + 4 + body.n));
	u8(&info, 5), u8(&info, 0), u8(&info, DW_UT_compile), u8(&info, 8), u32(&info, 0);
	u8(&info, 1), put(&info, "cu", 3);
	put(&info, body.b, body.n);
	/* at 0: base address, an offset pair, a start + length, the end */
	u8(&rl, DW_RLE_base_address), u64(&rl, 0x1000);
	u8(&rl, DW_RLE_offset_pair), u8(&rl, 0x20), u8(&rl, 0x30);
	u8(&rl, DW_RLE_start_length), u64(&rl, 0x1040), u8(&rl, 0x10);
	u8(&rl, DW_RLE_end_of_list);
	/* at 32 (padded): an indexed entry (.debug_addr): libdw's */
	while (rl.n < 32)
		u8(&rl, 0);
	u8(&rl, DW_RLE_startx_length), u8(&rl, 0), u8(&rl, 0x10), u8(&rl, DW_RLE_end_of_list);
	struct dwdie_sections sec = { .info = info.b, .abbrev = ab.b, .rnglists = rl.b,
				      .info_size = info.n, .abbrev_size = ab.n,
				      .rnglists_size = rl.n };
	check_walks(&sec, off);
}

/* an in-memory dwdie_store: what keep gets, find gives (the first kept
 * for an offset) */
struct mem_store {
	uint64_t off[16];
	enum dwdie_kept kind[16];
	uint8_t *p[16];
	size_t size[16], n, found;
};

static const void *ms_find(void *ctx, enum dwdie_kept kind, uint64_t off, size_t *size)
{
	struct mem_store *m = ctx;
	for (size_t i = 0; i < m->n; i++)
		if (m->kind[i] == kind && m->off[i] == off) {
			*size = m->size[i];
			m->found++;
			return m->p[i];
		}
	return NULL;
}

static void ms_keep(void *ctx, enum dwdie_kept kind, uint64_t off, void *p, size_t size)
{
	struct mem_store *m = ctx;
	if (m->n == 16) {
		free(p);
		return;
	}
	m->kind[m->n] = kind, m->off[m->n] = off, m->p[m->n] = p, m->size[m->n++] = size;
}

/* A scope's children are read once and kept (scope_kids): the kept walk
 * must answer as the walk that reads them each time, asking "libdw" the
 * same DIEs, with a range list longer than those kept decoded (300 ranges),
 * a list that turns bad after a range (libdw answers past it), and a DIE
 * the reader cannot read after them: a walk that finds its inline before
 * it succeeds, one that passes every child fails, each time. */
TEST(dwdie_inline_walk_kept_children)
{
	struct bytes ab = { .n = 0 }, body = { .n = 0 }, info = { .n = 0 }, rl = { .n = 0 };
	inline_abbrevs(&ab);
	uint64_t f = 15 + body.n;
	u8(&body, 9), u64(&body, 0x1000), u32(&body, 0x100);
	uint64_t a1 = 15 + body.n;
	u8(&body, 10), u32(&body, 0), u8(&body, 0);
	uint64_t a2 = 15 + body.n;
	u8(&body, 10), u32(&body, 16 + 300 * 16 + 16), u8(&body, 0);
	u8(&body, 13); /* no such abbreviation */
	u8(&body, 0), u8(&body, 0);
	unit(&info, &body);
	/* at 0: base 0x2000, 300 ranges [4i, 4i + 2), the end; then base
	 * 0x1000, [0x90, 0xa0), a bad entry (two escapes) */
	u64(&rl, UINT64_MAX), u64(&rl, 0x2000);
	for (unsigned i = 0; i < 300; i++)
		u64(&rl, 4 * i), u64(&rl, 4 * i + 2);
	u64(&rl, 0), u64(&rl, 0);
	u64(&rl, UINT64_MAX), u64(&rl, 0x1000), u64(&rl, 0x90), u64(&rl, 0xa0);
	u64(&rl, UINT64_MAX), u64(&rl, UINT64_MAX);
	struct dwdie_sections sec = { .info = info.b, .abbrev = ab.b, .ranges = rl.b,
				      .info_size = info.n, .abbrev_size = ab.n,
				      .ranges_size = rl.n };
	struct dwdie_visitor v = { on_range, on_ask, count_haspc, NULL };
	struct dwdie_cu *c = dwdie_cu_open(&sec, 0, false);
	CHECK(c != NULL);
	uint64_t path[8];
	for (int round = 0; round < 2; round++) {
		asked = 0;
		CHECK_EQ(dwdie_inlines(c, f, 0x2045, path, 8, &v), 2); /* A1's 18th range */
		CHECK_EQ(path[1], a1);
		CHECK_EQ(dwdie_inlines(c, f, 0x2001, path, 8, &v), 2); /* its first */
		CHECK_EQ(dwdie_inlines(c, f, 0x24ad, path, 8, &v), 2); /* its last (past 256) */
		CHECK_EQ(dwdie_inlines(c, f, 0x2002, path, 8, &v), -1); /* between: to the bad DIE */
		CHECK_EQ(asked, 1); /* A2's list, past its range */
		CHECK_EQ(dwdie_inlines(c, f, 0x1095, path, 8, &v), 2); /* A2's range */
		CHECK_EQ(path[1], a2);
		CHECK_EQ(asked, 1);
		CHECK_EQ(dwdie_inlines(c, f, 0x1070, path, 8, &v), 2); /* A2, by "libdw" */
		CHECK_EQ(path[1], a2);
		CHECK_EQ(asked, 2);
	}
	dwdie_cu_free(c);
	/* kept through a store (as across runs): the first reader keeps the
	 * scopes' children, a second one takes them and answers alike; kept
	 * bytes changed one at a time are refused or give any answer, never
	 * a bad access (ASan) */
	struct mem_store ms = { 0 };
	struct dwdie_store st = { ms_find, ms_keep, &ms };
	for (int round = 0; round < 3; round++) {
		c = dwdie_cu_open_stored(&sec, 0, false, &st);
		asked = 0;
		CHECK_EQ(dwdie_inlines(c, f, 0x24ad, path, 8, &v), 2);
		CHECK_EQ(dwdie_inlines(c, f, 0x2002, path, 8, &v), -1);
		CHECK_EQ(dwdie_inlines(c, f, 0x1070, path, 8, &v), 2);
		CHECK_EQ(path[1], a2);
		CHECK_EQ(asked, 2);
		dwdie_cu_free(c);
		/* the abbreviations and the function's children, kept once,
		 * then found by each later reader */
		CHECK(ms.n >= 2 && ms.found == (size_t)round * ms.n);
	}
	for (size_t e = 0; e < ms.n; e++)
		for (size_t i = 0; i < ms.size[e]; i++) {
			ms.p[e][i] ^= 0x41;
			c = dwdie_cu_open_stored(&sec, 0, false, &st);
			if (c) {
				dwdie_inlines(c, f, 0x24ad, path, 8, &v);
				dwdie_inlines(c, f, 0x1070, path, 8, &v);
				struct dwdie_info x;
				dwdie_info(c, a2, &x);
			}
			dwdie_cu_free(c);
			ms.p[e][i] ^= 0x41;
		}
	for (size_t i = 0; i < ms.n; i++)
		free(ms.p[i]);
}

/* ---- the same index as libdw's walk on real files ------------------------ */

struct fr {
	uint64_t lo, hi, off;
};

struct list {
	struct fr r[1 << 14];
	size_t n;
	bool full;
};

static void add(struct list *l, uint64_t lo, uint64_t hi, uint64_t off)
{
	if (lo >= hi)
		return;
	if (l->n == sizeof l->r / sizeof l->r[0]) {
		l->full = true;
		return;
	}
	l->r[l->n++] = (struct fr){ lo, hi, off };
}

static void add_ranges(struct list *l, Dwarf_Die *fn)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(fn, off, &base, &lo, &hi)) > 0)
		add(l, lo, hi, dwarf_dieoffset(fn));
}

static void libdw_scope(struct list *l, Dwarf_Die *parent, int depth, bool types)
{
	Dwarf_Die c;
	if (depth > 8 || dwarf_child(parent, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);
		if (tag == DW_TAG_subprogram)
			add_ranges(l, &c);
		else if (types && (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
				   tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
				   tag == DW_TAG_module))
			libdw_scope(l, &c, depth + 1, types);
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* inlines.c's descend_inlines, by DIE offsets */
static int libdw_descend(Dwarf_Die *fn, uint64_t pc, uint64_t *path, int max)
{
	int n = 0;
	path[n++] = dwarf_dieoffset(fn);
	Dwarf_Die scope = *fn;
	for (int guard = 0; guard < 256 && n < max; guard++) {
		Dwarf_Die c;
		bool found = false, descend = false;
		if (dwarf_child(&scope, &c) != 0)
			break;
		do {
			int tag = dwarf_tag(&c);
			bool block = tag == DW_TAG_lexical_block || tag == DW_TAG_try_block ||
				     tag == DW_TAG_catch_block || tag == DW_TAG_with_stmt ||
				     tag == DW_TAG_common_block;
			if ((tag == DW_TAG_inlined_subroutine || block) && dwarf_haspc(&c, pc) > 0) {
				if (!block)
					path[n++] = dwarf_dieoffset(&c);
				found = !block;
				descend = block;
				scope = c;
				break;
			}
		} while (dwarf_siblingof(&c, &c) == 0);
		if (!found && !descend)
			break;
	}
	return n;
}

struct real_ctx {
	struct list *l;
	Dwarf *dw;
};

static int real_haspc(void *ctx, uint64_t die_off, uint64_t pc)
{
	struct real_ctx *x = ctx;
	Dwarf_Die d;
	return dwarf_offdie(x->dw, die_off, &d) ? dwarf_haspc(&d, pc) : -1;
}

static void real_range(void *ctx, uint64_t die_off, uint64_t lo, uint64_t hi)
{
	add(((struct real_ctx *)ctx)->l, lo, hi, die_off);
}

static void real_ask(void *ctx, uint64_t die_off)
{
	struct real_ctx *x = ctx;
	Dwarf_Die d;
	if (dwarf_offdie(x->dw, die_off, &d))
		add_ranges(x->l, &d);
}

/* libdw's answers to what dwdie_info reads (inlines.c's die_name before
 * demangling, has_linkage_name, the call site as dwarf_formudata reads
 * it) for the DIE at off; 1 when dwdie_info agrees, 0 when it differs, -1
 * when it gave the DIE to libdw */
static int info_same(Dwarf *dw, struct dwdie_cu *c, uint64_t off)
{
	struct dwdie_info x;
	if (!dwdie_info(c, off, &x))
		return -1;
	Dwarf_Die d;
	Dwarf_Attribute a;
	if (!dwarf_offdie(dw, off, &d))
		return 0;
	const char *n = NULL;
	bool link = dwarf_attr_integrate(&d, DW_AT_linkage_name, &a) ||
		    dwarf_attr_integrate(&d, DW_AT_MIPS_linkage_name, &a);
	if (link)
		n = dwarf_formstring(&a);
	if (!n)
		n = dwarf_diename(&d);
	if (!n && dwarf_attr_integrate(&d, DW_AT_name, &a))
		n = dwarf_formstring(&a);
	bool same = (int)x.tag == dwarf_tag(&d) && x.has_linkage == link &&
		    !x.name == !n && (!n || !strcmp(n, x.name));
	static const unsigned at[3] = { DW_AT_call_file, DW_AT_call_line, DW_AT_call_column };
	bool has[3] = { x.has_call_file, x.has_call_line, x.has_call_column };
	uint64_t val[3] = { x.call_file, x.call_line, x.call_column };
	for (int i = 0; i < 3; i++) {
		Dwarf_Word w;
		bool h = dwarf_attr(&d, at[i], &a) && !dwarf_formudata(&a, &w);
		same = same && h == has[i] && (!h || w == val[i]);
	}
	return same;
}

/* dwdie_cu_udata and dwdie_cu_string against libdw on the CU DIE: the
 * differences */
static long cu_attrs_differ(Dwarf_Die *cu, struct dwdie_cu *c)
{
	long bad = 0;
	static const unsigned nums[2] = { DW_AT_language, DW_AT_stmt_list };
	for (int i = 0; i < 2; i++) {
		uint64_t v;
		Dwarf_Attribute a;
		Dwarf_Word w;
		int h = dwdie_cu_udata(c, nums[i], &v);
		bool l = dwarf_attr(cu, nums[i], &a) && !dwarf_formudata(&a, &w);
		bad += h >= 0 && ((h > 0) != l || (h > 0 && v != w));
	}
	const char *str = NULL, *ls = NULL;
	Dwarf_Attribute a;
	int h = dwdie_cu_string(c, DW_AT_comp_dir, &str);
	if (dwarf_attr(cu, DW_AT_comp_dir, &a))
		ls = dwarf_formstring(&a);
	bad += h >= 0 && (!str != !ls || (str && strcmp(str, ls)));
	return bad;
}

/* CUs compared into *cus, functions into *fns, inline walks (at up to 64
 * addresses of each function, and just outside it) into *walks; returns
 * the differences (a CU or walk dwdie gave up on counts in *gave, not as a
 * difference) */
static long infos, info_gave; /* DIEs dwdie_info was compared on, gave to libdw */

static long compare_with_libdw(const char *path, long *cus, long *fns, long *walks, long *gave)
{
	static struct list a, b;
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Dwarf *dw = e ? dwarf_begin_elf(e, DWARF_C_READ, NULL) : NULL;
	struct dwdie_sections sec;
	long bad = 0;
	if (!dw || !dwdie_sections_of(e, &sec)) {
		if (dw)
			dwarf_end(dw);
		if (e)
			elf_end(e);
		close(fd);
		return -1;
	}
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Off cu_off = off;
		off = next;
		if (!dwarf_offdie(dw, cu_off + hsize, &cu))
			continue;
		for (int types = 0; types < 2; types++) {
			a.n = b.n = 0;
			a.full = b.full = false;
			libdw_scope(&a, &cu, 0, types);
			struct real_ctx x = { &b, dw };
			struct dwdie_visitor v = { real_range, real_ask, real_haspc, &x };
			struct dwdie_cu *c = dwdie_cu_open(&sec, cu_off, types);
			if (!c || !dwdie_functions(c, &v)) {
				dwdie_cu_free(c);
				(*gave)++;
				continue;
			}
			if (!types)
				bad += cu_attrs_differ(&cu, c);
			for (size_t i = 0; !types && i < a.n; i++) {
				Dwarf_Die fn;
				if (!dwarf_offdie(dw, a.r[i].off, &fn))
					continue;
				int si = info_same(dw, c, a.r[i].off);
				infos++;
				info_gave += si < 0;
				if (!si) {
					fprintf(stderr, "%s: DIE %#llx: dwdie_info differs from libdw\n", path,
						(unsigned long long)a.r[i].off);
					bad++;
				}
				uint64_t lo = a.r[i].lo, hi = a.r[i].hi, step = (hi - lo + 63) / 64;
				for (uint64_t pc = lo - 1; pc <= hi; pc += pc < lo || pc + step > hi ? 1 : step) {
					uint64_t p1[64], p2[64];
					int n1 = libdw_descend(&fn, pc, p1, 64);
					int n2 = dwdie_inlines(c, a.r[i].off, pc, p2, 64, &v);
					(*walks)++;
					for (int k = 1; k < n1 && k < 64; k++) {
						int sk = info_same(dw, c, p1[k]);
						infos++;
						info_gave += sk < 0;
						if (!sk) {
							fprintf(stderr, "%s: DIE %#llx: dwdie_info differs from libdw\n",
								path, (unsigned long long)p1[k]);
							bad++;
						}
					}
					if (n2 < 0) {
						(*gave)++;
					} else if (n1 != n2 || memcmp(p1, p2, (size_t)n1 * sizeof p1[0])) {
						fprintf(stderr, "%s: function %#llx at %#llx: libdw %d deep, dwdie %d\n",
							path, (unsigned long long)a.r[i].off,
							(unsigned long long)pc, n1, n2);
						bad++;
					}
				}
			}
			dwdie_cu_free(c);
			(*cus)++;
			*fns += (long)b.n;
			bool same = a.n == b.n && !a.full && !b.full;
			for (size_t i = 0; same && i < a.n; i++)
				same = !memcmp(&a.r[i], &b.r[i], sizeof a.r[i]);
			if (!same) {
				fprintf(stderr, "%s: CU %#llx: libdw %zu functions, dwdie %zu\n", path,
					(unsigned long long)cu_off, a.n, b.n);
				bad++;
			}
		}
	}
	dwarf_end(dw);
	elf_end(e);
	close(fd);
	return bad;
}

TEST(dwdie_same_as_libdw_on_real_files)
{
	elf_version(EV_CURRENT);
	long cus = 0, fns = 0, walks = 0, gave = 0;
	CHECK_EQ(compare_with_libdw("/proc/self/exe", &cus, &fns, &walks, &gave), 0);
	CHECK(cus > 10 && fns > 100);
	/* C++ (namespaces, classes), when the workloads are built */
	if (access("build/workloads/cxx", R_OK) == 0)
		CHECK_EQ(compare_with_libdw("build/workloads/cxx", &cus, &fns, &walks, &gave), 0);
	glob_t g;
	if (glob("/usr/lib/debug/.build-id/*/*.debug", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc && i < 40; i++)
			CHECK(compare_with_libdw(g.gl_pathv[i], &cus, &fns, &walks, &gave) <= 0);
		globfree(&g);
	}
	/* giving up is allowed, but these files are all plain gcc output */
	CHECK_EQ(gave, 0);
	CHECK(walks > 1000);
	/* names through DW_FORM_strx or another file are libdw's; most are not */
	CHECK(infos > 1000 && info_gave * 10 < infos);
	fprintf(stderr, "dwdie: %ld CU walks, %ld functions, %ld inline walks, %ld DIEs' names and "
		"call sites (%ld given to libdw) agree with libdw\n",
		cus, fns, walks, infos, info_gave);
}

/* ---- .debug_aranges headers ---------------------------------------------- */

/* A set's header (and one tuple when with_tuple) appended at b in the given
 * byte order; dwarf64: the 0xffffffff escape and 8-byte offsets. */
static size_t put_set(uint8_t *b, uint64_t info_off, bool dwarf64, bool big, bool with_tuple)
{
	uint8_t tmp[64];
	size_t n = 0;
	unsigned osize = dwarf64 ? 8 : 4;
	/* body: version 2, debug_info_offset, address size 8, segment size 0,
	 * padding to 16, then tuples and the (0, 0) end */
	size_t body = 2 + osize + 2;
	size_t hdr = (dwarf64 ? 12 : 4) + body;
	size_t pad = (16 - hdr % 16) % 16;
	size_t len = body + pad + (with_tuple ? 16 : 0) + 16;
#define PUT(v, w)                                                          \
	do {                                                               \
		for (unsigned i_ = 0; i_ < (w); i_++)                      \
			tmp[n + (big ? (w) - 1 - i_ : i_)] = (uint8_t)((uint64_t)(v) >> (8 * i_)); \
		n += (w);                                                  \
	} while (0)
	if (dwarf64) {
		PUT(0xffffffffu, 4);
		PUT(len, 8);
	} else {
		PUT(len, 4);
	}
	PUT(2, 2);
	PUT(info_off, osize);
	PUT(8, 1);
	PUT(0, 1);
	memset(tmp + n, 0, pad);
	n += pad;
	if (with_tuple) {
		PUT(0x1000 + info_off, 8);
		PUT(0x10, 8);
	}
	PUT(0, 8);
	PUT(0, 8);
#undef PUT
	memcpy(b, tmp, n);
	return n;
}

TEST(dwdie_aranges_lists_each_set_header)
{
	for (int big = 0; big < 2; big++) {
		uint8_t b[256];
		size_t n = 0;
		n += put_set(b + n, 0x300, false, big, true);
		n += put_set(b + n, 0x40, false, big, false); /* no tuple: still listed */
		n += put_set(b + n, 0x1234567890ull, true, big, true);
		uint64_t *cus;
		CHECK_EQ(dwdie_aranges_cus(b, n, big, &cus), 3);
		CHECK_EQ(cus[0], 0x40);
		CHECK_EQ(cus[1], 0x300);
		CHECK_EQ(cus[2], 0x1234567890ull);
		free(cus);
		/* the last set cut short: the walk keeps the whole ones */
		for (size_t cut = 1; cut < 40; cut++) {
			size_t got = dwdie_aranges_cus(b, n - cut, big, &cus);
			CHECK_EQ(got, 2);
			free(cus);
		}
		/* a zero length ends the walk (no loop on a zero size) */
		uint8_t z[32] = { 0 };
		memcpy(z + 16, b, 16);
		CHECK_EQ(dwdie_aranges_cus(z, sizeof z, big, &cus), 0);
		CHECK(cus == NULL);
		CHECK_EQ(dwdie_aranges_cus(b, 0, big, &cus), 0);
	}
}

/* On this binary (gcc lists every CU): the sets' CUs are dwarf_nextcu's. */
TEST(dwdie_aranges_same_cus_as_libdw)
{
	elf_version(EV_CURRENT);
	int fd = open("/proc/self/exe", O_RDONLY);
	CHECK(fd >= 0);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Dwarf *dw = e ? dwarf_begin_elf(e, DWARF_C_READ, NULL) : NULL;
	CHECK(dw != NULL);
	size_t shstrndx;
	CHECK_EQ(elf_getshdrstrndx(e, &shstrndx), 0);
	const uint8_t *p = NULL;
	size_t size = 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		const char *nm;
		if (gelf_getshdr(scn, &sh) && (nm = elf_strptr(e, shstrndx, sh.sh_name)) &&
		    !strcmp(nm, ".debug_aranges")) {
			Elf_Data *d = elf_getdata(scn, NULL);
			p = d->d_buf;
			size = d->d_size;
		}
	}
	CHECK(p != NULL);
	uint64_t *cus;
	size_t n = dwdie_aranges_cus(p, size, false, &cus), i = 0;
	Dwarf_Off off = 0, next;
	size_t hsize;
	bool same = true;
	for (; dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0; off = next, i++)
		same = same && i < n && cus[i] == off;
	CHECK(same);
	CHECK_EQ(i, n);
	CHECK(n > 10);
	free(cus);
	dwarf_end(dw);
	elf_end(e);
	close(fd);
}

/* dwdie_aranges: the CU of every range's first, middle and last address,
 * and of the addresses just outside it, is dwarf_addrdie's, on real files
 * (this binary, the C++ workload, installed debug files); a file it gives
 * to libdw counts, as none of these should need it. Hand-made sections:
 * each reason to give a file to libdw. */
static long aranges_differ(const char *path, long *lookups, long *gave)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Dwarf *dw = e ? dwarf_begin_elf(e, DWARF_C_READ, NULL) : NULL;
	struct dwdie_sections sec;
	const uint8_t *p = NULL;
	size_t size = 0;
	long bad = 0;
	if (dw && dwdie_sections_of(e, &sec) && elffile_section_bytes(e, ".debug_aranges", &p, &size)) {
		struct dwdie_arange *ar;
		size_t n;
		if (!dwdie_aranges(&sec, p, size, &ar, &n)) {
			(*gave)++;
		} else {
			for (size_t i = 0; i < n; i++) {
				uint64_t at[5] = { ar[i].lo - 1, ar[i].lo, ar[i].lo + ar[i].len / 2,
						   ar[i].lo + ar[i].len - 1, ar[i].lo + ar[i].len };
				for (int k = 0; k < 5; k++) {
					const struct dwdie_arange *h = dwdie_arange_find(ar, n, at[k]);
					Dwarf_Die cu;
					bool l = dwarf_addrdie(dw, at[k], &cu) != NULL;
					bad += l != (h != NULL) || (l && dwarf_dieoffset(&cu) != h->cu_die) ||
					       (l && dwarf_dieoffset(&cu) - dwarf_cuoffset(&cu) != h->cu);
					(*lookups)++;
				}
			}
			free(ar);
		}
	}
	if (dw)
		dwarf_end(dw);
	if (e)
		elf_end(e);
	close(fd);
	return bad;
}

/* a set: version 2, CU at info_off, 8-byte addresses, tuples, the end */
static size_t aset(uint8_t *b, uint16_t version, uint32_t info_off, const uint64_t *t, size_t nt,
		   bool end)
{
	size_t n = 4;
	memcpy(b + n, &version, 2), n += 2;
	memcpy(b + n, &info_off, 4), n += 4;
	b[n++] = 8, b[n++] = 0;
	while (n % 16)
		b[n++] = 0;
	for (size_t i = 0; i < 2 * nt; i++)
		memcpy(b + n, &t[i], 8), n += 8;
	if (end)
		memset(b + n, 0, 16), n += 16;
	uint32_t len = (uint32_t)(n - 4);
	memcpy(b, &len, 4);
	return n;
}

TEST(dwdie_aranges_same_as_libdw)
{
	elf_version(EV_CURRENT);
	long lookups = 0, gave = 0;
	CHECK_EQ(aranges_differ("/proc/self/exe", &lookups, &gave), 0);
	if (access("build/workloads/cxx", R_OK) == 0)
		CHECK_EQ(aranges_differ("build/workloads/cxx", &lookups, &gave), 0);
	glob_t g;
	if (glob("/usr/lib/debug/.build-id/*/*.debug", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc && i < 40; i++)
			CHECK(aranges_differ(g.gl_pathv[i], &lookups, &gave) <= 0);
		globfree(&g);
	}
	CHECK(lookups > 1000);
	CHECK_EQ(gave, 0);
	fprintf(stderr, "dwdie: %ld aranges lookups agree with dwarf_addrdie\n", lookups);

	/* hand-made: one DWARF 4 unit (11-byte header, a DIE byte) */
	uint8_t info[16] = { 12, 0, 0, 0, 4, 0, 0, 0, 0, 0, 8, 1, 0, 0, 0, 0 };
	struct dwdie_sections s = { .info = info, .info_size = 16 };
	uint8_t b[512];
	struct dwdie_arange *ar;
	size_t n;
	uint64_t two[4] = { 0x2000, 0x100, 0x1000, 0x80 }, over[4] = { 0x1000, 0x100, 0x1080, 0x10 };
	uint64_t empty[2] = { 0x1000, 0 };
	size_t m = aset(b, 2, 0, two, 2, true);
	CHECK(dwdie_aranges(&s, b, m, &ar, &n));
	CHECK_EQ(n, 2);
	CHECK(ar[0].lo == 0x1000 && ar[0].len == 0x80 && ar[1].lo == 0x2000 && ar[0].cu == 0 &&
	      ar[0].cu_die == 11);
	CHECK(dwdie_arange_find(ar, n, 0x107f) == &ar[0] && !dwdie_arange_find(ar, n, 0x1080) &&
	      dwdie_arange_find(ar, n, 0x2000) == &ar[1] && !dwdie_arange_find(ar, n, 0xfff));
	free(ar);
	CHECK(dwdie_aranges(&s, b, 0, &ar, &n) && n == 0); /* none: libdw finds none either */
	CHECK(!dwdie_aranges(&s, b, m - 1, &ar, &n));                  /* cut short */
	CHECK(!dwdie_aranges(&s, b, aset(b, 3, 0, two, 2, true), &ar, &n)); /* version */
	CHECK(!dwdie_aranges(&s, b, aset(b, 2, 1, two, 2, true), &ar, &n)); /* not a unit */
	/* overlapping and empty ranges: kept, found as libdw's search finds
	 * them (an empty range answers for its own address when the search
	 * lands on it) */
	CHECK(dwdie_aranges(&s, b, aset(b, 2, 0, over, 2, true), &ar, &n) && n == 2);
	CHECK(dwdie_arange_find(ar, n, 0x1085) == &ar[1] && dwdie_arange_find(ar, n, 0x1050) == &ar[0]);
	CHECK(!dwdie_arange_find(ar, n, 0x1095)); /* in the first, but the search ends past it */
	free(ar);
	CHECK(dwdie_aranges(&s, b, aset(b, 2, 0, empty, 1, true), &ar, &n) && n == 1);
	CHECK(dwdie_arange_find(ar, n, 0x1000) == &ar[0] && !dwdie_arange_find(ar, n, 0x1001));
	free(ar);
	uint64_t same[6] = { 0x1000, 0x10, 0x1000, 0x20, 0x1000, 0 }; /* one address thrice */
	CHECK(dwdie_aranges(&s, b, aset(b, 2, 0, same, 3, true), &ar, &n) && n == 3);
	CHECK(ar[0].len == 0x10 && ar[1].len == 0x20 && ar[2].len == 0); /* in file order */
	free(ar);
	m = aset(b, 2, 0, two, 2, false);                               /* no end */
	CHECK(!dwdie_aranges(&s, b, m, &ar, &n));
	m = aset(b, 2, 0, two, 1, true);                                /* bytes after the end */
	b[0] += 16;
	memset(b + m, 0, 16);
	CHECK(!dwdie_aranges(&s, b, m + 16, &ar, &n));
	info[4] = 5; /* a DWARF 5 header of another unit type: libdw's */
	info[6] = DW_UT_type;
	CHECK(!dwdie_aranges(&s, b, aset(b, 2, 0, two, 2, true), &ar, &n));
}

/* dwdie_aranges_kept: a table dwdie_aranges made (this binary's), taken
 * back in place with the same answers; each inconsistency refused; every
 * byte of it changed in turn: refused, or every CU and DIE offset it then
 * gives is inside .debug_info (ASan: no read outside the copy). */
TEST(dwdie_aranges_kept_checks)
{
	elf_version(EV_CURRENT);
	int fd = open("/proc/self/exe", O_RDONLY);
	CHECK(fd >= 0);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	struct dwdie_sections sec;
	const uint8_t *p = NULL;
	size_t size = 0;
	struct dwdie_arange *ar = NULL;
	size_t n = 0;
	CHECK(e && dwdie_sections_of(e, &sec) && elffile_section_bytes(e, ".debug_aranges", &p, &size));
	CHECK(dwdie_aranges(&sec, p, size, &ar, &n) && n > 10);
	size_t bytes = n * sizeof *ar;
	struct dwdie_arange *copy = malloc(bytes);
	memcpy(copy, ar, bytes);
	const struct dwdie_arange *got;
	size_t ng;
	CHECK(dwdie_aranges_kept(&sec, copy, bytes, &got, &ng) && got == copy && ng == n);
	for (size_t i = 0; i < n; i++) {
		uint64_t a = ar[i].lo + ar[i].len / 2;
		const struct dwdie_arange *x = dwdie_arange_find(ar, n, a), *y = dwdie_arange_find(got, ng, a);
		CHECK(x && y && x - ar == y - got);
	}
	CHECK(!dwdie_aranges_kept(&sec, copy, 0, &got, &ng));
	CHECK(!dwdie_aranges_kept(&sec, NULL, bytes, &got, &ng));
	CHECK(!dwdie_aranges_kept(&sec, copy, bytes - 8, &got, &ng));              /* not whole */
	CHECK(!dwdie_aranges_kept(&sec, (uint8_t *)copy + 4, bytes - 40, &got, &ng)); /* unaligned */
	struct dwdie_arange keep = copy[1];
	copy[1].cu = sec.info_size;                                                  /* CU outside */
	CHECK(!dwdie_aranges_kept(&sec, copy, bytes, &got, &ng));
	copy[1] = keep;
	copy[1].cu_die = copy[1].cu;                                                 /* DIE not after it */
	CHECK(!dwdie_aranges_kept(&sec, copy, bytes, &got, &ng));
	copy[1] = keep;
	copy[1].lo = copy[0].lo - 1;                                                 /* out of order */
	CHECK(!dwdie_aranges_kept(&sec, copy, bytes, &got, &ng));
	copy[1] = keep;
	copy[1].lo = copy[0].lo;                                                     /* a tie: file order */
	copy[1].seq = copy[0].seq;
	CHECK(!dwdie_aranges_kept(&sec, copy, bytes, &got, &ng));
	copy[1].seq = copy[0].seq + 1;
	CHECK(dwdie_aranges_kept(&sec, copy, bytes, &got, &ng));
	copy[1] = keep;
	size_t accepted = 0;
	for (size_t i = 0; i < bytes && i < 4096; i++) {
		uint8_t *b = (uint8_t *)copy + i;
		uint8_t old = *b;
		*b ^= 0x5a;
		if (dwdie_aranges_kept(&sec, copy, bytes, &got, &ng)) {
			accepted++;
			for (size_t k = 0; k < ng; k++)
				CHECK(got[k].cu < sec.info_size && got[k].cu_die < sec.info_size);
		}
		*b = old;
	}
	CHECK(accepted > 0); /* a changed length, say, is still a table */
	free(copy);
	free(ar);
	elf_end(e);
	close(fd);
}
