/*
 * kallsyms.c: the /proc/kallsyms parser (see kallsyms.h).
 *
 * The file may come from another machine (perf's build-id cache, or
 * --kallsyms), so it is untrusted input: lines are read with a fixed buffer
 * (a longer line is read in pieces, each parsed as a line), fields are
 * checked before use, names are copied. The table follows perf's kallsyms
 * loader: sort, extend each symbol to the next one (to the next page where
 * vmlinux meets a module, and for the last one), then drop aliases, so of
 * symbols sharing an address only the last one has a size and wins.
 *
 * Speed: every kernel frame's first lookup pays for this file (~120k lines
 * on a distribution kernel), so addresses are parsed by hand, not with
 * strtoull, and /proc/kallsyms, which lists the kernel in address order, is
 * not sorted again: the sort runs only when the read saw an address go
 * down (modules, or a file from elsewhere). Same table either way: the sort
 * orders by address, then by table order.
 */
#include "analyze/kallsyms.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Hex digits at s (at most 16) into *v; returns the first other char. */
static const char *parse_hex(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	const char *p = s;
	for (; p - s < 16; p++) {
		unsigned c = (unsigned char)*p, d;
		if (c - '0' < 10)
			d = c - '0';
		else if ((c | 0x20) - 'a' < 6)
			d = (c | 0x20) - 'a' + 10;
		else
			break;
		x = x << 4 | d;
	}
	*v = x;
	return p;
}

int kallsyms_read(struct kallsyms *k, FILE *f, struct arena *a)
{
	memset(k, 0, sizeof(*k));
	struct rawsyms rs = { 0 };
	const char **mods = NULL;
	size_t mods_cap = 0;
	char line[1024];
	bool all_zero = true, in_order = true;
	uint64_t prev = 0;
	while (fgets(line, sizeof line, f)) {
		uint64_t addr;
		char *end = (char *)parse_hex(line, &addr);
		if (end == line || *end != ' ')
			continue;
		char type = end[1];
		if (!type || end[2] != ' ')
			continue;
		char t = (char)toupper((unsigned char)type);
		if (t != 'T' && t != 'W' && t != 'D' && t != 'B')
			continue;
		char *name = end + 3;
		char *nl = strpbrk(name, "\t\n");
		char *mod = NULL;
		if (nl && *nl == '\t') {
			*nl = 0;
			mod = nl + 1;
			char *mnl = strchr(mod, '\n');
			if (mnl)
				*mnl = 0;
		} else if (nl)
			*nl = 0;
		if (addr)
			all_zero = false;
		if (addr < prev)
			in_order = false;
		prev = addr;
		struct rawsym *y = rawsyms_push(&rs);
		if (mods_cap < rs.cap) {
			mods_cap = rs.cap;
			mods = xrealloc(mods, mods_cap * sizeof *mods);
		}
		y->start = addr;
		y->name = arena_strdup(a, name);
		y->bind = type == 'W' || type == 'w' ? STB_WEAK
			  : isupper((unsigned char)type) ? STB_GLOBAL : STB_LOCAL;
		mods[rs.n - 1] = mod ? arena_intern(a, mod) : NULL;
	}
	if (all_zero) {
		free(rs.v);
		free(mods);
		return KALLSYMS_HIDDEN;
	}
	struct rawsym *raw = rs.v;
	size_t n = rs.n;
	/* perf (kallsyms): sort, extend unsized symbols to the next one (page
	 * rounding where vmlinux meets a module), then drop aliases, so of
	 * symbols sharing an address only the last one has a size and wins. */
	if (n && !in_order)
		qsort(raw, n, sizeof *raw, rawsym_cmp);
	for (size_t i = 0; i < n; i++) {
		uint64_t end;
		if (i + 1 < n) {
			end = raw[i + 1].start;
			if ((!mods[raw[i].idx]) != (!mods[raw[i + 1].idx]))
				end = ((raw[i].start + 4096) + 4095) & ~4095ULL;
		} else
			end = (raw[i].start & ~4095ULL) + 4096;
		raw[i].size = end - raw[i].start;
	}
	const char **sorted = xcalloc(n ? n : 1, sizeof *sorted);
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if (w && raw[w - 1].start == raw[i].start) {
			if (!rawsym_better(&raw[w - 1], &raw[i])) {
				raw[w - 1] = raw[i];
				sorted[w - 1] = mods[raw[i].idx];
			}
			continue;
		}
		sorted[w] = mods[raw[i].idx];
		raw[w++] = raw[i];
	}
	n = w;
	free(mods);
	k->t.syms = xcalloc(n ? n : 1, sizeof *k->t.syms);
	k->t.nr = n;
	for (size_t i = 0; i < n; i++) {
		struct sym *y = &k->t.syms[i];
		y->start = raw[i].start;
		y->end = raw[i].start + raw[i].size;
		y->name = raw[i].name;
	}
	k->mods = sorted;
	free(raw);
	return 0;
}

const char *kallsyms_module(const struct kallsyms *k, const struct sym *sym, struct arena *a)
{
	if (!k->mods || !sym)
		return NULL;
	size_t i = (size_t)(sym - k->t.syms);
	if (i >= k->t.nr || !k->mods[i])
		return NULL;
	char b[256];
	const char *m = k->mods[i];
	if (m[0] == '[')
		return m;
	snprintf(b, sizeof b, "[%s]", m);
	return arena_intern(a, b);
}

void kallsyms_release(struct kallsyms *k)
{
	symtab_release(&k->t);
	free(k->mods);
	k->mods = NULL;
}
