/*
 * dwdie.h: a CU's DIEs read by scorch straight from .debug_info,
 * .debug_abbrev and the range lists, for the two walks of inlines.c: the
 * per-CU index of function ranges, and the walk from a function down to
 * the innermost inlined subroutine at an address.
 *
 * Why: done with libdw's DIE calls (dwarf_child, dwarf_siblingof,
 * dwarf_tag, dwarf_ranges, dwarf_haspc per DIE) the two were the largest
 * cost left on a Python profile: each call looks the DIE's abbreviation
 * up again, behind a lock. Here a CU's abbreviations are read once, with
 * the byte size of a DIE's attributes when they are all of fixed size, so
 * skipping a DIE is one addition.
 *
 * The walks are libdw's, step by step: the same children (dwarf_child),
 * the same siblings (dwarf_siblingof, which follows DW_AT_sibling), the
 * same tags, the same ranges (DW_AT_low_pc/DW_AT_high_pc, else DW_AT_ranges
 * from .debug_ranges or .debug_rnglists and the CU's base address). A DIE
 * whose ranges need what this reader does not read (.debug_addr, split
 * units) is handed to the caller to ask libdw. What this reader does not
 * know, or where libdw would stop with an error (an unknown form or
 * abbreviation, a sibling outside the unit, truncated data), makes it give
 * up: the caller then walks with libdw, which gives its own answer.
 * tests/unit/test_dwdie.c compares both on real files.
 */
#ifndef SCORCH_DWDIE_H
#define SCORCH_DWDIE_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dwdie_sections {
	const uint8_t *info, *abbrev, *ranges, *rnglists, *str, *line_str;
	size_t info_size, abbrev_size, ranges_size, rnglists_size, str_size, line_str_size;
};

/* The sections of e (compressed ones decompressed in place, as libdw
 * does); false when one is missing or e is not little-endian. */
bool dwdie_sections_of(Elf *e, struct dwdie_sections *s);

struct dwdie_visitor {
	/* a subprogram's one range [lo, hi) (lo >= hi possible, as libdw) */
	void (*range)(void *ctx, uint64_t die_off, uint64_t lo, uint64_t hi);
	/* a subprogram whose ranges libdw must give (dwarf_ranges) */
	void (*ask)(void *ctx, uint64_t die_off);
	/* dwarf_haspc (die, pc) > 0 for a DIE whose ranges libdw must read */
	int (*haspc)(void *ctx, uint64_t die_off, uint64_t pc);
	void *ctx;
};

struct dwdie_cu;

/* The CU whose header is at offset cu_off of .debug_info, its
 * abbreviations read (types: the function walk enters namespaces,
 * classes, structures, unions and modules); NULL: libdw's. s must outlive
 * it. */
struct dwdie_cu *dwdie_cu_open(const struct dwdie_sections *s, uint64_t cu_off, bool types);
void dwdie_cu_free(struct dwdie_cu *c);

/* The .debug_info offsets of the CUs that .debug_aranges (p, size bytes;
 * big: big-endian) has a set for, sorted, in *out (malloc'd; NULL when
 * none). Its headers are read, not its tuples: a set with no address
 * still says the producer listed that CU. The walk ends at the first
 * header that does not fit in the section. Returns how many. */
size_t dwdie_aranges_cus(const uint8_t *p, size_t size, bool big, uint64_t **out);

/*
 * The subprograms among the CU's children (with types also inside scopes,
 * to 8 levels), in DIE order, as inlines.c's walk: v->range or v->ask for
 * each. False: give up (what was reported must be dropped).
 */
bool dwdie_functions(struct dwdie_cu *c, const struct dwdie_visitor *v);

/*
 * inlines.c's descend_inlines from the function DIE at fn_off: into path,
 * the function, then each inlined subroutine containing pc down to the
 * innermost (through lexical, try, catch, with and common blocks that
 * contain it), as dwarf_child, dwarf_siblingof and dwarf_haspc find them;
 * at most max. Returns how many, or -1: libdw must walk it.
 */
int dwdie_inlines(struct dwdie_cu *c, uint64_t fn_off, uint64_t pc, uint64_t *path, int max,
		  const struct dwdie_visitor *v);

