/*
 * kallsyms.h: the kernel's symbol table in /proc/kallsyms form: one
 * "ADDRESS TYPE NAME[\tMODULE]" line per symbol (hex address; types T/t
 * text, W/w weak, D/d data, B/b bss are kept; module names in brackets).
 */
#ifndef SCORCH_KALLSYMS_H
#define SCORCH_KALLSYMS_H

#include "analyze/symtab.h"
#include "util/arena.h"
#include <stdio.h>

struct kallsyms {
	struct symtab t;       /* absolute addresses; names as written */
	uint16_t *mod;         /* parallel to t.syms: module number + 1, 0 for vmlinux */
	const char **mod_names;/* by module number */
	size_t nr_mods;
	struct kallsyms_buf *bufs; /* the read windows the names are in */
};

#define KALLSYMS_HIDDEN 1  /* every address is 0: kptr_restrict hid them */

/* Read f into k (module names in a; symbol names stay in the read
 * windows k keeps). Returns 0, or KALLSYMS_HIDDEN (k left
 * empty) when no address is non-zero, an empty file included. Lines that
 * do not parse are skipped; never fails on content. */
int kallsyms_read(struct kallsyms *k, FILE *f, struct arena *a);
/* The module of sym (a symbol of k) as perf prints it ("[nf_tables]"), or
 * NULL for vmlinux. */
const char *kallsyms_module(const struct kallsyms *k, const struct sym *sym, struct arena *a);
void kallsyms_release(struct kallsyms *k);

#endif
