/* test_dwdie.c: the CU function-range reader (src/analyze/dwdie.c):
 * hand-made units for what it reports and where it must give up (a
 * sibling that points back, a truncated unit, an unknown abbreviation or
 * form), and the same function index as libdw's walk (inlines.c's
 * index_scope: dwarf_child, dwarf_siblingof, dwarf_tag, dwarf_ranges) for
 * every CU of real files: this test binary (gcc's DWARF 5), the C++
 * workload when built, and installed debug files (libc6-dbg). */
#include "analyze/dwdie.h"
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
	uint8_t b[512];
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

static bool walk(const struct bytes *info, const struct bytes *ab, bool types, struct seen *s)
{
	struct dwdie_sections sec = { info->b, ab->b, info->n, ab->n };
	struct dwdie_visitor v = { on_range, on_ask, s };
	memset(s, 0, sizeof *s);
	return dwdie_functions(&sec, 0, types, &v);
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

struct real_ctx {
	struct list *l;
	Dwarf *dw;
};

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

/* CUs compared into *cus, functions into *fns; returns the differences
 * (a CU dwdie gave up on counts in *gave, not as a difference) */
static long compare_with_libdw(const char *path, long *cus, long *fns, long *gave)
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
			struct dwdie_visitor v = { real_range, real_ask, &x };
			if (!dwdie_functions(&sec, cu_off, types, &v)) {
				(*gave)++;
				continue;
			}
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
	long cus = 0, fns = 0, gave = 0;
	CHECK_EQ(compare_with_libdw("/proc/self/exe", &cus, &fns, &gave), 0);
	CHECK(cus > 10 && fns > 100);
	/* C++ (namespaces, classes), when the workloads are built */
	if (access("build/workloads/cxx", R_OK) == 0)
		CHECK(compare_with_libdw("build/workloads/cxx", &cus, &fns, &gave) >= 0);
	glob_t g;
	if (glob("/usr/lib/debug/.build-id/*/*.debug", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc && i < 40; i++)
			CHECK(compare_with_libdw(g.gl_pathv[i], &cus, &fns, &gave) <= 0);
		globfree(&g);
	}
	/* giving up is allowed, but these files are all plain gcc output */
	CHECK_EQ(gave, 0);
	fprintf(stderr, "dwdie: %ld CU walks, %ld functions agree with libdw\n", cus, fns);
}
