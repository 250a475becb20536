/*
 * kallsyms.c: the /proc/kallsyms parser (see kallsyms.h).
 *
 * The file may come from another machine (perf's build-id cache, or
 * --kallsyms), so it is untrusted input: every field is checked within its
 * line before use, a NUL byte ends a line's parse early. The table follows
 * perf's kallsyms loader: sort, extend each symbol to the next one (to the next page where
 * vmlinux meets a module, and for the last one), then drop aliases, so of
 * symbols sharing an address only the last one has a size and wins.
 *
 * Speed: every kernel frame's first lookup pays for this file (~120k lines
 * on a distribution kernel), so lines are cut in place in 64 KB read
 * windows that are kept (the names are used where they were read, not
 * copied), line ends are found 8 bytes at a time, so are 16-digit
 * addresses, others by a table (not strtoull), and /proc/kallsyms,
 * which lists the kernel in address order, is not sorted again: the sort runs only when the read saw an address go
 * down (modules, or a file from elsewhere). Same table either way: the sort
 * orders by address, then by table order.
 */
#include "analyze/kernel/kallsyms.h"
#include "util/bsearch.h"
#include "util/cachedir.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/ksort.h"
#include "util/load.h"
#include "util/xalloc.h"

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

#define ONES 0x0101010101010101ULL

/* 8 hex digits at s (first one most significant) into *v, eight bytes at a
 * time (SWAR); false if one of them is not a hex digit. */
static inline __attribute__((always_inline)) bool parse_hex8(const char *s, uint64_t *v)
{
	uint64_t c, w;
	memcpy(&c, s, 8); /* little-endian: s[0] in the low byte */
	if (c & 0x80 * ONES)
		return false;
	/* high bit of each byte: >= lo and not > hi (bytes < 0x80: no carries) */
	uint64_t dig = (c + (0x80 - '0') * ONES) & ~(c + (0x7f - '9') * ONES);
	w = c | 0x20 * ONES;
	uint64_t alp = (w + (0x80 - 'a') * ONES) & ~(w + (0x7f - 'f') * ONES);
	if (((dig | alp) & 0x80 * ONES) != 0x80 * ONES)
		return false;
	c = (c & 0x0f * ONES) + ((c >> 6) & ONES) * 9; /* a nibble per byte */
	c = __builtin_bswap64(c);                         /* s[0] in the high byte */
	c = (c | c >> 4) & 0x00ff00ff00ff00ffULL;
	c = (c | c >> 8) & 0x0000ffff0000ffffULL;
	c = (c | c >> 16) & 0x00000000ffffffffULL;
	*v = c;
	return true;
}

/* Exactly 16 hex digits at s (a 64-bit kernel's address) into *v. */
static inline __attribute__((always_inline)) bool parse_hex16(const char *s, uint64_t *v)
{
	uint64_t hi, lo;
	if (!parse_hex8(s, &hi) || !parse_hex8(s + 8, &lo))
		return false;
	*v = hi << 32 | lo;
	return true;
}

#define KCHUNK 65536
/* a window's bytes: the window, its sentinel newline, and zeros after it
 * for the 16-byte reads of find_line_end */
#define KBUF (KCHUNK + 16)

/* Windows whose bytes hold symbol names are kept (the names are used in
 * place, not copied), chained from k->bufs. */
struct kallsyms_buf {
	struct kallsyms_buf *next;
	char data[KBUF];
};

static char *new_window(struct kallsyms *k)
{
	struct kallsyms_buf *b = xmalloc(sizeof *b);
	b->next = k->bufs;
	k->bufs = b;
	return b->data;
}

/* The first '\n' from p (there is one: the window's sentinel); *tab: the
 * first '\t' before it, or NULL. SSE2 (every x86-64): sixteen bytes a
 * compare, a line of ~44 bytes in three; elsewhere eight bytes at a time in
 * a word, where a zero byte in the word's lowest set 0x80 bit is exact
 * (borrows only run upward). Reads up to 15 bytes past the newline. */
static inline __attribute__((always_inline)) char *find_line_end(char *p, char **tab)
{
	*tab = NULL;
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n'), tb = _mm_set1_epi8('\t');
	for (;; p += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned n = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl));
		unsigned t = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, tb));
		if (n)
			t &= (n & -n) - 1; /* tabs before the newline */
		if (t && !*tab)
			*tab = p + __builtin_ctz(t);
		if (n)
			return p + __builtin_ctz(n);
	}
#else
	for (;; p += 8) {
		uint64_t w, x, t;
		memcpy(&w, p, 8);
		x = w ^ ('\n' * ONES);
		t = w ^ ('\t' * ONES);
		x = (x - ONES) & ~x & 0x80 * ONES;
		t = (t - ONES) & ~t & 0x80 * ONES;
		if (t && !*tab && (!x || __builtin_ctzll(t) < __builtin_ctzll(x)))
			*tab = p + (__builtin_ctzll(t) >> 3);
		if (x)
			return p + (__builtin_ctzll(x) >> 3);
	}
