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
	const uint8_t *info, *abbrev, *ranges, *rnglists;
	size_t info_size, abbrev_size, ranges_size, rnglists_size;
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

#endif
