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
#include "analyze/dwline.h"
#include "analyze/elffile.h"
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

static uint64_t rd_uleb(struct rd *r)
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

static int64_t rd_sleb(struct rd *r)
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

/* Append name (owned) to the file table; false when the table is full. */
static bool add_file(struct builder *b, char *name)
{
	struct dwline *t = b->t;
	if (ARRAY_GROW(t->files, b->cap_files, t->nfiles + 1, b->max)) {
		free(name);
		return false;
	}
	t->files[t->nfiles++] = name;
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
		if (dir == UINT64_MAX || dir >= b->ndirs || !add_file(b, join(b->dirs[dir], name)))
			return false;
	}
	return true;
}

/* v as libdw's unsigned int operands; larger: give up (bad) */
static uint32_t rd_u32(struct rd *r, uint64_t v)
{
	if (v > UINT32_MAX)
		r->bad = true;
	return (uint32_t)v;
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
	if (e < 0 || !add_file(b, xstrdup("???")))
		return false;
	while (!(e = list_end(r))) {
		const char *name = rd_cstr(r);
		uint64_t dir = rd_uleb(r);
		rd_uleb(r); /* mtime, length */
		rd_uleb(r);
		if (r->bad || dir >= b->ndirs || !add_file(b, join(b->dirs[dir], name)))
			return false;
	}
	return e > 0;
}

struct lstate {
	uint64_t addr;
	uint32_t op_index, file, column, isa, discriminator;
	int64_t line;
	uint8_t is_stmt;
};

static bool add_row(struct builder *b, const struct lstate *s, bool end)
{
	/* libdw's Dwarf_Line fields: a value that does not fit is invalid */
	if (s->line < INT_MIN || s->line > INT_MAX || s->column > 0xffff || s->op_index > 0xff ||
	    s->isa > 0xff || s->discriminator > 0xffffff)
		return false;
	struct dwline *t = b->t;
	if (t->nrows >= b->cap_rows && ARRAY_GROW(t->rows, b->cap_rows, t->nrows + 1, b->max))
		return false;
	struct dwline_row *w = &t->rows[t->nrows];
	w->addr = s->addr;
	w->line = (int32_t)s->line;
	w->file = s->file;
	w->column = (uint16_t)s->column;
	w->end_sequence = end;
	w->idx = (uint32_t)t->nrows;
	t->nrows++;
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

static bool run_program(struct rd *r, struct builder *b, unsigned address_size, uint8_t min_len,
			uint8_t max_ops, uint8_t default_is_stmt, int8_t line_base, uint8_t line_range,
			uint8_t opcode_base, const uint8_t *std_len)
{
	struct lstate s = { .file = 1, .line = 1, .is_stmt = default_is_stmt };
	/* special opcodes, worked out once per table: the line step, and with
	 * one operation per instruction (op_index stays 0) the address step;
	 * the same arithmetic as ADVANCE, without its divisions per row */
	int32_t sp_line[256];
	uint32_t sp_addr[256];
	bool sp_fast = line_range && max_ops == 1;
	if (sp_fast)
		for (unsigned op = opcode_base; op < 256; op++) {
			sp_line[op] = line_base + (int)(op - opcode_base) % line_range;
			sp_addr[op] = (uint32_t)(min_len * ((uint32_t)(op - opcode_base) / line_range));
		}
#define ADVANCE(adv)                                                                               \
	do {                                                                                       \
		uint32_t a_ = (adv);                                                               \
		s.addr += (uint32_t)(min_len * ((s.op_index + a_) / max_ops));                     \
		s.op_index = (s.op_index + a_) % max_ops;                                          \
	} while (0)
#define U32(v) rd_u32(r, (v))
	while (r->p < r->end) {
		uint8_t op = *r->p++;
		if (op >= opcode_base && sp_fast) {
			s.line += sp_line[op];
			s.addr += sp_addr[op];
			if (!add_row(b, &s, false))
				return false;
			s.discriminator = 0;
		} else if (op >= opcode_base) {
			if (!line_range)
				return false;
			s.line += line_base + (op - opcode_base) % line_range;
			ADVANCE((uint32_t)(op - opcode_base) / line_range);
			if (!add_row(b, &s, false))
				return false;
			s.discriminator = 0;
		} else if (op == 0) {
			if (r->end - r->p < 2)
				return false;
			uint8_t len = *r->p++;
			if (len & 0x80 || (size_t)(r->end - r->p) < len)
				return false; /* libdw reads the ULEB128 length as one byte */
			uint8_t sub = *r->p++;
			switch (sub) {
			case DW_LNE_end_sequence:
				if (!add_row(b, &s, true))
					return false;
				s = (struct lstate){ .file = 1, .line = 1, .is_stmt = default_is_stmt };
				break;
			case DW_LNE_set_address:
				s.op_index = 0;
				if (address_size != 4 && address_size != 8)
					return false;
				s.addr = rd_fixed(r, address_size);
				break;
			case DW_LNE_define_file: {
				const char *name = rd_cstr(r);
				uint64_t dir = rd_uleb(r);
				rd_uleb(r);
				rd_uleb(r);
				if (r->bad || dir >= b->ndirs || !add_file(b, join(b->dirs[dir], name)))
					return false;
				break;
			}
			case DW_LNE_set_discriminator:
				if (std_len[DW_LNE_set_discriminator] != 1)
					return false;
				s.discriminator = U32(rd_uleb(r));
				break;
			case DW_LNE_NVIDIA_inlined_call:
			case DW_LNE_NVIDIA_set_function_name:
				return false;
			default:
				/* skip the operands; a length of 0 steps back onto
				 * the sub-opcode byte, read next as an opcode (as
				 * libdw does: zero padding reads as such) */
				r->p = len ? r->p + len - 1 : r->p - 1;
				break;
			}
		} else if (op <= DW_LNS_set_isa) {
			static const uint8_t want[] = { 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
			if (std_len[op] != want[op])
				return false;
			switch (op) {
			case DW_LNS_copy:
				if (!add_row(b, &s, false))
					return false;
				s.discriminator = 0;
				break;
			case DW_LNS_advance_pc:
				ADVANCE(U32(rd_uleb(r)));
				break;
			case DW_LNS_advance_line: {
				int64_t v = rd_sleb(r);
				if (v < INT_MIN || v > INT_MAX)
					return false;
				s.line += v;
				break;
			}
			case DW_LNS_set_file:
				s.file = U32(rd_uleb(r));
				break;
			case DW_LNS_set_column:
				s.column = U32(rd_uleb(r));
				break;
			case DW_LNS_negate_stmt:
				s.is_stmt = !s.is_stmt;
				break;
			case DW_LNS_set_basic_block:
				break;
			case DW_LNS_const_add_pc:
				if (!line_range)
					return false;
				ADVANCE((uint32_t)(255 - opcode_base) / line_range);
				break;
			case DW_LNS_fixed_advance_pc:
				s.addr += rd_fixed(r, 2);
				s.op_index = 0;
				break;
			case DW_LNS_set_prologue_end:
			case DW_LNS_set_epilogue_begin:
				break;
			case DW_LNS_set_isa:
				s.isa = U32(rd_uleb(r));
				break;
			}
		} else {
			for (unsigned k = std_len[op]; k > 0; k--)
				rd_uleb(r);
		}
		if (r->bad)
			return false;
	}
#undef ADVANCE
#undef U32
	return true;
}

/* One PROGBITS section's bytes; true also when there is none (*p stays
 * NULL), false when it is there and cannot be read. */
static bool section_bytes(Elf *e, const char *name, const uint8_t **p, size_t *size)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elffile_scn(e, SHT_PROGBITS, name, &sh);
	if (!scn)
		return true;
	if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return false;
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf)
		return false;
	*p = d->d_buf;
	*size = d->d_size;
	return true;
}

