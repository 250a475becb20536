/*
 * symtab.h: a symbol table, the one shape every source of names is turned
 * into (a DSO's ELF tables, kallsyms, a perf-PID.map): symbols sorted by
 * start, aliases removed, looked up by binary search.
 *
 * Tables are built from raw symbols the way perf builds its own (so the name
 * an address gets is perf's): sort by address then table order, of symbols
 * sharing a start keep the best (perf's choose_best_symbol: sized over
 * unsized, non-weak over weak, global over local, fewer leading
 * underscores, longer name, first in the table), extend unsized ones to the
 * next symbol.
 */
#ifndef SCORCH_SYMTAB_H
#define SCORCH_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sym {
	uint64_t start, end;   /* rel (file offset) or absolute address; end exclusive */
	const char *name;      /* DSO symbols: demangled once dso_find_sym returned it;
				* perf maps and kallsyms: as written (perf does not
				* demangle them either) */
	bool demangled;
};

struct symtab {
	struct sym *syms;      /* sorted by start, aliases removed */
	size_t nr;
};

/* Binary search: the symbol containing addr, or NULL. */
const struct sym *symtab_find(const struct symtab *t, uint64_t addr);

/* A symbol as read, before the table is built. */
struct rawsym {
	uint64_t start, size;
	const char *name;   /* raw (mangled); must outlive the table */
	uint32_t idx;       /* table order, for ties */
	uint8_t bind;       /* STB_LOCAL, STB_GLOBAL, STB_WEAK */
	uint16_t aux;       /* the caller's (kallsyms: module number + 1; 0 vmlinux) */
};

/* A growable array of raw symbols (bounded by what was read). */
struct rawsyms {
	struct rawsym *v;
	size_t n, cap;
};
void rawsyms_grow(struct rawsyms *r);
/* A new zeroed slot at the end, idx set to its position. */
static inline struct rawsym *rawsyms_push(struct rawsyms *r)
{
	if (r->n == r->cap)
		rawsyms_grow(r);
	struct rawsym *y = &r->v[r->n];
	*y = (struct rawsym){ .idx = (uint32_t)r->n };
	r->n++;
	return y;
}

/* qsort order: start, then table order. */
int rawsym_cmp(const void *a, const void *b);
/* Of each run of symbols of one start in raw[0..n) (sorted by start), keep
 * the best (perf's choose_best_symbol) in place; how many are left. */
size_t rawsym_drop_aliases(struct rawsym *raw, size_t n);

/* Build t from raw[0..n) (sorted here; raw is reordered). */
void symtab_build(struct symtab *t, struct rawsym *raw, size_t n);
void symtab_release(struct symtab *t);

#endif
