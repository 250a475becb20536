/*
 * namecache.c: a DSO's demangled symbol names, kept across runs.
 *
 * Why: a C++ name costs about 4,000 instructions to demangle
 * (__cxa_demangle, then perf's form: demangle.c), once per symbol a run
 * meets; a small recording of GCC's cc1 met 396, 12% of its
 * `scorch perfparser`, and every run (at -j N every thread) demangled them
 * again. The names a run demangled are kept in dwindex.h's images (their
 * own store, DWINDEX_NAMES_DIR; one image per DSO file, keyed by its
 * identity), as one entry:
 *   header  version (the demangler's source and the compiler that built
 *           it, whose __cxa_demangle is linked in), n, the strings' size
 *   row[n]  the mangled name's 64-bit hash, the demangled name's place
 *           and length in the strings; hashes strictly increasing
 *   strings each name and a NUL
 * A later run looks a symbol's mangled name up before demangling it. The
 * entry is checked before use (sizes), each name when a lookup finds it
 * (inside the strings, NUL-terminated): a damaged one can give a wrong
 * name, never a read outside it. A run that demangled names the entry lacks writes the kept
 * names and its own (dwindex.c: temporary name, rename).
 */
#include "analyze/cache/namecache.h"
#include "analyze/cache/dwindex.h"
#include "srchash.h"
#include "util/bsearch.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define NAMES_MAX ((size_t)1 << 22)
#define NAMES_STR_MAX ((size_t)1 << 30)

struct names_hdr {
	uint64_t version, n, strbytes;
};

struct name_row {
	uint64_t hash;
	uint32_t off, len;
};

struct noted {
	uint64_t hash;
	const char *dm;
};

struct namecache {
	struct dwindex *x;           /* NULL: over a caller's bytes */
	const struct name_row *rows;
	size_t n;
	const char *str;
	size_t strbytes;
	struct noted *nw;
	size_t nnw, cap;
};

/* The demangler's source and the compiler (its C++ runtime's demangler
 * is linked in: scripts/configure.sh). */
static uint64_t names_version(void)
{
	return DEMANGLE_SRC_HASH ^ hash_bytes(__VERSION__, strlen(__VERSION__));
}

static uint64_t name_hash(const char *mangled)
{
	return hash_bytes(mangled, strlen(mangled));
}

static bool parse(struct namecache *c, const void *p, size_t size)
{
	struct names_hdr h;
	if (!p || size < sizeof h || (uintptr_t)p % 8)
		return false;
	memcpy(&h, p, sizeof h);
	size_t body = size - sizeof h;
	if (h.version != names_version() || h.n > NAMES_MAX || h.n > body / sizeof(struct name_row) ||
	    h.strbytes != body - h.n * sizeof(struct name_row) || h.strbytes > NAMES_STR_MAX)
		return false;
	/* the rows are checked when a lookup lands on one (row_ok), not all
	 * here: a library's entry holds the names of every recording that
	 * went through it, a run looks up a few hundred */
	const struct name_row *r = (const void *)((const uint8_t *)p + sizeof h);
	const char *str = (const char *)(r + h.n);
	c->rows = r;
	c->n = (size_t)h.n;
	c->str = str;
	c->strbytes = (size_t)h.strbytes;
	return true;
}

struct namecache *namecache_open(int fd)
{
	struct dwindex *x = dwindex_open_in(DWINDEX_NAMES_DIR, fd);
	if (!x)
		return NULL;
	struct namecache *c = xcalloc(1, sizeof *c);
	c->x = x;
	size_t size;
	const void *p = dwindex_find(x, DWINDEX_NAMES, 0, &size);
	if (p)
		parse(c, p, size);
	return c;
}

struct namecache *namecache_over(const void *p, size_t size)
{
	struct namecache *c = xcalloc(1, sizeof *c);
	if (!parse(c, p, size)) {
		free(c);
		return NULL;
	}
	return c;
}

/* Whether row r's name is inside the strings, NUL-terminated. */
static bool row_ok(const struct namecache *c, const struct name_row *r)
{
	return r->off < c->strbytes && r->len < c->strbytes - r->off && !c->str[r->off + r->len];
}

