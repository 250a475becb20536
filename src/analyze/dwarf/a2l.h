/*
 * a2l.h: the order-dependent part of addr2line's names, replayed.
 *
 * binutils' addr2line names the innermost function of an address whose DIE
 * has no linkage name after the ELF symbol covering the address, the first
 * time that DIE is looked up; it then marks the DIE as named, keeping the
 * ELF name only when the symbol starts where the DIE does. perf keeps one
 * addr2line per DSO and asks once per address, in sample order. So the
 * name an address gets is fixed at its first lookup, and depends on which
 * addresses of the same DIE came before: a2l_decide replays that, called in
 * sample order (with -j, as the blocks are written: blocks.h).
 */
#ifndef SCORCH_A2L_H
#define SCORCH_A2L_H

#include "analyze/dwarf/inlines.h"
#include "util/hash.h"
#include <stdint.h>

struct a2l_state {
	struct hmap *addr;     /* (dso, rel) -> name */
	struct hmap *die;      /* (dso, DIE) -> name later lookups give */
};
void a2l_state_release(struct a2l_state *st);
/* The name of innermost entry e (a2l set) of address rel of DSO dso_id. */
const char *a2l_decide(struct a2l_state *st, uint64_t dso_id, uint64_t rel,
		       const struct inline_entry *e);

#endif
