/*
 * symtab.c: symbol tables built the way perf builds its own (see symtab.h).
 *
 * Lookups are a binary search on start, then a short look back over a few
 * earlier symbols, since a large symbol may enclose later, smaller ones
 * (perf's rbtree gives the same answer for the tables it builds).
 */
#include "analyze/symbols/symtab.h"
#include "analyze/demangle/demangle.h"
#include "util/bsearch.h"
#include "util/ksort.h"
#include "util/xalloc.h"

#include <gelf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void rawsyms_grow(struct rawsyms *r)
{
	r->cap = r->cap ? r->cap * 2 : 1024;
	r->v = xrealloc(r->v, r->cap * sizeof(*r->v));
}

int rawsym_cmp(const void *a, const void *b)
{
	const struct rawsym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int underscores(const char *s)
{
	int n = 0;
	while (*s++ == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol: true when a beats b (same start). */
static bool rawsym_better(const struct rawsym *a, const struct rawsym *b)
{
	if (a->size && !b->size)
		return true;
	if (!a->size && b->size)
		return false;
	bool aw = a->bind == STB_WEAK, bw = b->bind == STB_WEAK;
	if (bw && !aw)
		return true;
	if (aw && !bw)
		return false;
	bool ag = a->bind == STB_GLOBAL, bg = b->bind == STB_GLOBAL;
	if (ag && !bg)
		return true;
	if (bg && !ag)
		return false;
	/* perf compares the names it loaded, which it demangled: two C++
	 * instantiations folded into one body can have mangled names of one
	 * length and demangled ones of two */
	char *da = demangle_alloc(a->name), *db = demangle_alloc(b->name);
	const char *an = da ? da : a->name, *bn = db ? db : b->name;
	int ua = underscores(an), ub = underscores(bn);
	size_t na = strlen(an), nb = strlen(bn);
	free(da);
	free(db);
	if (ua != ub)
		return ub > ua; /* fewer leading underscores */
	return na >= nb;        /* the longer name, else the first one */
}

size_t rawsym_drop_aliases(struct rawsym *raw, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if (w && raw[w - 1].start == raw[i].start) {
			if (!rawsym_better(&raw[w - 1], &raw[i]))
				raw[w - 1] = raw[i];
			continue;
		}
		raw[w++] = raw[i];
	}
	return w;
}

/* Sort, drop aliases (perf's rule), give unsized symbols the next symbol's
 * start as end (the page end for the last one). Names are demangled later,
 * on first lookup (dso_find_sym). */
void symtab_build(struct symtab *t, struct rawsym *raw, size_t n)
{
	ksort_u64(raw, n, sizeof *raw, offsetof(struct rawsym, start), rawsym_cmp);
	size_t w = rawsym_drop_aliases(raw, n);
	t->syms = xcalloc(w ? w : 1, sizeof *t->syms);
	t->nr = w;
	for (size_t i = 0; i < w; i++) {
		struct sym *y = &t->syms[i];
		y->start = raw[i].start;
		y->end = raw[i].start + raw[i].size;
		if (!raw[i].size)
			y->end = i + 1 < w ? raw[i + 1].start : (y->start & ~4095ULL) + 4096;
		y->name = raw[i].name;
	}
}

void symtab_release(struct symtab *t)
{
	free(t->syms);
	t->syms = NULL;
	t->nr = 0;
}

const struct sym *symtab_find(const struct symtab *t, uint64_t addr)
{
	if (!t || !t->nr)
		return NULL;
	size_t lo = UPPER_BOUND(t->syms, t->nr, start, addr);
	if (!lo)
		return NULL;
	const struct sym *y = &t->syms[lo - 1];
	if (addr < y->end)
		return y;
	/* an earlier, larger symbol may still cover addr */
	for (size_t i = lo - 1, k = 0; i-- > 0 && k < 4; k++)
		if (t->syms[i].start <= addr && addr < t->syms[i].end)
			return &t->syms[i];
	return NULL;
}