bool dwline_sections_of(Elf *e, struct dwline_sections *sec)
{
	GElf_Ehdr eh;
	memset(sec, 0, sizeof(*sec));
	return e && gelf_getehdr(e, &eh) && eh.e_ident[EI_DATA] == ELFDATA2LSB &&
	       section_bytes(e, ".debug_line", &sec->line, &sec->line_size) &&
	       section_bytes(e, ".debug_line_str", &sec->line_str, &sec->line_str_size) &&
	       section_bytes(e, ".debug_str", &sec->str, &sec->str_size) && sec->line;
}

struct dwline *dwline_open(const struct dwline_sections *sec, uint64_t off, const char *comp_dir,
			   unsigned address_size)
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
	uint8_t std_len[256] = { 0 };
	for (unsigned i = 1; i < opcode_base; i++)
		std_len[i] = *r.p++;

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
			ok = add_file(&b, xstrdup("???"));
	}
	/* the header must end exactly where header_length says (libdw: the
	 * CUBIN variant with 4 more bytes is not read here) */
	if (ok && r.p != header_start + header_length)
		ok = false;
	if (ok)
		ok = run_program(&r, &b, address_size, min_len, max_ops, default_is_stmt, line_base,
				 line_range, opcode_base, std_len);
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

const struct dwline_row *dwline_find(const struct dwline *t, uint64_t addr)
{
	if (!t->nrows)
		return NULL;
	size_t l = 0, u = t->nrows - 1;
	while (l < u) {
		size_t idx = u - (u - l) / 2;
		if (addr < t->rows[idx].addr)
			u = idx - 1;
		else
			l = idx;
	}
	const struct dwline_row *row = &t->rows[l];
	return !row->end_sequence && row->addr <= addr ? row : NULL;
}

const char *dwline_file(const struct dwline *t, uint64_t idx)
{
	return idx < t->nfiles ? t->files[idx] : NULL;
}

void dwline_free(struct dwline *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nfiles; i++)
		free(t->files[i]);
	free(t->files);
	free(t->rows);
	free(t);
}
