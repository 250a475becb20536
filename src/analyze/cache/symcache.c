/*
 * symcache.c: a DSO's symbol table, built once per pair of files.
 *
 * Why: a big binary's table is read from its ELF symbols (.symtab of the
 * debug file, else of the binary, else .dynsym and MiniDebugInfo), sorted
 * and thinned out of aliases (symtab.h) on every run, whatever few of its
 * addresses the recording sampled. On a small recording of gcc (cc1,
 * 731 samples) that was a third of all instructions: 15 M of 45 M. The
 * finished table is stored in $XDG_CACHE_HOME/scorch/symtab-v1/ (else
 * ~/.cache/...), one file per pair (binary, debug file), and later runs
 * map it: no ELF symbol is read and nothing is sorted, only the starts,
 * ends and name offsets are copied into the table, and a name's page is
 * read when a lookup returns it.
 *
 * Only tables of SYMCACHE_MIN_SYMS symbols or more are stored (a small
 * one costs less to build than a file costs to open). The image records
 * the identity of both files (device, inode, size, modification and change
 * times) and the version of symbols.c's way of building a table
 * (SYMCACHE_VERSION, symbols.c); a file that changed in any of them makes
 * the table be built again and the image replaced.
 *
 * The image (host byte order: it never leaves the machine):
 *   header   magic "SCSYMTB1", struct symcache_id, n symbols, the names' size
 *   start[n], end[n]  u64 each; starts strictly increasing
 *   name[n]  u32 offset into names (then padding to 8)
 *   names    NUL-terminated strings, the last byte NUL
 * It is used only when its header checks (identity, sizes, the exact file
 * size, the names ending in a NUL) and every entry does (starts strictly
 * increasing, name offsets inside the names): a damaged image can give a
 * wrong name but never a read outside it. Paths, mapping, the atomic
 * store and the size cap are the caches' common skeleton (cacheimg.h).
 */
#include "analyze/cache/symcache.h"
#include "util/cachedir.h"
#include "util/hash.h"
#include "util/load.h"
#include "util/xalloc.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SYMCACHE_DIR "symtab-v1"
#define SYMCACHE_MAX_SYMS (1u << 24)
#define SYMCACHE_MAX_NAMES (1u << 30)

static const char magic[8] = { 'S', 'C', 'S', 'Y', 'M', 'T', 'B', '1' };

/* the header's fields, after the magic and the files' identity */
struct symcache_hdr {
	uint64_t nsyms, names_size;
};

bool symcache_id_of(int bin_fd, int dbg_fd, struct symcache_id *id)
{
	memset(id, 0, sizeof *id);
	struct stat st;
	bool any = false;
	if (bin_fd >= 0 && !fstat(bin_fd, &st) && S_ISREG(st.st_mode)) {
		cacheimg_id_of(&st, &id->bin);
		any = true;
	}
	if (dbg_fd >= 0 && !fstat(dbg_fd, &st) && S_ISREG(st.st_mode)) {
		cacheimg_id_of(&st, &id->dbg);
		any = true;
	}
	return any;
}

struct layout {
	size_t start, end, name, names, total;
};

static bool layout_of(uint64_t n, uint64_t names_size, struct layout *l)
{
	if (n > SYMCACHE_MAX_SYMS || names_size > SYMCACHE_MAX_NAMES)
		return false;
	l->start = cacheimg_header_size(sizeof(struct symcache_id), sizeof(struct symcache_hdr));
	l->end = l->start + n * 8;
	l->name = l->end + n * 8;
	l->names = cacheimg_pad8(l->name + n * 4);
	l->total = l->names + names_size;
	return true;
}

