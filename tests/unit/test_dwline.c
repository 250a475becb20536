/* test_dwline.c: the DWARF line table decoder (src/analyze/dwarf/dwline.c):
 * hand-made programs for the cases where libdw has its own rules (an end
 * row sorts before a row at its address, a zero-length extended opcode,
 * overlapping sequences, relative names without DW_AT_comp_dir, what it
 * rejects), and the same answers as libdw for every address of every row
 * of every CU in real files: this test binary (gcc's DWARF 5) and, when
 * installed, libc's debug file (libc6-dbg). Each hand-made program is read
 * both ways: lazily (dwline_open, rows decoded a block at a time from
 * checkpoints) and whole (dwline_open_full). */
#include "analyze/dwarf/dwline.h"
#include "test.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <unistd.h>

/* ---- a tiny DWARF 4 line program writer -------------------------------- */

struct lp {
	uint8_t b[4096];
	size_t n;
};

static void put(struct lp *p, const void *d, size_t n)
{
	memcpy(p->b + p->n, d, n);
	p->n += n;
}
static void u8(struct lp *p, unsigned v)
{
	uint8_t c = (uint8_t)v;
	put(p, &c, 1);
}
static void uleb(struct lp *p, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;
		v >>= 7;
		u8(p, c | (v ? 0x80 : 0));
	} while (v);
}
static void sleb(struct lp *p, int64_t v)
{
	for (;;) {
		uint8_t c = v & 0x7f;
		v >>= 7;
		bool done = (v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40));
		u8(p, c | (done ? 0 : 0x80));
		if (done)
			break;
	}
}
static void set_addr(struct lp *p, uint64_t a)
{
	u8(p, 0), u8(p, 9), u8(p, DW_LNE_set_address), put(p, &a, 8);
}
static void end_seq(struct lp *p)
{
	u8(p, 0), u8(p, 1), u8(p, DW_LNE_end_sequence);
}
static void advance_pc(struct lp *p, unsigned n)
{
	u8(p, DW_LNS_advance_pc), uleb(p, n);
}
static void advance_line(struct lp *p, int n)
{
	u8(p, DW_LNS_advance_line), sleb(p, n);
}
static void copy(struct lp *p)
{
	u8(p, DW_LNS_copy);
}

/* dwline_find's row, or NULL (valid until the next call) */
static const struct dwline_row *find(struct dwline *t, uint64_t addr)
{
	static struct dwline_row row;
	return dwline_find(t, addr, &row) ? &row : NULL;
}

static bool full; /* open4 reads the whole table */

/* header (version 4, dirs "inc", files "a.c" dir 0 and "/abs/b.h" dir 1,
 * "c.h" dir 1) followed by the program in prog, as .debug_line */
