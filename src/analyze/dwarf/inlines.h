/*
 * inlines.h: source lines and inline chains from DWARF, per DSO address.
 *
 * dso_inlines(d, rel) gives the chain of functions at rel, innermost first:
 * the inlined subroutines, then the subprogram they were inlined into, each
 * with its source position (the innermost's from the line table, the
 * others' from their call sites), as perf script prints inline frames
 * (through addr2line). Chains are computed once per address and cached in
 * the DSO's DWARF state, which this module owns (struct dso_dwarf): it
 * sets the DSO's dw_keep and dw_release, which the DSO cache calls (before
 * it closes the ELF files).
 */
#ifndef SCORCH_INLINES_H
#define SCORCH_INLINES_H

#include <stdbool.h>
#include <stdint.h>

struct dso;

/* One entry of an inline chain, innermost first; the last one is the
 * subprogram (the out-of-line function). */
struct inline_entry {
	const char *name;      /* demangled, NULL when DWARF has none */
	const char *file;
	uint32_t line, column;
	/* Innermost entry only: addr2line's naming depends on lookup order
	 * (see a2l.h); a2l says the decision applies, alt_name is the ELF
	 * symbol addr2line would give on the DIE's first lookup. */
	bool a2l, keep_alt;
	const char *alt_name;
	uint64_t die;
};

/* Inline chain at rel (innermost first, ending with the subprogram).
 * Returns the number of entries (0: no DWARF there); *out points into the
 * cache, valid until the DSO is freed. */
unsigned dso_inlines(struct dso *d, uint64_t rel, const struct inline_entry **out);

#endif
