/*
 * kallsyms.h: the kernel's symbol table in /proc/kallsyms form: one
 * "ADDRESS TYPE NAME[\tMODULE]" line per symbol (hex address; types T/t
 * text, W/w weak, D/d data, B/b bss are kept; module names in brackets).
 */
#ifndef SCORCH_KALLSYMS_H
#define SCORCH_KALLSYMS_H

#include "analyze/symbols/symtab.h"
#include "util/arena.h"
#include "util/hash.h"
#include <stdio.h>

struct kallsyms {
	struct symtab t;       /* absolute addresses; names as written */
	uint16_t *mod;         /* parallel to t.syms: module number + 1, 0 for vmlinux */
	const char **mod_names;/* by module number */
	size_t nr_mods;
	struct kallsyms_buf *bufs; /* the read windows the names are in */
	/* Or, from the cache (kscache.h), the table read where it is mapped:
	 * t is empty, and a symbol is made (img_syms) when a lookup finds it */
	void *map;
	struct kallsyms_img {
		const uint8_t *start, *end, *name, *mod; /* u64, u64, u32, u16 arrays */
		const char *names;
		uint64_t names_size;
		size_t n;
	} img;
	struct hmap img_syms;  /* index -> struct sym * */
};

#define KALLSYMS_HIDDEN 1  /* every address is 0: kptr_restrict hid them */

/* Read f into k (module names in a; symbol names stay in the read
 * windows k keeps). Returns 0, or KALLSYMS_HIDDEN (k left
 * empty) when no address is non-zero, an empty file included. Lines that
 * do not parse are skipped; never fails on content. */
int kallsyms_read(struct kallsyms *k, FILE *f, struct arena *a);
/* The symbol of k containing addr (symtab_find's rules), or NULL. */
const struct sym *kallsyms_find(struct kallsyms *k, uint64_t addr);
/* How many symbols k has. */
size_t kallsyms_count(const struct kallsyms *k);
/* The module of sym (a symbol of k) as perf prints it ("[nf_tables]"), or
 * NULL for vmlinux. */
const char *kallsyms_module(const struct kallsyms *k, const struct sym *sym, struct arena *a);
void kallsyms_release(struct kallsyms *k);

#endif