int symcache_parse(struct symtab *t, const uint8_t *p, size_t size, const struct symcache_id *id)
{
	memset(t, 0, sizeof *t);
	struct symcache_hdr h;
	struct layout l;
	if (!cacheimg_header_get(p, size, magic, id, sizeof *id, &h, sizeof h) || !h.nsyms ||
	    !layout_of(h.nsyms, h.names_size, &l) || l.total != size ||
	    !cacheimg_names_ok(p + l.names, h.names_size))
		return -1;
	size_t n = (size_t)h.nsyms;
	const char *names = (const char *)p + l.names;
	struct sym *syms = xmalloc(n * sizeof *syms);
	for (size_t i = 0; i < n; i++) {
		uint64_t start = load_u64(p + l.start + 8 * i);
		uint32_t off = load_u32(p + l.name + 4 * i);
		if (off >= h.names_size || (i && start <= syms[i - 1].start)) {
			free(syms);
			return -1;
		}
		/* the names end inside the image: its last byte is a NUL */
		syms[i] = (struct sym){ .start = start, .end = load_u64(p + l.end + 8 * i),
					.name = names + off };
	}
	t->syms = syms;
	t->nr = n;
	return 0;
}

/* The image's path for id (by the files' devices and inodes: one image
 * per pair, replaced when either changes). */
static bool image_path(const struct symcache_id *id, struct cacheimg_path *p)
{
	uint64_t k = hash_u64(id->bin.dev * 0x9e3779b97f4a7c15ULL ^ id->bin.ino);
	k = hash_u64(k ^ (id->dbg.dev * 0xc2b2ae3d27d4eb4fULL) ^ hash_u64(id->dbg.ino));
	return cacheimg_path(SYMCACHE_DIR, k, "syms", p);
}

struct load {
	struct symtab *t;
	const struct symcache_id *id;
};

static bool valid(void *ctx, const uint8_t *img, size_t size)
{
	struct load *l = ctx;
	return !symcache_parse(l->t, img, size, l->id);
}

int symcache_load(struct symtab *t, const struct symcache_id *id, void **map_out)
{
	memset(t, 0, sizeof *t);
	struct cacheimg_path p;
	if (!image_path(id, &p))
		return -1;
	struct load l = { t, id };
	size_t size;
	void *map = cacheimg_load(&p, SYMCACHE_MAX_NAMES + (uint64_t)SYMCACHE_MAX_SYMS * 24 + 4096,
				  valid, &l, &size);
	if (!map)
		return -1;
	*map_out = map;
	return 0;
}

uint8_t *symcache_image(const struct symtab *t, const struct symcache_id *id, size_t *size)
{
	size_t n = t->nr;
	if (!n)
		return NULL;
	uint32_t *len = xmalloc(n * sizeof *len);
	uint64_t names_size = 0;
	bool ok = true;
	for (size_t i = 0; i < n; i++) {
		const struct sym *y = &t->syms[i];
		size_t nl = y->name ? strlen(y->name) : 0;
		ok = ok && !y->demangled && y->name && nl < UINT32_MAX &&
		     (!i || y->start > t->syms[i - 1].start);
		len[i] = (uint32_t)nl + 1;
		names_size += (uint64_t)nl + 1;
	}
	struct layout l;
	if (!ok || !layout_of(n, names_size, &l) || names_size > UINT32_MAX) {
		free(len);
		return NULL;
	}
	uint8_t *img = xmalloc(l.total);
	memset(img, 0, l.names); /* the header's spare bytes, the padding */
	struct symcache_hdr h = { .nsyms = n, .names_size = names_size };
	cacheimg_header_put(img, magic, id, sizeof *id, &h, sizeof h);
	size_t at = 0;
	for (size_t i = 0; i < n; i++) {
		const struct sym *y = &t->syms[i];
		memcpy(img + l.start + 8 * i, &y->start, 8);
		memcpy(img + l.end + 8 * i, &y->end, 8);
		cacheimg_name_put(img + l.names, &at, y->name, len[i] - 1, img + l.name + 4 * i);
	}
	free(len);
	*size = l.total;
	return img;
}

void symcache_store(const struct symtab *t, const struct symcache_id *id)
{
	struct cacheimg_path p;
	if (!image_path(id, &p))
		return;
	size_t size;
	uint8_t *img = symcache_image(t, id, &size);
	if (img)
		cacheimg_store(&p, img, size);
	free(img);
}
