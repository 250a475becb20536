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
 * on a distribution kernel), so addresses are parsed by hand (a table, not
 * strtoull), lines are cut from a 64 KB fread buffer (fgets' pieces, at a
 * third of its cost), and /proc/kallsyms, which lists the kernel in address order, is
 * not sorted again: the sort runs only when the read saw an address go
 * down (modules, or a file from elsewhere). Same table either way: the sort
 * orders by address, then by table order.
 */
#include "analyze/kallsyms.h"
#include "util/ksort.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Hex digit value + 1 by character; 0: not a hex digit. */
static const unsigned char hexv[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7,
	['7'] = 8, ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14,
	['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15,
	['F'] = 16,
};

/* Hex digits at s (at most 16) into *v; returns the first other char. */
static const char *parse_hex(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	const char *p = s;
	for (; p - s < 16; p++) {
		unsigned d = hexv[(unsigned char)*p];
		if (!d)
			break;
		x = x << 4 | (d - 1);
	}
	*v = x;
	return p;
}

/* fgets(line, cap, f) over a large fread buffer: the same pieces (at most
 * cap - 1 bytes, ending after a newline), without fgets' per-call locking
 * and per-byte copy loop. */
struct kreader {
	FILE *f;
	char *buf;
	size_t pos, len;
	bool eof;
};

#define KREADER_BUF 65536

static bool kreader_piece(struct kreader *r, char *line, size_t cap)
{
	size_t n = 0;
	while (n < cap - 1) {
		if (r->pos == r->len) {
			if (r->eof)
				break;
			r->len = fread(r->buf, 1, KREADER_BUF, r->f);
			r->pos = 0;
			if (!r->len) {
				r->eof = true;
				break;
			}
		}
		size_t want = cap - 1 - n, avail = r->len - r->pos;
		if (avail < want)
			want = avail;
		const char *p = r->buf + r->pos;
		const char *nl = memchr(p, '\n', want);
		size_t take = nl ? (size_t)(nl - p) + 1 : want;
		memcpy(line + n, p, take);
		n += take;
		r->pos += take;
		if (nl)
			break;
	}
	if (!n)
		return false;
	line[n] = 0;
	return true;
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
	struct kreader rd = { .f = f, .buf = xmalloc(KREADER_BUF) };
	while (kreader_piece(&rd, line, sizeof line)) {
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
	free(rd.buf);
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
		ksort_u64(raw, n, sizeof *raw, offsetof(struct rawsym, start), rawsym_cmp);
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
