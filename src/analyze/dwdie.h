/*
 * dwdie.h: the function ranges of a CU, read by scorch straight from
 * .debug_info and .debug_abbrev instead of through libdw's DIE calls.
 *
 * Why: finding the function of an address starts from a per-CU index of
 * its subprograms' ranges (inlines.c). Built with libdw (dwarf_child,
 * dwarf_siblingof, dwarf_tag, dwarf_ranges per DIE) that index was the
 * largest cost left on a Python profile: each call looks the DIE's
 * abbreviation up again, behind a lock. Here each abbreviation is read
 * once per CU, with the byte size of its attributes when they are all of
 * fixed size, so skipping a DIE is one addition.
 *
 * The walk is libdw's, step by step: the same children (dwarf_child), the
 * same siblings (dwarf_siblingof, which follows DW_AT_sibling), the same
 * tags, and for a subprogram with DW_AT_low_pc and DW_AT_high_pc the one
 * range dwarf_ranges gives. Every other subprogram that may have ranges
 * (DW_AT_ranges, other forms) is handed to the caller to ask libdw. What
 * this reader does not know, or where libdw would stop with an error (an
 * unknown form or abbreviation, a sibling outside the unit, truncated
 * data), makes dwdie_functions return false: the caller then walks the CU
 * with libdw, which gives its own answer. tests/unit/test_dwdie.c compares
 * both on real files.
 */
#ifndef SCORCH_DWDIE_H
#define SCORCH_DWDIE_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dwdie_sections {
	const uint8_t *info, *abbrev;
	size_t info_size, abbrev_size;
};

/* The sections of e (compressed ones decompressed in place, as libdw
 * does); false when one is missing or e is not little-endian. */
bool dwdie_sections_of(Elf *e, struct dwdie_sections *s);

struct dwdie_visitor {
	/* a subprogram's one range [lo, hi) (lo >= hi possible, as libdw) */
	void (*range)(void *ctx, uint64_t die_off, uint64_t lo, uint64_t hi);
	/* a subprogram whose ranges libdw must give (dwarf_ranges) */
	void (*ask)(void *ctx, uint64_t die_off);
	void *ctx;
};

/*
 * The subprograms among the children of the CU whose header is at offset
 * cu_off of .debug_info, in DIE order; with types, also those inside
 * namespaces, classes, structures, unions and modules (to 8 levels), as
 * inlines.c's walk. False: give up (what was reported must be dropped).
 */
bool dwdie_functions(const struct dwdie_sections *s, uint64_t cu_off, bool types,
		     const struct dwdie_visitor *v);

#endif