static struct dwline_sections sec4(const struct lp *prog)
{
	static struct lp all;
	struct lp h = { .n = 0 };
	u8(&h, 1);                 /* min_inst_length */
	u8(&h, 1);                 /* max ops */
	u8(&h, 1);                 /* default_is_stmt */
	u8(&h, (uint8_t)-5);       /* line_base */
	u8(&h, 14);                /* line_range */
	u8(&h, 13);                /* opcode_base */
	static const uint8_t std[12] = { 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
	put(&h, std, 12);
	put(&h, "inc", 4), u8(&h, 0);
	put(&h, "a.c", 4), uleb(&h, 0), uleb(&h, 0), uleb(&h, 0);
	put(&h, "/abs/b.h", 9), uleb(&h, 1), uleb(&h, 0), uleb(&h, 0);
	put(&h, "c.h", 4), uleb(&h, 1), uleb(&h, 0), uleb(&h, 0);
	u8(&h, 0);
	all.n = 0;
	uint32_t unit_length = (uint32_t)(2 + 4 + h.n + prog->n), header_length = (uint32_t)h.n;
	uint16_t version = 4;
	put(&all, &unit_length, 4), put(&all, &version, 2), put(&all, &header_length, 4);
	put(&all, h.b, h.n), put(&all, prog->b, prog->n);
	return (struct dwline_sections){ .line = all.b, .line_size = all.n };
}

static struct dwline *open4(const struct lp *prog, const char *comp_dir)
{
	struct dwline_sections sec = sec4(prog);
	return full ? dwline_open_full(&sec, 0, comp_dir, 8) : dwline_open(&sec, 0, comp_dir, 8);
}

static void rows_files_lookup(void)
{
	struct lp p = { .n = 0 };
	set_addr(&p, 0x1000);
	copy(&p);                       /* 0x1000 line 1 */
	advance_pc(&p, 0x10), advance_line(&p, 4), copy(&p); /* 0x1010 line 5 */
	u8(&p, DW_LNS_set_file), uleb(&p, 2);
	u8(&p, DW_LNS_set_column), uleb(&p, 7);
	advance_pc(&p, 0x10), copy(&p); /* 0x1020 line 5 col 7 b.h */
	copy(&p);                       /* a row at the end address */
	end_seq(&p);                    /* ends at 0x1020 */
	set_addr(&p, 0x3000), copy(&p), advance_pc(&p, 8), end_seq(&p);
	struct dwline *t = open4(&p, "/src");
	CHECK(t != NULL);
	CHECK_EQ(t->nfiles, 4);
	CHECK_STR(dwline_file(t, 0), "???");
	CHECK_STR(dwline_file(t, 1), "/src/a.c");
	CHECK_STR(dwline_file(t, 2), "/abs/b.h");
	CHECK_STR(dwline_file(t, 3), "inc/c.h");
	CHECK(find(t, 0xfff) == NULL);
	CHECK_EQ(find(t, 0x1000)->line, 1);
	CHECK_EQ(find(t, 0x100f)->line, 1);
	CHECK_EQ(find(t, 0x1010)->line, 5);
	/* libdw's order puts the end row before the rows at its address, so
	 * the end address itself still has a line (unless it is the CU's
	 * last: libdw makes the last row an end) */
	const struct dwline_row *r = find(t, 0x1020);
	CHECK(r != NULL);
	CHECK_EQ(r->column, 7);
	CHECK_STR(dwline_file(t, r->file), "/abs/b.h");
	CHECK(dwline_file(t, 99) == NULL);
	CHECK_EQ(find(t, 0x3004)->line, 1);
	CHECK(find(t, 0x3008) == NULL);
	dwline_free(t);
	/* no DW_AT_comp_dir: relative names stay relative */
	t = open4(&p, NULL);
	CHECK(t != NULL);
	CHECK_STR(dwline_file(t, 1), "a.c");
	dwline_free(t);
}

TEST(dwline_rows_files_lookup)
{
	full = false;
	rows_files_lookup();
	full = true;
	rows_files_lookup();
	full = false;
}

TEST(dwline_sequences_overlap_and_padding)
{
	struct lp p = { .n = 0 };
	set_addr(&p, 0x2000), copy(&p), advance_pc(&p, 0x20), end_seq(&p);
	/* a second sequence inside the first: the rows are sorted */
	set_addr(&p, 0x1ff0), advance_line(&p, 9), copy(&p);
	set_addr(&p, 0x2008), advance_line(&p, 10), copy(&p), advance_pc(&p, 4), end_seq(&p);
	/* an extended opcode of length 0 steps back onto its sub-opcode,
	 * read next as an opcode (here special opcode 128: +8, line -2) */
	set_addr(&p, 0x4000), advance_line(&p, 10);
	u8(&p, 0), u8(&p, 0), u8(&p, 0x80);
	advance_pc(&p, 8), end_seq(&p);
	struct dwline *t = open4(&p, "/src");
	CHECK(t != NULL);
	CHECK(t->lazy == NULL); /* overlapping sequences: the whole table */
	for (size_t i = 1; i < t->nrows; i++)
		CHECK(t->rows[i - 1].addr <= t->rows[i].addr);
	CHECK_EQ(find(t, 0x1ff0)->line, 10);
	CHECK_EQ(find(t, 0x2000)->line, 1);
	CHECK_EQ(find(t, 0x2008)->line, 20);
	CHECK(find(t, 0x2020) == NULL); /* after the end */
	CHECK_EQ(find(t, 0x4008)->line, 9);
	CHECK(find(t, 0x4004) == NULL); /* the sequence's first row is at 0x4008 */
	dwline_free(t);
}

TEST(dwline_gives_up_where_libdw_has_its_own_rules)
{
	struct lp p = { .n = 0 };
	set_addr(&p, 0x1000);
	u8(&p, DW_LNS_set_column), uleb(&p, 70000); /* over libdw's 16-bit column */
	copy(&p);
	CHECK(open4(&p, "/src") == NULL);
	p.n = 0;
	u8(&p, 0), u8(&p, 0x81); /* a length libdw reads as one byte */
	CHECK(open4(&p, "/src") == NULL);
	p.n = 0;
	u8(&p, DW_LNS_advance_pc); /* operand cut off */
	CHECK(open4(&p, "/src") == NULL);
	struct dwline_sections none = { 0 };
	CHECK(dwline_open(&none, 0, NULL, 8) == NULL);
	uint8_t shortb[6] = { 0xff, 0xff, 0xff, 0xff, 1, 0 };
	struct dwline_sections s = { .line = shortb, .line_size = sizeof shortb };
	CHECK(dwline_open(&s, 0, NULL, 8) == NULL);
	CHECK(dwline_open(&s, 100, NULL, 8) == NULL);
}

/* Every address from lo to hi answered alike by the lazy and the full table
 * of the same program; returns the differences. */
static int lazy_vs_full(const struct lp *p, uint64_t lo, uint64_t hi)
{
	full = false;
	struct dwline *z = open4(p, "/src");
	full = true;
	struct dwline *f = open4(p, "/src");
	full = false;
	if (!z || !f) {
		dwline_free(z);
		dwline_free(f);
		return 1000000;
	}
	int bad = z->nrows != f->nrows;
	/* in order and back again: the block cache must not matter */
	for (int pass = 0; pass < 2; pass++)
		for (uint64_t i = 0; i <= hi - lo; i++) {
			uint64_t a = pass ? hi - i : lo + i;
			struct dwline_row x, y;
			bool hx = dwline_find(z, a, &x), hy = dwline_find(f, a, &y);
			if (hx != hy || (hx && (x.addr != y.addr || x.line != y.line ||
						x.file != y.file || x.column != y.column))) {
				fprintf(stderr, "  %#llx: lazy %d line %d, full %d line %d\n",
					(unsigned long long)a, hx, hx ? x.line : 0, hy,
					hy ? y.line : 0);
				bad++;
			}
		}
	dwline_free(z);
	dwline_free(f);
	return bad;
}

TEST(dwline_lazy_blocks_answer_as_the_full_table)
{
	/* long sequences (many checkpoints), rows repeated at one address,
	 * the end row at a block's edge, rows at the end address before it,
	 * sequences out of address order, a sequence that is all one
	 * address, and one without an end row last */
	for (unsigned variant = 0; variant < 4; variant++) {
		struct lp p = { .n = 0 };
		set_addr(&p, 0x5000);
		for (unsigned i = 0; i < 100 + variant * 31; i++) {
			advance_pc(&p, i % 3);  /* 0: a row at the same address */
			advance_line(&p, (int)(i % 5) - 2);
			copy(&p);
		}
		if (variant & 1)
			copy(&p), copy(&p);     /* rows at the end address */
		end_seq(&p);
		set_addr(&p, 0x1000);           /* before the first sequence */
		for (unsigned i = 0; i < 40; i++)
			advance_pc(&p, 2), advance_line(&p, 1), copy(&p);
		advance_pc(&p, 2), end_seq(&p);
		set_addr(&p, 0x9000), copy(&p), copy(&p), end_seq(&p); /* one address */
		set_addr(&p, 0x9100), copy(&p), end_seq(&p);
		set_addr(&p, 0x9200), end_seq(&p);   /* only an end row */
		if (variant & 2) {
			set_addr(&p, 0xa000);   /* no end row: the last is made one */
			for (unsigned i = 0; i < 70; i++)
				advance_pc(&p, 1), copy(&p);
		}
		full = false;
		struct dwline *t = open4(&p, "/src");
		CHECK(t != NULL && t->lazy != NULL && t->rows == NULL);
		dwline_free(t);
		CHECK_EQ(lazy_vs_full(&p, 0xff0, 0xa060), 0);
	}
}

/* The table of p (lazy) opened again from its index (dwline_index): used,
 * no row decoded at open, and every address from lo to hi answered as the
 * full table does; idx keeps the index (idx_size bytes). */
static int same_answers(struct dwline *a, struct dwline *b, uint64_t lo, uint64_t hi)
{
	int bad = a->nrows != b->nrows || a->nfiles != b->nfiles;
	for (int pass = 0; pass < 2; pass++)
		for (uint64_t i = 0; i <= hi - lo; i++) {
			uint64_t q = pass ? hi - i : lo + i;
			struct dwline_row x, y;
			bool hx = dwline_find(a, q, &x), hy = dwline_find(b, q, &y);
			bad += hx != hy || (hx && (x.addr != y.addr || x.line != y.line ||
						   x.file != y.file || x.column != y.column));
		}
	return bad;
}

/* a program of long sequences, out of address order, as in the test
 * above; with define_file, one that defines a file */
static void index_prog(struct lp *p, bool define_file)
{
	p->n = 0;
	set_addr(p, 0x5000);
	for (unsigned i = 0; i < 150; i++)
		advance_pc(p, i % 3), advance_line(p, (int)(i % 5) - 2), copy(p);
	copy(p), end_seq(p);
	set_addr(p, 0x1000);
	for (unsigned i = 0; i < 40; i++)
		advance_pc(p, 2), advance_line(p, 1), copy(p);
	if (define_file)
		u8(p, 0), u8(p, 6), u8(p, DW_LNE_define_file), put(p, "d.c", 4), uleb(p, 0),
			uleb(p, 0), uleb(p, 0);
	advance_pc(p, 2), end_seq(p);
	set_addr(p, 0x9000), copy(p), copy(p), end_seq(p);
}

TEST(dwline_index_reopens_the_table_and_is_checked)
{
	struct lp p;
	index_prog(&p, false);
	struct dwline_sections sec = sec4(&p);
	struct dwline *t = dwline_open(&sec, 0, "/src", 8);
	struct dwline *f = dwline_open_full(&sec, 0, "/src", 8);
	CHECK(t != NULL && t->lazy != NULL && f != NULL);
	size_t size = dwline_index(t, NULL);
	CHECK(size > 0 && size % 8 == 0);
	uint64_t *idx = calloc(1, size + 16), *bad = calloc(1, size + 16);
	CHECK_EQ(dwline_index(t, idx), size);
	bool used = false;
	struct dwline *ti = dwline_open_indexed(&sec, 0, "/src", 8, idx, size, &used);
	CHECK(used && ti != NULL && ti->lazy != NULL);
	CHECK_EQ(same_answers(ti, f, 0xff0, 0x9010), 0);
	dwline_free(ti);
	/* refused: cut short, one byte more, misaligned, another address size */
	ti = dwline_open_indexed(&sec, 0, "/src", 8, idx, size - 8, &used);
	CHECK(!used && ti != NULL);
	CHECK_EQ(same_answers(ti, f, 0xff0, 0x9010), 0);
	dwline_free(ti);
	ti = dwline_open_indexed(&sec, 0, "/src", 8, idx, size + 1, &used);
	CHECK(!used);
	dwline_free(ti);
	memcpy((uint8_t *)bad + 4, idx, size);
	ti = dwline_open_indexed(&sec, 0, "/src", 8, (uint8_t *)bad + 4, size, &used);
	CHECK(!used);
	dwline_free(ti);
	ti = dwline_open_indexed(&sec, 0, "/src", 4, idx, size, &used);
	CHECK(!used);
	dwline_free(ti);
	/* every byte changed in turn: never a read or write outside (ASan),
	 * and where refused the answers are the scan's; the header's and the
	 * sequences' counts are among the refused */
	size_t refused = 0;
	for (size_t i = 0; i < size; i++) {
		memcpy(bad, idx, size);
		((uint8_t *)bad)[i] ^= (uint8_t)(i & 1 ? 0x80 : 0x01);
		ti = dwline_open_indexed(&sec, 0, "/src", 8, bad, size, &used);
		CHECK(ti != NULL);
		if (!used) {
			refused++;
			CHECK_EQ(same_answers(ti, f, 0xff0, 0x9010), 0);
		} else {
			same_answers(ti, f, 0xff0, 0x9010); /* any answer, no crash */
		}
		dwline_free(ti);
	}
	CHECK(refused > 40);
	/* an index from another table of the same shape: refused or not, no
	 * crash; a table whose program defines a file has none */
	struct lp q;
	index_prog(&q, true);
	struct dwline_sections sq = sec4(&q);
	struct dwline *tq = dwline_open(&sq, 0, "/src", 8);
	CHECK(tq != NULL && tq->lazy != NULL);
	CHECK_EQ(dwline_index(tq, NULL), 0);
	dwline_free(tq);
	/* a table that must be sorted: its index says so, and the next open
	 * decodes it whole at once */
	struct lp o = { .n = 0 };
	set_addr(&o, 0x2000), copy(&o), advance_pc(&o, 0x20), end_seq(&o);
	set_addr(&o, 0x2008), advance_line(&o, 10), copy(&o), advance_pc(&o, 4), end_seq(&o);
	struct dwline_sections so = sec4(&o);
	struct dwline *to = dwline_open(&so, 0, "/src", 8);
	CHECK(to != NULL && to->lazy == NULL);
	size_t osz = dwline_index(to, NULL);
	CHECK(osz > 0 && osz <= size);
	dwline_index(to, bad);
	struct dwline *to2 = dwline_open_indexed(&so, 0, "/src", 8, bad, osz, &used);
	CHECK(used && to2 != NULL && to2->lazy == NULL);
	CHECK_EQ(same_answers(to, to2, 0x1ff0, 0x2030), 0);
	dwline_free(to);
	dwline_free(to2);
	dwline_free(t);
	dwline_free(f);
	free(idx);
	free(bad);
}

/* ---- the same answers as libdw on real files ----------------------------- */

static long compare_with_libdw(const char *path, long *cus)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Dwarf *dw = e ? dwarf_begin_elf(e, DWARF_C_READ, NULL) : NULL;
	long bad = 0;
	if (!dw) {
		if (e)
			elf_end(e);
		close(fd);
		return -1;
	}
	struct dwline_sections sec;
	if (!dwline_sections_of(e, &sec)) {
		dwarf_end(dw);
		elf_end(e);
		close(fd);
		return -1;
	}
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Attribute a;
		Dwarf_Word loff;
		uint8_t asz = 0;
		bool ok = dwarf_offdie(dw, off + hsize, &cu) && dwarf_attr(&cu, DW_AT_stmt_list, &a) &&
			  !dwarf_formudata(&a, &loff);
		off = next;
		if (!ok)
			continue;
		dwarf_cu_info(cu.cu, NULL, NULL, NULL, NULL, NULL, &asz, NULL);
		const char *cd = dwarf_attr(&cu, DW_AT_comp_dir, &a) ? dwarf_formstring(&a) : NULL;
		struct dwline *t = dwline_open(&sec, loff, cd, asz);
		struct dwline *tf = dwline_open_full(&sec, loff, cd, asz);
		bad += !t != !tf;
		/* and from its index, as a later run opens it */
		struct dwline *ti = NULL;
		size_t isz = t ? dwline_index(t, NULL) : 0;
		void *idx = isz ? malloc(isz) : NULL;
		if (idx) {
			bool used;
			dwline_index(t, idx);
			ti = dwline_open_indexed(&sec, loff, cd, asz, idx, isz, &used);
			bad += !used || !ti;
		}
		Dwarf_Lines *lines;
		size_t nl;
		Dwarf_Files *files;
		size_t nf;
		if (!t || dwarf_getsrclines(&cu, &lines, &nl) || dwarf_getsrcfiles(&cu, &files, &nf)) {
			bad += t != NULL; /* dwline may give up; it may not succeed alone */
			dwline_free(t);
			dwline_free(tf);
			dwline_free(ti);
			free(idx);
			continue;
		}
		(*cus)++;
		bad += nl != t->nrows || nf != t->nfiles;
		for (size_t i = 0; i < nf && i < t->nfiles; i++) {
			const char *x = dwarf_filesrc(files, i, NULL, NULL);
			bad += strcmp(x ? x : "", dwline_file(t, i)) != 0;
		}
		for (size_t i = 0; i < nl; i++) {
			Dwarf_Addr ad;
			dwarf_lineaddr(dwarf_onesrcline(lines, i), &ad);
			for (Dwarf_Addr q = ad - 1; q <= ad + 1; q++) {
				Dwarf_Line *L = dwarf_getsrc_die(&cu, q);
				const struct dwline_row *R = find(t, q);
				struct dwline_row F, I;
				bool hf = dwline_find(tf, q, &F);
				if (ti) {
					bool hi = dwline_find(ti, q, &I);
					bad += hi != (R != NULL) ||
					       (hi && (I.line != R->line || I.file != R->file ||
						       I.column != R->column || I.addr != R->addr));
				}
				bad += hf != (R != NULL) ||
				       (hf && (F.line != R->line || F.file != R->file ||
					       F.column != R->column));
				if (!L || !R) {
					bad += !L != !R;
					continue;
				}
				int ln, col;
				dwarf_lineno(L, &ln);
				dwarf_linecol(L, &col);
				const char *fl = dwarf_linesrc(L, NULL, NULL), *fr = dwline_file(t, R->file);
				bad += ln != R->line || col != R->column || strcmp(fl ? fl : "", fr ? fr : "");
			}
		}
		dwline_free(t);
		dwline_free(tf);
		dwline_free(ti);
		free(idx);
	}
	dwarf_end(dw);
	elf_end(e);
	close(fd);
	return bad;
}

TEST(dwline_same_as_libdw_on_real_files)
{
	elf_version(EV_CURRENT);
	long cus = 0;
	CHECK_EQ(compare_with_libdw("/proc/self/exe", &cus), 0);
	CHECK(cus > 10);
	/* libc's debug file (compressed sections, DWARF 5) when installed */
	glob_t g;
	if (glob("/usr/lib/debug/.build-id/*/*.debug", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc && i < 40; i++) {
			long c = 0, b = compare_with_libdw(g.gl_pathv[i], &c);
			if (b > 0)
				fprintf(stderr, "%s: %ld differences\n", g.gl_pathv[i], b);
			CHECK(b <= 0);
			cus += c;
		}
		globfree(&g);
	}
	fprintf(stderr, "dwline: %ld CUs agree with libdw\n", cus);
}