#endif
}

/* What a read keeps between lines. */
struct kread {
	struct kallsyms *k;
	struct arena *a;
	struct rawsyms rs;
	/* modules by number: a symbol keeps 2 bytes (rawsym.aux), not a
	 * pointer; the last one looked up is remembered (a module's lines
	 * come together), others found through a map of the interned names */
	struct hmap mod_of;
	size_t mods_cap;
	const char *last_mod;
	uint16_t last_no;
	bool all_zero, in_order;
	uint64_t prev;
};

/* The number of module mod (1 up; 0 when the table of modules is full). */
static uint16_t module_no(struct kread *r, const char *mod)
{
	struct kallsyms *k = r->k;
	if (!r->last_mod || strcmp(mod, r->last_mod)) {
		const char *m = arena_intern(r->a, mod);
		uintptr_t v = (uintptr_t)hmap_get(&r->mod_of, (uint64_t)(uintptr_t)m);
		if (!v && !ARRAY_GROW(k->mod_names, r->mods_cap, k->nr_mods + 1, 0xfffe)) {
			k->mod_names[k->nr_mods++] = m;
			v = k->nr_mods;
			hmap_put(&r->mod_of, (uint64_t)(uintptr_t)m, (void *)v);
		}
		r->last_mod = m;
		r->last_no = (uint16_t)v;
	}
	return r->last_no;
}

/* One line p..nl ("ADDR TYPE NAME[\tMODULE]", NUL at nl; tab: a tab in
 * it, or NULL): a function or data symbol is added, its name left in
 * the window. Whether it was. */
static inline bool read_line(struct kread *r, char *p, char *nl, char *tab)
{
	uint64_t addr;
	char *end;
	if (nl - p > 16 && p[16] == ' ' && parse_hex16(p, &addr))
		end = p + 16;
	else
		end = (char *)parse_hex(p, &addr);
	if (end == p || *end != ' ')
		return false;
	char type = end[1];
	if (!type || end[2] != ' ')
		return false;
	char t = type & ~0x20; /* upper case, for letters */
	if (t != 'T' && t != 'W' && t != 'D' && t != 'B')
		return false;
	char *name = end + 3;
	if (tab && tab < name) /* a tab before the name: look again */
		tab = memchr(name, '\t', (size_t)(nl - name));
	char *mod = NULL;
	if (tab) {
		*tab = 0;
		mod = tab + 1;
	}
	if (addr)
		r->all_zero = false;
	if (addr < r->prev)
		r->in_order = false;
	r->prev = addr;
	struct rawsym *y = rawsyms_push(&r->rs);
	y->start = addr;
	y->name = name;
	y->bind = t == 'W' ? STB_WEAK : type == t ? STB_GLOBAL : STB_LOCAL;
	y->aux = mod ? module_no(r, mod) : 0;
	return true;
}

/* perf (kallsyms): sort, extend unsized symbols to the next one (page
 * rounding where vmlinux meets a module), then drop aliases, so of
 * symbols sharing an address only the last one has a size and wins. The
 * table is built over the raw array, in place (~120k symbols: a second
 * array of them was a thousand page faults). */
static void build_table(struct kallsyms *k, struct rawsym *raw, size_t n, bool in_order)
{
	if (n && !in_order)
		ksort_u64(raw, n, sizeof *raw, offsetof(struct rawsym, start), rawsym_cmp);
	for (size_t i = 0; i < n; i++) {
		uint64_t end;
		if (i + 1 < n) {
			end = raw[i + 1].start;
			if ((!raw[i].aux) != (!raw[i + 1].aux))
				end = ((raw[i].start + 4096) + 4095) & ~4095ULL;
		} else
			end = (raw[i].start & ~4095ULL) + 4096;
		raw[i].size = end - raw[i].start;
	}
	n = rawsym_drop_aliases(raw, n);
	uint16_t *modno = xcalloc(n ? n : 1, sizeof *modno);
	for (size_t i = 0; i < n; i++)
		modno[i] = raw[i].aux;
	_Static_assert(sizeof(struct sym) <= sizeof(struct rawsym), "sym fits in rawsym");
	struct sym *syms = (struct sym *)raw;
	for (size_t i = 0; i < n; i++) {
		struct rawsym r = raw[i];
		syms[i] = (struct sym){ .start = r.start, .end = r.start + r.size, .name = r.name };
	}
	k->t.syms = n ? xrealloc(syms, n * sizeof *syms) : (free(syms), xcalloc(1, sizeof *syms));
	k->t.nr = n;
	k->mod = modno;
}