const char *namecache_find(const struct namecache *c, const char *mangled)
{
	if (!c || !c->n)
		return NULL;
	/* (rows out of order, in a damaged entry: a binary search finds a
	 * wrong row or none, and only inside it) */
	uint64_t h = name_hash(mangled);
	size_t at = UPPER_BOUND(c->rows, c->n, hash, h);
	if (!at || c->rows[at - 1].hash != h || !row_ok(c, &c->rows[at - 1]))
		return NULL;
	return c->str + c->rows[at - 1].off;
}

void namecache_note(struct namecache *c, const char *mangled, const char *demangled)
{
	if (!c || !c->x || c->nnw >= NAMES_MAX || strlen(demangled) >= UINT32_MAX ||
	    ARRAY_GROW(c->nw, c->cap, c->nnw + 1, NAMES_MAX))
		return;
	c->nw[c->nnw++] = (struct noted){ name_hash(mangled), demangled };
}

uint8_t *namecache_entry(size_t n, const uint64_t *hashes, const char *const *names, size_t *size)
{
	if (n > NAMES_MAX)
		return NULL;
	size_t strbytes = 0;
	for (size_t i = 0; i < n; i++) {
		if (i && hashes[i] <= hashes[i - 1])
			return NULL;
		strbytes += strlen(names[i]) + 1;
		if (strbytes > NAMES_STR_MAX)
			return NULL;
	}
	/* the strings padded to 8 bytes (dwindex.c aligns what follows) */
	size_t pad = (8 - strbytes % 8) % 8;
	strbytes += pad;
	struct names_hdr h = { names_version(), n, strbytes };
	size_t total = sizeof h + n * sizeof(struct name_row) + strbytes;
	uint8_t *p = xcalloc(1, total);
	memcpy(p, &h, sizeof h);
	struct name_row *r = (struct name_row *)(p + sizeof h);
	char *str = (char *)(r + n);
	size_t at = 0;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		r[i] = (struct name_row){ hashes[i], (uint32_t)at, (uint32_t)len };
		memcpy(str + at, names[i], len + 1);
		at += len + 1;
	}
	*size = total;
	return p;
}

static int noted_cmp(const void *a, const void *b)
{
	const struct noted *x = a, *y = b;
	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

void namecache_store(struct namecache *c)
{
	if (c && c->x && c->nnw) {
		/* names stored since the kept ones were read (another thread's
		 * of this run, another run's): those are the kept ones now, so
		 * that this store keeps them with this run's (dwindex.h) */
		dwindex_lock(); /* to the store, below */
		if (dwindex_refresh(&c->x)) {
			c->rows = NULL;
			c->n = 0;
			c->str = NULL;
			c->strbytes = 0;
			size_t size;
			const void *p = dwindex_find(c->x, DWINDEX_NAMES, 0, &size);
			if (p)
				parse(c, p, size);
		}
		qsort(c->nw, c->nnw, sizeof *c->nw, noted_cmp);
		/* kept rows out of order (a damaged entry, checked only here):
		 * the entry is made of this run's names */
		size_t nk = c->n;
		for (size_t k = 1; k < nk; k++)
			if (c->rows[k].hash <= c->rows[k - 1].hash)
				nk = 0;
		size_t cap = nk + c->nnw, n = 0, i = 0, j = 0;
		uint64_t *hashes = xmalloc(cap * sizeof *hashes);
		const char **names = xmalloc(cap * sizeof *names);
		while (i < nk || j < c->nnw) {
			if (j < c->nnw && (i == nk || c->nw[j].hash <= c->rows[i].hash)) {
				if (i < nk && c->rows[i].hash == c->nw[j].hash)
					i++;
				if (!n || hashes[n - 1] != c->nw[j].hash) {
					hashes[n] = c->nw[j].hash;
					names[n++] = c->nw[j].dm;
				}
				j++;
			} else {
				/* a damaged kept row is dropped */
				if (row_ok(c, &c->rows[i]) && (!n || hashes[n - 1] != c->rows[i].hash)) {
					hashes[n] = c->rows[i].hash;
					names[n++] = c->str + c->rows[i].off;
				}
				i++;
			}
		}
		size_t size;
		uint8_t *e = namecache_entry(n, hashes, names, &size);
		if (e)
			dwindex_add(c->x, DWINDEX_NAMES, 0, e, size);
		free(hashes);
		free(names);
		dwindex_store_now(c->x);
		dwindex_unlock();
		c->nnw = 0;
	}
}

void namecache_close(struct namecache *c)
{
	if (!c)
		return;
	namecache_store(c);
	dwindex_close(c->x);
	free(c->nw);
	free(c);
}
