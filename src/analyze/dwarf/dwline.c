/*
 * dwline.c: DWARF line tables (see dwline.h).
 *
 * The decoder follows DWARF 2-5 (section 6.2) and, wherever a producer
 * could make two readers differ, elfutils 0.188's read_srclines: what it
 * rejects as invalid (a value that does not fit its Dwarf_Line field, an
 * opcode with an unexpected operand count, a header whose end does not
 * match header_length) and what it reads its own way (an extended
 * opcode's length as one byte) make this decoder give up, so libdw
 * decides those tables. Every read is bounds-checked: the input is a file.
 */
#include "analyze/dwarf/dwline.h"
#include "analyze/symbols/elffile.h"
#include "util/bsearch.h"
#include "util/buf.h"
#include "util/xalloc.h"

#include <dwarf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct rd {
	const uint8_t *p, *end;
	bool bad;
};

/* run_program and what it calls per opcode are inlined (with the mode a
 * constant: one loop per mode, no test of the mode per row) */
#define INLINE inline __attribute__((always_inline))

static uint64_t rd_fixed(struct rd *r, unsigned n)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		return 0;
	}
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

static uint64_t rd_uleb_slow(struct rd *r)
{
	uint64_t v = 0;
	for (unsigned shift = 0; !r->bad; shift += 7) {
		if (r->p >= r->end || shift >= 64) {
			r->bad = true;
			break;
		}
		uint8_t b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	return 0;
}

static int64_t rd_sleb_slow(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	for (; !r->bad; shift += 7) {
		if (r->p >= r->end || shift >= 64) {
			r->bad = true;
			return 0;
		}
		uint8_t b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			shift += 7;
			if (shift < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << shift;
			return (int64_t)v;
		}
	}
	return 0;
}

/* most operands are one byte */
static INLINE uint64_t rd_uleb(struct rd *r)
{
	if (__builtin_expect(!r->bad && r->p < r->end && !(*r->p & 0x80), 1))
		return *r->p++;
	return rd_uleb_slow(r);
}

/* a NUL-terminated string at p within [p, end), or NULL */
static const char *str_at(const uint8_t *p, const uint8_t *end)
{
	return p < end && memchr(p, 0, (size_t)(end - p)) ? (const char *)p : NULL;
}

static const char *rd_cstr(struct rd *r)
{
	const char *s = r->bad ? NULL : str_at(r->p, r->end);
	if (!s) {
		r->bad = true;
		return NULL;
	}
	r->p += strlen(s) + 1;
	return s;
}

/* dir + "/" + name as libdw joins them: absolute names as they are, no
 * directory (no DW_AT_comp_dir) leaves the name relative */
static char *join(const char *dir, const char *name)
{
	if (name[0] == '/' || !dir)
		return xstrdup(name);
	size_t dl = strlen(dir), nl = strlen(name);
	char *s = xmalloc(dl + nl + 2);
	memcpy(s, dir, dl);
	s[dl] = '/';
	memcpy(s + dl + 1, name, nl + 1);
	return s;
}

struct builder {
	struct dwline *t;
	size_t cap_rows, cap_files, cap_dirs;
	size_t max;            /* entries of any list: at most one per byte of the unit */
	const char **dirs;
	size_t ndirs;
};

/* The state machine's registers (DWARF 5, 6.2.2) that rows carry. */
struct lstate {
	uint64_t addr;
	uint32_t op_index, file, column, isa, discriminator;
	int64_t line;
	uint8_t is_stmt;
};

/*
 * Lazy tables. Most of a CU's rows are never asked for: a profile touches a
 * few functions of it. dwline_open runs the line program once without
 * keeping rows (SCAN): it counts them, notes each sequence's shape and
 * keeps a checkpoint (the row, the registers after it and the program
 * position) every CKPT_ROWS rows. A lookup finds the sequence and the
 * checkpoint below the address and runs the program from there for one
 * block (BLOCK). The answers are those of the full table (FULL, what
 * dwline_open_full keeps), whose order (sort_rows) is the sequences sorted
 * by their first row and concatenated, each sequence's end row moved before
 * the rows at its own address; where that concatenation is not already in
 * order (sequences that overlap, addresses that go back inside a sequence)
 * the table is decoded in FULL instead.
 */
#define CKPT_ROWS 32

struct ckpt {
	struct dwline_row row;     /* the row at the checkpoint */
	struct lstate s;           /* the registers after it */
	uint64_t pos;              /* the program after it: its offset in .debug_line */
};

struct lseq {
	uint64_t first_addr, end_addr;
	uint32_t first, n;         /* rows [first, first + n) in table order */
	uint32_t c0, c1;           /* checkpoints [c0, c1) */
	uint32_t trailing;         /* rows at end_addr just before the end row */
	uint8_t has_end, monotone; /* (bytes: any value of a kept index is one) */
	/* the first and last rows once the end row is moved (sort_rows) */
	struct dwline_row fm, lm;
};

/* How a table's line program is run: its header's constants, and what each
 * opcode is (worked out once per table, not per run of the program): its
 * class, and for special opcodes with one operation per instruction the
 * line and address steps (ADVANCE's arithmetic without its divisions). */
enum {
	/* 1 to DW_LNS_set_isa: that standard opcode, its operand count as
	 * DWARF says (libdw rejects any other) */
	OP_SKIP = DW_LNS_set_isa + 1, /* an opcode this decoder does not know:
				       * skip its ULEB128 operands */
	OP_EXT,                       /* 0: an extended opcode */
	OP_SPECIAL,                   /* special, the steps from sp_line/sp_addr */
	OP_SPECIAL_GEN,               /* special, with op_index (max_ops > 1) */
	OP_BAD,                       /* a standard opcode with another operand count */
};

struct prog {
	unsigned address_size;
	uint8_t min_len, max_ops, default_is_stmt, line_range, opcode_base;
	int8_t line_base;
	uint8_t std_len[256];
	uint8_t cls[256];
	int32_t sp_line[256];
	uint32_t sp_addr[256];
};

static void prog_init(struct prog *g)
{
	static const uint8_t want[] = { 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
	bool sp_fast = g->line_range && g->max_ops == 1;
	for (unsigned op = 0; op < 256; op++) {
		g->sp_line[op] = 0;
		g->sp_addr[op] = 0;
		if (op >= g->opcode_base) {
			g->cls[op] = sp_fast ? OP_SPECIAL : OP_SPECIAL_GEN;
			if (sp_fast) {
				g->sp_line[op] = g->line_base + (int)(op - g->opcode_base) % g->line_range;
				g->sp_addr[op] = (uint32_t)(g->min_len *
							    ((uint32_t)(op - g->opcode_base) / g->line_range));
			}
		} else if (op == 0) {
			g->cls[op] = OP_EXT;
		} else if (op <= DW_LNS_set_isa) {
			g->cls[op] = g->std_len[op] == want[op] ? (uint8_t)op : OP_BAD;
		} else {
			g->cls[op] = OP_SKIP;
		}
	}
}

struct dwline_lazy {
	const uint8_t *base;       /* .debug_line */
	const uint8_t *end;        /* of the unit */
	struct prog g;
	size_t nfiles_hdr;         /* the header's files (the program may define more) */
	bool borrowed;             /* ck is a kept index's (dwline_open_indexed), not ours:
				    * each checkpoint is checked before use (ckpt_ok) */
	uint64_t prog_off;         /* borrowed: where the program starts in .debug_line */
	struct ckpt *ck;
	size_t nck, cap_ck;
	struct lseq *sq;           /* in table order while scanning, then sorted */
	size_t nsq, cap_sq;
	/* one decoded block, the last one asked for */
	size_t blk;                /* its checkpoint + 1; 0: none */
	uint32_t blk_n;
	struct dwline_row rows[CKPT_ROWS + 1];
};

enum run_mode { FULL, SCAN, BLOCK };


struct run {
	struct builder *b;         /* FULL, SCAN */
	struct dwline_lazy *lz;
	/* SCAN: the rows so far and the most allowed (the table's nrows
	 * and the builder's max, kept here while the program runs) */
	size_t nrows, max;
	/* SCAN: the sequence being read */
	bool in_seq, monotone, ckpt_due;
	uint64_t prev;             /* the last row's address */
	uint32_t run_start;        /* the first of the rows at prev */
	uint32_t next_ck;          /* the row that may take the next checkpoint */
	struct dwline_row row;     /* the row a due checkpoint starts with */
	/* BLOCK */
	struct dwline_row *out;    /* rows, up to want */
	uint32_t got, want;
};

/* Append the file dir + name (joined when first asked for: a table names
 * thousands of files, a profile a few) to the file table; false when the
 * table is full. */
static bool add_file(struct builder *b, const char *dir, const char *name)
{
	struct dwline *t = b->t;
	size_t cap = b->cap_files;
	if (ARRAY_GROW(t->files, b->cap_files, t->nfiles + 1, b->max) ||
	    (b->cap_files != cap &&
	     ARRAY_GROW(t->fparts, cap, b->cap_files, b->max)))
		return false;
	t->files[t->nfiles] = NULL;
	t->fparts[t->nfiles][0] = dir;
	t->fparts[t->nfiles++][1] = name;
	return true;
}

static bool add_dir(struct builder *b, const char *dir)
{
	if (ARRAY_GROW(b->dirs, b->cap_dirs, b->ndirs + 1, b->max))
		return false;
	b->dirs[b->ndirs++] = dir;
	return true;
}

/* One entry of a DWARF 5 directory or file table: the path and the
 * directory index (when idx_form is wanted) by their forms. false: a form
 * this decoder does not read, or bad data. */
struct form_ctx {
	const struct dwline_sections *sec;
	unsigned offset_size;
};

static bool read_form(struct rd *r, const struct form_ctx *c, uint64_t form, const char **str,
		      uint64_t *num, bool *is_num)
{
	*str = NULL;
	*is_num = false;
	switch (form) {
	case DW_FORM_string:
		*str = rd_cstr(r);
		break;
	case DW_FORM_line_strp:
	case DW_FORM_strp: {
		uint64_t off = rd_fixed(r, c->offset_size);
		const uint8_t *base = form == DW_FORM_line_strp ? c->sec->line_str : c->sec->str;
		size_t size = form == DW_FORM_line_strp ? c->sec->line_str_size : c->sec->str_size;
		if (r->bad || !base || off >= size)
			return false;
		*str = str_at(base + off, base + size);
		if (!*str)
			return false;
		break;
	}
	case DW_FORM_udata:
		*num = rd_uleb(r);
		*is_num = true;
		break;
	case DW_FORM_data1:
		*num = rd_fixed(r, 1);
		*is_num = true;
		break;
	case DW_FORM_data2:
		*num = rd_fixed(r, 2);
		*is_num = true;
		break;
	case DW_FORM_data4:
		*num = rd_fixed(r, 4);
		*is_num = true;
		break;
	case DW_FORM_data8:
		*num = rd_fixed(r, 8);
		*is_num = true;
		break;
	case DW_FORM_data16:
		rd_fixed(r, 8);
		rd_fixed(r, 8);
		break;
	case DW_FORM_block: {
		uint64_t n = rd_uleb(r);
		if (r->bad || n > (uint64_t)(r->end - r->p))
			return false;
		r->p += n;
		break;
	}
	default:
		return false;
	}
	return !r->bad;
}

/* DWARF 5: the entry format, then count entries; paths into out (files:
 * with their directory index joined). */
static bool read_v5_table(struct rd *r, const struct form_ctx *c, struct builder *b, bool files)
{
	uint64_t forms[256], descs[256];
	unsigned nforms = (unsigned)rd_fixed(r, 1);
	int path = -1, dirx = -1;
	for (unsigned i = 0; i < nforms; i++) {
		descs[i] = rd_uleb(r);
		forms[i] = rd_uleb(r);
		if (descs[i] == DW_LNCT_path)
			path = (int)i;
		else if (descs[i] == DW_LNCT_directory_index)
			dirx = (int)i;
	}
	uint64_t n = rd_uleb(r);
	if (r->bad || (nforms && (path < 0 || (files && dirx < 0))) || (!nforms && n))
		return false;
	if (nforms && n > (uint64_t)(r->end - r->p) / nforms)
		return false;

	for (uint64_t k = 0; k < n; k++) {
		const char *name = NULL;
		uint64_t dir = UINT64_MAX;
		for (unsigned i = 0; i < nforms; i++) {
			const char *s;
			uint64_t v = 0;
			bool isnum;
			if (!read_form(r, c, forms[i], &s, &v, &isnum))
				return false;
			if ((int)i == path)
				name = s;
			else if ((int)i == dirx && isnum)
				dir = v;
		}
		if (!name)
			return false;
		if (!files) {
			if (!add_dir(b, name))
				return false;
			continue;
		}
		if (dir == UINT64_MAX || dir >= b->ndirs || !add_file(b, b->dirs[dir], name))
			return false;
	}
	return true;
}

/* A DWARF < 5 list (directories, files) ends with a NUL byte: 1 when it
 * was there (consumed), 0 when an entry follows, -1 at the end of data. */
static int list_end(struct rd *r)
{
	if (r->p >= r->end)
		return -1;
	if (*r->p)
		return 0;
	r->p++;
	return 1;
}

/* DWARF < 5: directory 0 is the compilation directory; file 0 does not
 * exist ("???" in libdw), files name their directory by index. */
static bool read_v4_tables(struct rd *r, struct builder *b, const char *comp_dir)
{
	int e;
	if (!add_dir(b, comp_dir))
		return false;
	while (!(e = list_end(r))) {
		const char *d = rd_cstr(r);
		if (!d || !add_dir(b, d))
			return false;
	}
	if (e < 0 || !add_file(b, NULL, "???"))
		return false;
	while (!(e = list_end(r))) {
		const char *name = rd_cstr(r);
		uint64_t dir = rd_uleb(r);
		rd_uleb(r); /* mtime, length */
		rd_uleb(r);
		if (r->bad || dir >= b->ndirs || !add_file(b, b->dirs[dir], name))
			return false;
	}
	return e > 0;
}

/* SCAN: a sequence starts at row idx */
static INLINE bool seq_begin(struct run *u, uint32_t idx, uint64_t addr)
{
	struct dwline_lazy *z = u->lz;
	if (z->nsq >= z->cap_sq && ARRAY_GROW(z->sq, z->cap_sq, z->nsq + 1, u->max))
		return false;
	z->sq[z->nsq++] = (struct lseq){ .first_addr = addr, .first = idx, .c0 = (uint32_t)z->nck };
	u->in_seq = u->monotone = true;
	u->prev = addr;
	u->run_start = idx;
	u->next_ck = 0; /* its first row takes one */
	return true;
}

/* SCAN: the sequence ends before row next (at its end row, or where the
 * program ends) */
static INLINE void seq_close(struct run *u, uint32_t next, bool has_end)
{
	struct lseq *q = &u->lz->sq[u->lz->nsq - 1];
	q->n = next - q->first;
	q->end_addr = u->prev;
	q->has_end = has_end;
	q->monotone = u->monotone;
	/* the rows at the end address before the end row */
	q->trailing = has_end ? next - 1 - u->run_start : 0;
	u->in_seq = false;
}

/* SCAN: what a row tells of its sequence's shape, and whether a checkpoint
 * follows it (the first row of each sequence, then every CKPT_ROWS rows;
 * never after an end row but a sequence's first, so that the rows just
 * before an end row are in its block) */
static INLINE bool scan_row(struct run *u, uint32_t idx, const struct lstate *s, bool end)
{
	if (!u->in_seq && !seq_begin(u, idx, s->addr))
		return false;
	if (s->addr != u->prev) {
		u->monotone &= s->addr > u->prev;
		u->prev = s->addr;
		u->run_start = idx;
	}
	if (idx >= u->next_ck && (!end || !u->next_ck)) {
		u->ckpt_due = true;
		u->next_ck = idx + CKPT_ROWS;
		u->row = (struct dwline_row){ .addr = s->addr, .line = (int32_t)s->line,
					      .file = s->file, .column = (uint16_t)s->column,
					      .end_sequence = end, .idx = idx };
	}
	if (end)
		seq_close(u, idx + 1, true);
	return true;
}

static INLINE bool add_row(struct run *u, enum run_mode mode, const struct lstate *s, bool end)
{
	/* libdw's Dwarf_Line fields: a value that does not fit is invalid
	 * (line an int, column 16 bits, op_index, isa 8, discriminator 24;
	 * one test of all: (line - INT_MIN) fits 32 bits when line fits) */
	if (__builtin_expect((((uint64_t)s->line - (uint64_t)INT_MIN) >> 32) | (s->column >> 16) |
				     (s->op_index >> 8) | (s->isa >> 8) | (s->discriminator >> 24),
			     0))
		return false;
	if (mode == SCAN) {
		if (u->nrows >= u->max)
			return false; /* as ARRAY_GROW's limit in FULL */
		return scan_row(u, (uint32_t)u->nrows++, s, end);
	}
	struct dwline_row *w;
	uint32_t idx;
	if (mode == FULL) {
		struct builder *b = u->b;
		struct dwline *t = b->t;
		if (t->nrows >= b->cap_rows && ARRAY_GROW(t->rows, b->cap_rows, t->nrows + 1, b->max))
			return false;
		w = &t->rows[t->nrows];
		idx = (uint32_t)t->nrows++;
	} else {
		w = &u->out[u->got];
		idx = u->out[0].idx + u->got++;
	}
	*w = (struct dwline_row){ .addr = s->addr, .line = (int32_t)s->line, .file = s->file,
				  .column = (uint16_t)s->column, .end_sequence = end, .idx = idx };
	return true;
}

/* libdw's order: address, end_sequence before other rows, table order */
static int row_cmp(const void *a, const void *b)
{
	const struct dwline_row *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->end_sequence != y->end_sequence)
		return x->end_sequence ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static bool sorted(const struct dwline_row *r, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (row_cmp(&r[i - 1], &r[i]) > 0)
			return false;
	return true;
}

struct seq {
	size_t start, n;
};

/* Rows come in sequences, each in address order: sort the sequences by
 * their first row and concatenate; only when that is not libdw's order
 * (sequences that overlap) sort the rows. */
static void sort_rows(struct dwline *t)
{
	size_t n = t->nrows;
	if (sorted(t->rows, n))
		return;
	size_t nseq = 0, cap = 16;
	struct seq *sq = xmalloc(cap * sizeof *sq);
	for (size_t i = 0, s = 0; i < n; i++)
		if (t->rows[i].end_sequence || i + 1 == n) {
			if (nseq == cap) {
				cap *= 2;
				sq = xrealloc(sq, cap * sizeof *sq);
			}
			sq[nseq].start = s;
			sq[nseq++].n = i + 1 - s;
			s = i + 1;
		}
	/* a sequence's end row goes before the rows at its own address (a
	 * row is often emitted at the end address, then the end) */
	for (size_t i = 0; i < nseq; i++) {
		struct dwline_row *q = t->rows + sq[i].start;
		size_t e = sq[i].n - 1, j = e;
		if (!q[e].end_sequence)
			continue;
		while (j > 0 && q[j - 1].addr == q[e].addr && !q[j - 1].end_sequence)
			j--;
		if (j < e) {
			struct dwline_row end = q[e];
			memmove(q + j + 1, q + j, (e - j) * sizeof *q);
			q[j] = end;
		}
	}
	/* by first row (row_cmp), stable by position: sort the start indices
	 * through a key array */
	struct dwline_row *firsts = xmalloc(nseq * sizeof *firsts);
	for (size_t i = 0; i < nseq; i++) {
		firsts[i] = t->rows[sq[i].start];
		firsts[i].idx = (uint32_t)i;
	}
	qsort(firsts, nseq, sizeof *firsts, row_cmp);
	struct dwline_row *out = xmalloc(n * sizeof *out);
	size_t w = 0;
	for (size_t i = 0; i < nseq; i++) {
		const struct seq *q = &sq[firsts[i].idx];
		memcpy(out + w, t->rows + q->start, q->n * sizeof *out);
		w += q->n;
	}
	free(firsts);
	free(sq);
	if (!sorted(out, n))
		qsort(out, n, sizeof *out, row_cmp);
	free(t->rows);
	t->rows = out;
}

/* Run the line program from r->p with registers *st: FULL and SCAN to the
 * end of the unit, BLOCK until u->want rows are out. The read position is
 * a local (a struct rd whose address reached the out-of-line readers would
 * live in memory): operands are read inline, the rare long ones through a
 * copy. Once an opcode's operands are bad the program is (libdw: invalid
 * data), so each read returns false at once. */
static INLINE bool run_program(struct rd *r, struct run *ru, enum run_mode mode, struct lstate *st,
			       const struct prog *g)
{
	/* a local copy, so that its fields can live in registers */
	struct run uu = *ru, *u = &uu;
	struct lstate s = *st;
	const uint8_t *p = r->p, *end = r->end;
	const uint8_t max_ops = g->max_ops, min_len = g->min_len;
#define ADVANCE(adv)                                                                               \
	do {                                                                                       \
		uint32_t a_ = (adv);                                                               \
		s.addr += (uint32_t)(min_len * ((s.op_index + a_) / max_ops));                     \
		s.op_index = (s.op_index + a_) % max_ops;                                          \
	} while (0)
#define ULEB(v)                                                                                    \
	do {                                                                                       \
		if (__builtin_expect(p < end && !(*p & 0x80), 1)) {                                \
			(v) = *p++;                                                                \
		} else {                                                                           \
			struct rd t_ = { p, end, false };                                          \
			(v) = rd_uleb_slow(&t_);                                                   \
			p = t_.p;                                                                  \
			if (t_.bad)                                                                \
				return false;                                                      \
		}                                                                                  \
	} while (0)
	/* libdw's unsigned int operands: larger is invalid */
#define ULEB32(v)                                                                                  \
	do {                                                                                       \
		uint64_t w_;                                                                       \
		ULEB(w_);                                                                          \
		if (w_ > UINT32_MAX)                                                               \
			return false;                                                              \
		(v) = (uint32_t)w_;                                                                \
	} while (0)
	while (p < end) {
		uint8_t op = *p++;
		switch (g->cls[op]) {
		case OP_SPECIAL:
			s.line += g->sp_line[op];
			s.addr += g->sp_addr[op];
			if (!add_row(u, mode, &s, false))
				return false;
			s.discriminator = 0;
			break;
		case OP_SPECIAL_GEN:
			if (!g->line_range)
				return false;
			s.line += g->line_base + (op - g->opcode_base) % g->line_range;
			ADVANCE((uint32_t)(op - g->opcode_base) / g->line_range);
			if (!add_row(u, mode, &s, false))
				return false;
			s.discriminator = 0;
			break;
		case OP_EXT: {
			if (end - p < 2)
				return false;
			uint8_t len = *p++;
			if (len & 0x80 || (size_t)(end - p) < len)
				return false; /* libdw reads the ULEB128 length as one byte */
			uint8_t sub = *p++;
			switch (sub) {
			case DW_LNE_end_sequence:
				if (!add_row(u, mode, &s, true))
					return false;
				s = (struct lstate){ .file = 1, .line = 1, .is_stmt = g->default_is_stmt };
				break;
			case DW_LNE_set_address: {
				s.op_index = 0;
				if (g->address_size != 4 && g->address_size != 8)
					return false;
				struct rd t = { p, end, false };
				s.addr = rd_fixed(&t, g->address_size);
				if (t.bad)
					return false;
				p = t.p;
				break;
			}
			case DW_LNE_define_file: {
				struct rd t = { p, end, false };
				const char *name = rd_cstr(&t);
				uint64_t dir = rd_uleb(&t);
				rd_uleb(&t);
				rd_uleb(&t);
				if (t.bad)
					return false;
				p = t.p;
				/* BLOCK: the scan has added it */
				if (mode != BLOCK &&
				    (dir >= u->b->ndirs || !add_file(u->b, u->b->dirs[dir], name)))
					return false;
				break;
			}
			case DW_LNE_set_discriminator:
				if (g->std_len[DW_LNE_set_discriminator] != 1)
					return false;
				ULEB32(s.discriminator);
				break;
			case DW_LNE_NVIDIA_inlined_call:
			case DW_LNE_NVIDIA_set_function_name:
				return false;
			default:
				/* skip the operands; a length of 0 steps back onto
				 * the sub-opcode byte, read next as an opcode (as
				 * libdw does: zero padding reads as such) */
				p = len ? p + len - 1 : p - 1;
				break;
			}
			break;
		}
		case OP_BAD:
			return false;
		case OP_SKIP:
			for (unsigned k = g->std_len[op]; k > 0; k--) {
				uint64_t v_;
				ULEB(v_);
				(void)v_;
			}
			break;
		case DW_LNS_copy:
			if (!add_row(u, mode, &s, false))
				return false;
			s.discriminator = 0;
			break;
		case DW_LNS_advance_pc: {
			uint32_t v;
			ULEB32(v);
			ADVANCE(v);
			break;
		}
		case DW_LNS_advance_line: {
			int64_t v;
			if (__builtin_expect(p < end && !(*p & 0x80), 1)) {
				uint8_t b = *p++;
				v = b & 0x40 ? (int64_t)b - 0x80 : (int64_t)b;
			} else {
				struct rd t = { p, end, false };
				v = rd_sleb_slow(&t);
				p = t.p;
				if (t.bad)
					return false;
			}
			if (v < INT_MIN || v > INT_MAX)
				return false;
			s.line += v;
			break;
		}
		case DW_LNS_set_file:
			ULEB32(s.file);
			break;
		case DW_LNS_set_column:
			ULEB32(s.column);
			break;
		case DW_LNS_negate_stmt:
			s.is_stmt = !s.is_stmt;
			break;
		case DW_LNS_set_basic_block:
			break;
		case DW_LNS_const_add_pc:
			if (!g->line_range)
				return false;
			ADVANCE((uint32_t)(255 - g->opcode_base) / g->line_range);
			break;
		case DW_LNS_fixed_advance_pc:
			if (end - p < 2)
				return false;
			s.addr += (uint64_t)p[0] | (uint64_t)p[1] << 8;
			p += 2;
			s.op_index = 0;
			break;
		case DW_LNS_set_prologue_end:
		case DW_LNS_set_epilogue_begin:
			break;
		case DW_LNS_set_isa:
			ULEB32(s.isa);
			break;
		}
		if (mode == SCAN && u->ckpt_due) {
			struct dwline_lazy *z = u->lz;
			if (z->nck >= z->cap_ck && ARRAY_GROW(z->ck, z->cap_ck, z->nck + 1, u->max))
				return false;
			z->ck[z->nck++] = (struct ckpt){ u->row, s, (uint64_t)(p - z->base) };
			u->ckpt_due = false;
		} else if (mode == BLOCK && u->got == u->want) {
			break;
		}
	}
	r->p = p;
	*st = s;
	*ru = uu;
#undef ADVANCE
#undef ULEB
#undef ULEB32
	return true;
}

bool dwline_sections_of(Elf *e, struct dwline_sections *sec)
{
	GElf_Ehdr eh;
	memset(sec, 0, sizeof(*sec));
	return e && gelf_getehdr(e, &eh) && eh.e_ident[EI_DATA] == ELFDATA2LSB &&
	       elffile_section_bytes(e, ".debug_line", &sec->line, &sec->line_size) &&
	       elffile_section_bytes(e, ".debug_line_str", &sec->line_str, &sec->line_str_size) &&
	       elffile_section_bytes(e, ".debug_str", &sec->str, &sec->str_size) && sec->line;
}

/* The sequences' first and last rows once sort_rows has moved end rows. */
static void seq_ends(struct lseq *q)
{
	struct dwline_row end = { .addr = q->end_addr, .end_sequence = 1,
				  .idx = q->first + q->n - 1 };
	q->fm = (struct dwline_row){ .addr = q->first_addr, .idx = q->first };
	q->lm = q->fm;
	q->lm.idx = q->first + q->n - 1;
	if (!q->has_end) {
		q->lm.addr = q->end_addr;
		return;
	}
	if (q->trailing + 1 == q->n)
		q->fm = end;           /* every row is at the end address */
	if (q->trailing) {
		q->lm.addr = q->end_addr;
		q->lm.idx = end.idx - 1;
	} else {
		q->lm = end;
	}
}

static int seq_cmp(const void *a, const void *b)
{
	return row_cmp(&((const struct lseq *)a)->fm, &((const struct lseq *)b)->fm);
}

/* After the scan: sort the sequences as sort_rows would and check that the
 * full table would be their concatenation; false when it would not be. */
static bool lazy_ready(struct dwline_lazy *z)
{
	for (size_t i = 0; i < z->nsq; i++) {
		struct lseq *q = &z->sq[i];
		if (!q->monotone)
			return false;
		q->c1 = i + 1 < z->nsq ? z->sq[i + 1].c0 : (uint32_t)z->nck;
		seq_ends(q);
	}
	if (z->nsq > 1)
		qsort(z->sq, z->nsq, sizeof *z->sq, seq_cmp);
	for (size_t i = 1; i < z->nsq; i++)
		if (row_cmp(&z->sq[i - 1].lm, &z->sq[i].fm) > 0)
			return false;
	return true;
}

/*
 * A table's index: what the scan found (its sequences, sorted, and
 * checkpoints), kept across runs by the caller (linecache.c) so that a
 * later run of the same file opens the table without running its program.
 * Or, for a table the scan found out of order, only that: the next run
 * decodes it in full at once.
 *
 *   struct idx_hdr, then struct lseq[nsq], struct ckpt[nck]
 *
 * An index is used only when it checks against the table (adopt_index):
 * its layout, the header's file count, the rows within the unit, the
 * sequences in order without overlap, each starting at its first
 * checkpoint; and a checkpoint when a lookup uses it (ckpt_ok: its row
 * inside the sequence, its program position inside the unit's program, its
 * line register an int, as the scan's rows), while a block holds at most
 * CKPT_ROWS + 1 rows whatever the index says. A damaged index can then give
 * a wrong row, never a read or a write outside the table or the index.
 */
enum { DWLINE_IDX_LAZY = 1, DWLINE_IDX_FULL = 2 };

struct idx_hdr {
	uint32_t version;          /* DWLINE_INDEX_VERSION */
	uint32_t state;            /* DWLINE_IDX_LAZY or DWLINE_IDX_FULL */
	uint16_t ckpt_rows, ckpt_size, seq_size, row_size;
	uint32_t address_size, zero; /* (no padding: every byte written is set) */
	uint64_t nrows, nfiles, nsq, nck;
};

#define DWLINE_INDEX_VERSION 1

static void row_copy(struct dwline_row *to, const struct dwline_row *from)
{
	to->addr = from->addr;
	to->line = from->line;
	to->file = from->file;
	to->column = from->column;
	to->end_sequence = from->end_sequence;
	to->idx = from->idx;
}

size_t dwline_index(const struct dwline *t, void *out)
{
	struct idx_hdr h = { .version = DWLINE_INDEX_VERSION, .ckpt_rows = CKPT_ROWS,
			     .ckpt_size = sizeof(struct ckpt), .seq_size = sizeof(struct lseq),
			     .row_size = sizeof(struct dwline_row) };
	const struct dwline_lazy *z = t->lazy;
	if (z) {
		if (z->nfiles_hdr != t->nfiles)
			return 0; /* the program defines files: only its run has them */
		h.state = DWLINE_IDX_LAZY;
		h.address_size = z->g.address_size;
		h.nrows = t->nrows;
		h.nfiles = t->nfiles;
		h.nsq = z->nsq;
		h.nck = z->nck;
	} else if (t->scanned_full) {
		h.state = DWLINE_IDX_FULL;
	} else {
		return 0;
	}
	size_t size = sizeof h + h.nsq * sizeof(struct lseq) + h.nck * sizeof(struct ckpt);
	if (out) {
		/* field by field into zeroed bytes: no padding byte of ours
		 * (whatever it held) goes to the file */
		uint8_t *o = out;
		memset(o, 0, size);
		memcpy(o, &h, sizeof h);
		struct lseq *sq = (void *)(o + sizeof h);
		struct ckpt *ck = (void *)(o + sizeof h + h.nsq * sizeof *sq);
		for (size_t i = 0; z && i < z->nsq; i++) {
			const struct lseq *q = &z->sq[i];
			sq[i].first_addr = q->first_addr;
			sq[i].end_addr = q->end_addr;
			sq[i].first = q->first;
			sq[i].n = q->n;
			sq[i].c0 = q->c0;
			sq[i].c1 = q->c1;
			sq[i].trailing = q->trailing;
			sq[i].has_end = q->has_end;
			sq[i].monotone = q->monotone;
			row_copy(&sq[i].fm, &q->fm);
			row_copy(&sq[i].lm, &q->lm);
		}
		for (size_t i = 0; z && i < z->nck; i++) {
			const struct ckpt *k = &z->ck[i];
			row_copy(&ck[i].row, &k->row);
			ck[i].s.addr = k->s.addr;
			ck[i].s.op_index = k->s.op_index;
			ck[i].s.file = k->s.file;
			ck[i].s.column = k->s.column;
			ck[i].s.isa = k->s.isa;
			ck[i].s.discriminator = k->s.discriminator;
			ck[i].s.line = k->s.line;
			ck[i].s.is_stmt = k->s.is_stmt;
			ck[i].pos = k->pos;
		}
	}
	return size;
}

/* Take the index idx for table t, whose program runs over [prog, end) of
 * .debug_line (base): DWLINE_IDX_LAZY (t is lazy, its checkpoints those of
 * idx, which must outlive it), DWLINE_IDX_FULL (decode it in full), or 0
 * when idx does not fit t. */
static int adopt_index(struct dwline *t, const struct prog *g, const uint8_t *base,
		       const uint8_t *prog, const uint8_t *end, size_t max_rows, const void *idx,
		       size_t size)
{
	struct idx_hdr h;
	if (size < sizeof h || (uintptr_t)idx % _Alignof(struct ckpt))
		return 0;
	memcpy(&h, idx, sizeof h);
	if (h.version != DWLINE_INDEX_VERSION || h.ckpt_rows != CKPT_ROWS ||
	    h.ckpt_size != sizeof(struct ckpt) || h.seq_size != sizeof(struct lseq) ||
	    h.row_size != sizeof(struct dwline_row))
		return 0;
	if (h.state == DWLINE_IDX_FULL)
		return size == sizeof h ? DWLINE_IDX_FULL : 0;
	if (h.state != DWLINE_IDX_LAZY || h.address_size != g->address_size ||
	    h.nfiles != t->nfiles || h.nrows > max_rows || h.nsq > h.nrows || h.nck > h.nrows ||
	    size != sizeof h + h.nsq * sizeof(struct lseq) + h.nck * sizeof(struct ckpt))
		return 0;
	const uint8_t *p = idx;
	size_t nsq = (size_t)h.nsq, nck = (size_t)h.nck;
	uint32_t nrows = (uint32_t)h.nrows;
	const struct ckpt *ck = (const void *)(p + sizeof h + nsq * sizeof(struct lseq));
	struct lseq *sq = xmalloc((nsq ? nsq : 1) * sizeof *sq);
	memcpy(sq, p + sizeof h, nsq * sizeof *sq);
	uint64_t lo = (uint64_t)(prog - base);
	bool ok = true;
	for (size_t i = 0; i < nsq && ok; i++) {
		struct lseq *q = &sq[i];
		ok = q->monotone == 1 && q->has_end <= 1 && q->n && q->first < nrows &&
		     q->n <= nrows - q->first && q->trailing < q->n && q->c0 <= q->c1 &&
		     q->c1 <= nck;
		if (!ok)
			break;
		seq_ends(q);
		if (i && row_cmp(&sq[i - 1].lm, &q->fm) > 0)
			ok = false;
		/* each checkpoint is checked when a lookup uses it (ckpt_ok):
		 * a table has thousands, a profile uses a few */
		ok = ok && (q->c0 == q->c1 || ck[q->c0].row.idx == q->first);
	}
	if (!ok) {
		free(sq);
		return 0;
	}
	struct dwline_lazy *z = xcalloc(1, sizeof *z);
	z->base = base;
	z->end = end;
	z->prog_off = lo;
	z->g = *g;
	z->nfiles_hdr = t->nfiles;
	z->borrowed = true;
	z->ck = (struct ckpt *)ck;
	z->nck = nck;
	z->sq = sq;
	z->nsq = nsq;
	t->nrows = nrows;
	t->lazy = z;
	return DWLINE_IDX_LAZY;
}

static struct dwline *open_table(const struct dwline_sections *sec, uint64_t off,
				 const char *comp_dir, unsigned address_size, bool lazy,
				 const void *idx, size_t idx_size, bool *idx_used)
{
	if (!sec->line || off >= sec->line_size)
		return NULL;
	struct rd r = { sec->line + off, sec->line + sec->line_size, false };
	unsigned offset_size = 4;
	uint64_t unit_length = rd_fixed(&r, 4);
	if (unit_length == 0xffffffff) {
		unit_length = rd_fixed(&r, 8);
		offset_size = 8;
	}
	if (r.bad || unit_length > (uint64_t)(r.end - r.p))
		return NULL;
	r.end = r.p + unit_length;
	unsigned version = (unsigned)rd_fixed(&r, 2);
	if (r.bad || version < 2 || version > 5)
		return NULL;
	if (version >= 5) {
		unsigned asz = (unsigned)rd_fixed(&r, 1), seg = (unsigned)rd_fixed(&r, 1);
		if (r.bad || asz != address_size || seg)
			return NULL;
	}
	uint64_t header_length = rd_fixed(&r, offset_size);
	const uint8_t *header_start = r.p;
	if (r.bad || header_length > (uint64_t)(r.end - r.p))
		return NULL;
	uint8_t min_len = (uint8_t)rd_fixed(&r, 1), max_ops = 1;
	if (version >= 4)
		max_ops = (uint8_t)rd_fixed(&r, 1);
	uint8_t default_is_stmt = (uint8_t)rd_fixed(&r, 1);
	int8_t line_base = (int8_t)rd_fixed(&r, 1);
	uint8_t line_range = (uint8_t)rd_fixed(&r, 1);
	uint8_t opcode_base = (uint8_t)rd_fixed(&r, 1);
	/* an opcode_base this low makes libdw read operand counts past the
	 * table (DW_LNE_set_discriminator's): libdw decides */
	if (r.bad || !max_ops || opcode_base <= DW_LNE_set_discriminator ||
	    (size_t)(r.end - r.p) < (size_t)opcode_base - 1)
		return NULL;
	struct prog g = { .address_size = address_size, .min_len = min_len, .max_ops = max_ops,
			  .default_is_stmt = default_is_stmt, .line_range = line_range,
			  .opcode_base = opcode_base, .line_base = line_base };
	for (unsigned i = 1; i < opcode_base; i++)
		g.std_len[i] = *r.p++;
	prog_init(&g);

	struct dwline *t = xcalloc(1, sizeof *t);
	struct builder b = { .t = t, .max = unit_length + 1 };
	struct form_ctx fc = { sec, offset_size };
	bool ok = true;
	if (version < 5) {
		ok = read_v4_tables(&r, &b, comp_dir);
	} else {
		ok = read_v5_table(&r, &fc, &b, false) && read_v5_table(&r, &fc, &b, true);
		/* an empty file table still has libdw's "???" entry */
		if (ok && !t->nfiles)
			ok = add_file(&b, NULL, "???");
	}
	/* the header must end exactly where header_length says (libdw: the
	 * CUBIN variant with 4 more bytes is not read here) */
	if (ok && r.p != header_start + header_length)
		ok = false;
	struct lstate s0 = { .file = 1, .line = 1, .is_stmt = default_is_stmt };
	if (ok && lazy && idx) {
		/* an earlier run's scan of this table */
		int st = adopt_index(t, &g, sec->line, r.p, r.end, b.max, idx, idx_size);
		if (st) {
			*idx_used = true;
			if (st == DWLINE_IDX_LAZY) {
				free(b.dirs);
				return t;
			}
			lazy = false; /* the scan found the table needs sorting */
		}
	}
	if (ok && lazy) {
		struct dwline_lazy *z = xcalloc(1, sizeof *z);
		z->base = sec->line;
		z->end = r.end;
		z->g = g;
		z->nfiles_hdr = t->nfiles;
		struct run u = { .b = &b, .lz = z, .max = b.max };
		struct rd r2 = r;
		struct lstate s = s0;
		size_t nfiles = t->nfiles;
		ok = run_program(&r2, &u, SCAN, &s, &g);
		t->nrows = u.nrows;
		if (ok && u.in_seq)
			seq_close(&u, (uint32_t)t->nrows, false);
		if (ok && lazy_ready(z)) {
			free(b.dirs);
			/* kept for the table's life: no room to grow */
			if (z->nck < z->cap_ck)
				z->ck = xrealloc(z->ck, (z->nck ? z->nck : 1) * sizeof *z->ck);
			if (z->nsq < z->cap_sq)
				z->sq = xrealloc(z->sq, (z->nsq ? z->nsq : 1) * sizeof *z->sq);
			t->lazy = z;
			return t;
		}
		/* the full table: sequences out of order, or bad data (which
		 * the full run finds again) */
		free(z->ck);
		free(z->sq);
		free(z);
		while (t->nfiles > nfiles)
			free(t->files[--t->nfiles]); /* (none joined yet) */
		t->nrows = 0;
		t->scanned_full = ok;
	}
	if (ok) {
		struct run u = { .b = &b };
		ok = run_program(&r, &u, FULL, &s0, &g);
	}
	free(b.dirs);
	if (!ok) {
		dwline_free(t);
		return NULL;
	}
	sort_rows(t);
	/* libdw: the highest address of the CU always ends a sequence */
	if (t->nrows)
		t->rows[t->nrows - 1].end_sequence = 1;
	return t;
}

struct dwline *dwline_open(const struct dwline_sections *sec, uint64_t off, const char *comp_dir,
			   unsigned address_size)
{
	return open_table(sec, off, comp_dir, address_size, true, NULL, 0, NULL);
}

struct dwline *dwline_open_indexed(const struct dwline_sections *sec, uint64_t off,
				   const char *comp_dir, unsigned address_size, const void *idx,
				   size_t size, bool *used)
{
	*used = false;
	return open_table(sec, off, comp_dir, address_size, true, idx, size, used);
}

struct dwline *dwline_open_full(const struct dwline_sections *sec, uint64_t off,
				const char *comp_dir, unsigned address_size)
{
	return open_table(sec, off, comp_dir, address_size, false, NULL, 0, NULL);
}

/* A kept index's checkpoint k, of the sequence ending before row
 * seq_end: its row inside the sequence, its program position inside the
 * unit's program, its line register an int (as the scan's rows). What the
 * scan made always is. */
static bool ckpt_ok(const struct dwline_lazy *z, const struct ckpt *k, uint32_t seq_end)
{
	return k->row.idx < seq_end && k->pos >= z->prog_off &&
	       k->pos <= (uint64_t)(z->end - z->base) && k->s.line >= INT_MIN && k->s.line <= INT_MAX;
}

/* The rows of checkpoint c's block into z->rows. */
static void decode_block(struct dwline_lazy *z, size_t c, uint32_t seq_end)
{
	if (z->blk == c + 1)
		return;
	const struct ckpt *k = &z->ck[c];
	if (z->borrowed && !ckpt_ok(z, k, seq_end)) {
		z->blk = c + 1;
		z->blk_n = 0; /* no row: the lookup finds none */
		return;
	}
	uint32_t next = c + 1 < z->nck ? z->ck[c + 1].row.idx : seq_end;
	if (next > seq_end)
		next = seq_end;
	/* a block is at most CKPT_ROWS rows and an end row (adopt_index
	 * checks a kept index for that; this holds whatever it holds) */
	uint32_t want = next > k->row.idx ? next - k->row.idx : 1;
	struct run u = { .lz = z, .out = z->rows, .got = 1,
			 .want = want < CKPT_ROWS + 1 ? want : CKPT_ROWS + 1 };
	z->rows[0] = k->row;
	if (u.want > 1) {
		struct rd r = { z->base + k->pos, z->end, false };
		struct lstate s = k->s;
		/* the scan ran these bytes: this cannot fail */
		run_program(&r, &u, BLOCK, &s, &z->g);
	}
	z->blk = c + 1;
	z->blk_n = u.got;
}

static bool lazy_find(struct dwline_lazy *z, uint64_t addr, struct dwline_row *out)
{
	/* the last sequence starting at or below addr: the row is in it */
	size_t lo = UPPER_BOUND(z->sq, z->nsq, fm.addr, addr);
	if (!lo)
		return false;
	const struct lseq *q = &z->sq[lo - 1];
	bool last_seq = lo == z->nsq;
	/* the last of its checkpoints at or below addr (addresses rise
	 * inside a sequence) */
	size_t a = q->c0 + UPPER_BOUND(z->ck + q->c0, q->c1 - q->c0, row.addr, addr);
	if (a == q->c0)
		return false;
	decode_block(z, a - 1, q->first + q->n);
	if (!z->blk_n)
		return false; /* a kept checkpoint that did not check */
	uint32_t i = 0;
	while (i + 1 < z->blk_n && z->rows[i + 1].addr <= addr)
		i++;
	const struct dwline_row *w = &z->rows[i];
	if (w->end_sequence) {
		/* sort_rows put it before the rows at its address: the last of
		 * those answers, unless it is the table's last row (made an
		 * end) */
		if (!q->trailing || last_seq || !i)
			return false;
		w = &z->rows[i - 1];
	} else if (last_seq && w->idx == q->first + q->n - 1) {
		return false; /* the table's last row, made an end */
	}
	*out = *w;
	return true;
}

bool dwline_find(struct dwline *t, uint64_t addr, struct dwline_row *out)
{
	if (t->lazy)
		return lazy_find(t->lazy, addr, out);
	if (!t->nrows)
		return false;
	size_t l = 0, u = t->nrows - 1;
	while (l < u) {
		size_t idx = u - (u - l) / 2;
		if (addr < t->rows[idx].addr)
			u = idx - 1;
		else
			l = idx;
	}
	const struct dwline_row *row = &t->rows[l];
	if (row->end_sequence || row->addr > addr)
		return false;
	*out = *row;
	return true;
}

const char *dwline_file(struct dwline *t, uint64_t idx)
{
	if (idx >= t->nfiles)
		return NULL;
	if (!t->files[idx])
		t->files[idx] = join(t->fparts[idx][0], t->fparts[idx][1]);
	return t->files[idx];
}

void dwline_free(struct dwline *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nfiles; i++)
		free(t->files[i]);
	free(t->files);
	free(t->fparts);
	free(t->rows);
	if (t->lazy) {
		if (!t->lazy->borrowed)
			free(t->lazy->ck);
		free(t->lazy->sq);
		free(t->lazy);
	}
	free(t);
}