int kallsyms_read(struct kallsyms *k, FILE *f, struct arena *a)
{
	memset(k, 0, sizeof(*k));
	struct kread r = { .k = k, .a = a, .all_zero = true, .in_order = true };
	/* a regular file's size says about how many lines (~40 bytes each) */
	struct stat st;
	int fd = fileno(f);
	if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		size_t guess = (size_t)st.st_size / 32 + 16;
		r.rs.cap = guess < (1u << 18) ? guess : (1u << 18);
		r.rs.v = xmalloc(r.rs.cap * sizeof *r.rs.v);
	}
	hmap_init(&r.mod_of);
	size_t have = 0;
	bool eof = false, pinned = false;
	/* lines are cut in place in a 64 KB read window; a partial line at its
	 * end moves to the front of the next window (a new one when this one
	 * holds names) before the next read; a line longer than the window is
	 * parsed in window-sized pieces */
	char *buf = new_window(k);
	while (!eof || have) {
		if (!eof) {
			size_t got = fread(buf + have, 1, KCHUNK - have, f);
			eof = !got;
			have += got;
		}
		char *p = buf, *e = buf + have;
		*e = '\n';
		memset(e + 1, 0, 15);
		for (char *nl, *tab; p < e; p = nl + 1) {
			nl = find_line_end(p, &tab);
			if (nl == e && !eof && (p > buf || have < KCHUNK))
				break; /* the rest of this line is still to read */
			*nl = 0;
			if (read_line(&r, p, nl, tab))
				pinned = true;
		}
		if (p > e)
			p = e;
		have = (size_t)(e - p);
		if (pinned) {
			char *nb = new_window(k);
			memcpy(nb, p, have);
			buf = nb;
			pinned = false;
		} else {
			memmove(buf, p, have);
		}
	}
	hmap_release(&r.mod_of);
	if (r.all_zero) {
		free(r.rs.v);
		kallsyms_release(k);
		return KALLSYMS_HIDDEN;
	}
	build_table(k, r.rs.v, r.rs.n, r.in_order);
	return 0;
}

/* How many image entries start at or before addr. */
static size_t img_upper(const struct kallsyms_img *m, uint64_t addr)
{
	return upper_bound_u64(m->start, m->n, sizeof(uint64_t), 0, addr);
}

/* The symbol of image entry i, made on first use; NULL when the entry
 * does not check (a damaged image: no name, not a crash). */
static const struct sym *img_sym(struct kallsyms *k, size_t i)
{
	struct sym *y = hmap_get(&k->img_syms, i);
	if (y)
		return y;
	uint64_t s = load_u64(k->img.start + 8 * i), e = load_u64(k->img.end + 8 * i);
	uint32_t off = load_u32(k->img.name + 4 * i);
	if (off >= k->img.names_size)
		return NULL;
	y = xmalloc(sizeof *y);
	*y = (struct sym){ .start = s, .end = e, .name = k->img.names + off };
	hmap_put(&k->img_syms, i, y);
	return y;
}

const struct sym *kallsyms_find(struct kallsyms *k, uint64_t addr)
{
	if (!k->img.start)
		return symtab_find(&k->t, addr);
	/* symtab_find over the image */
	size_t lo = img_upper(&k->img, addr);
	if (!lo)
		return NULL;
	if (addr < load_u64(k->img.end + 8 * (lo - 1)))
		return img_sym(k, lo - 1);
	for (size_t i = lo - 1, n = 0; i-- > 0 && n < 4; n++)
		if (load_u64(k->img.start + 8 * i) <= addr && addr < load_u64(k->img.end + 8 * i))
			return img_sym(k, i);
	return NULL;
}

size_t kallsyms_count(const struct kallsyms *k)
{
	return k->img.start ? k->img.n : k->t.nr;
}

const char *kallsyms_module(const struct kallsyms *k, const struct sym *sym, struct arena *a)
{
	if (!sym)
		return NULL;
	uint16_t no;
	if (k->img.start) {
		size_t i = img_upper(&k->img, sym->start);
		if (!i || load_u64(k->img.start + 8 * (i - 1)) != sym->start)
			return NULL;
		no = load_u16(k->img.mod + 2 * (i - 1));
	} else {
		size_t i = (size_t)(sym - k->t.syms);
		if (!k->mod || i >= k->t.nr)
			return NULL;
		no = k->mod[i];
	}
	if (!no || no > k->nr_mods)
		return NULL;
	char b[256];
	const char *m = k->mod_names[no - 1];
	if (m[0] == '[')
		return m;
	snprintf(b, sizeof b, "[%s]", m);
	return arena_intern(a, b);
}

static void free_sym(void *v)
{
	free(v);
}

void kallsyms_release(struct kallsyms *k)
{
	symtab_release(&k->t);
	while (k->bufs) {
		struct kallsyms_buf *b = k->bufs;
		k->bufs = b->next;
		free(b);
	}
	free(k->mod);
	free(k->mod_names);
	if (k->img.start)
		hmap_release_vals(&k->img_syms, free_sym);
	if (k->map)
		cachedir_unmap(k->map);
	memset(&k->img, 0, sizeof k->img);
	k->map = NULL;
	k->mod = NULL;
	k->mod_names = NULL;
	k->nr_mods = 0;
}