/*
 * What inlines.c asks libdw of a scope DIE on an inline chain, read here:
 * dwarf_tag; the name as inlines.c's die_name picks it (the linkage name
 * through DW_AT_abstract_origin and DW_AT_specification, as
 * dwarf_attr_integrate follows them, else DW_AT_name of the DIE, else
 * through them) before demangling; whether it has a linkage name; and
 * DW_AT_call_file, DW_AT_call_line, DW_AT_call_column as dwarf_formudata
 * reads them. False where this reader would not give libdw's answer for
 * sure (a reference to another unit or file, an indexed or supplementary
 * string, a form it does not read, bad data): the caller asks libdw.
 */
struct dwdie_info {
	uint32_t tag;
	const char *name;         /* NULL: none */
	bool has_linkage;
	bool has_call_file, has_call_line, has_call_column;
	uint64_t call_file, call_line, call_column;
};
bool dwdie_info(struct dwdie_cu *c, uint64_t off, struct dwdie_info *out);

/* An attribute of the CU DIE as dwarf_attr + dwarf_formudata (data forms,
 * DW_FORM_sec_offset) or dwarf_formstring read it: 1 (in *v, *str), 0
 * absent, -1 where libdw must read it. */
int dwdie_cu_udata(struct dwdie_cu *c, uint32_t name, uint64_t *v);
int dwdie_cu_string(struct dwdie_cu *c, uint32_t name, const char **str);
/* Whether the function walk enters types (dwdie_cu_open's types), set
 * after the CU is open (its language is read through it). */
void dwdie_cu_set_types(struct dwdie_cu *c, bool types);
/* .debug_aranges (p, size bytes, little-endian) as libdw's
 * dwarf_getaranges makes its table (every range, empty ones too, sorted by
 * address, ranges at one address in file order), each with its CU's
 * header and DIE offsets in s's .debug_info: true, *out (malloc'd; NULL
 * when none) and *n. dwdie_arange_find in it is then dwarf_addrdie's CU.
 * False where that is not sure: a set or a CU header libdw would reject or
 * this reader does not read, a set not ending at its terminator; libdw
 * answers for the file. */
struct dwdie_arange {
	uint64_t lo, len, cu, cu_die;
	uint64_t seq;           /* the range's place in the file */
};
bool dwdie_aranges(const struct dwdie_sections *s, const uint8_t *p, size_t size,
		   struct dwdie_arange **out, size_t *n);
/* A table dwdie_aranges made, as kept across runs (dwindex.h): p, size
 * bytes (8-byte aligned, alive while *out is used): true, *out (in place)
 * and *n when it is one such table for s: every CU and DIE offset inside
 * .debug_info (the DIE after its CU's header), the ranges in the order
 * dwdie_aranges sorts them. False: make it again. */
bool dwdie_aranges_kept(const struct dwdie_sections *s, const void *p, size_t size,
			const struct dwdie_arange **out, size_t *n);
/* dwarf_getarange_addr's answer for addr (its binary search: with
 * overlapping or empty ranges the range it lands on), or NULL. */
const struct dwdie_arange *dwdie_arange_find(const struct dwdie_arange *v, size_t n, uint64_t addr);

/*
 * Where a CU reader keeps what it derives from the CU, beyond its own life
 * (inlines.c keeps it across runs in dwindex.h's images): find gives an
 * earlier run's bytes for a kind and DIE offset (8-byte aligned, alive as
 * long as the reader), keep takes new ones (malloc'd). What find gives is
 * checked before use; damaged bytes give wrong answers, never a read
 * outside the unit or the bytes.
 */
enum dwdie_kept {
	DWDIE_KEPT_KIDS = 1,   /* a scope's children that the inline walk tests */
	DWDIE_KEPT_ABBREVS,    /* a CU's abbreviations, by their table's offset */
};
struct dwdie_store {
	const void *(*find)(void *ctx, enum dwdie_kept kind, uint64_t off, size_t *size);
	void (*keep)(void *ctx, enum dwdie_kept kind, uint64_t off, void *p, size_t size);
	void *ctx;
};
/* c keeps through st from now on (st must outlive c). */
void dwdie_cu_set_store(struct dwdie_cu *c, const struct dwdie_store *st);
/* dwdie_cu_open keeping through st from the start (the abbreviations). */
struct dwdie_cu *dwdie_cu_open_stored(const struct dwdie_sections *s, uint64_t cu_off, bool types,
				      const struct dwdie_store *st);

/* The CU's address size. */
unsigned dwdie_cu_addr_size(const struct dwdie_cu *c);

#endif
