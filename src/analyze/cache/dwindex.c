/*
 * dwindex.c: what scorch derives from a debug file's DWARF, kept across
 * runs.
 *
 * Why: on a small recording of a big program, the DWARF work is per CU
 * touched, not per sample. To answer file:line, a CU's whole line program
 * is run once (dwline.c's scan: its sequences, a checkpoint every 32
 * rows); to find the function of an address, every DIE at the CU's top
 * level is read once (the function index, inlines.c). CPython's CUs are
 * big: on a small Python recording `scorch perfparser` ran 1.5 MB of line
 * programs (a third of its instructions) and read 68 CUs' DIEs (a tenth)
 * for 630 addresses. Both results are stored in
 * $XDG_CACHE_HOME/scorch/dwindex-v1/ (else ~/.cache/...), one image per
 * file the DWARF is read from (the separate debug file, else the binary),
 * holding every entry a run made; a later run maps the image and uses
 * those entries instead of reading the DWARF again.
 *
 * The image (host byte order: it never leaves the machine):
 *   header   magic "SCDWIDX1", the file's identity (device, inode, size,
 *            modification and change times), n entries, the image size
 *   entry[n] key (kind << 56 | the DWARF offset), the data's place and
 *            size; keys strictly increasing
 *   data     each entry's, 8-byte aligned
 * It is used only when the header checks (identity, sizes, the exact file
 * size) and every entry does (keys increasing, data inside the image and
 * aligned); each entry's data is then checked by its user against what it
 * describes (dwline_open_indexed; inlines.c's function index), so a
 * damaged image can give a wrong answer but never a read outside it. A
 * run that made an entry the image lacks writes a new image: the kept
 * entries and its own, stored atomically (cacheimg.h: a reader sees a
 * whole image or none). A store first looks
 * for an image stored since its own was opened and keeps that one's
 * entries too (ours where both have one), under a lock
 * (dwindex_lock), so that the threads of one run lose none of each
 * other's; of writers in different processes at once, the last one's
 * stays (the others' entries are made again by a later run, which adds
 * them). Paths, mapping and the size cap are the caches' common
 * skeleton (cacheimg.h).
 *
 * The same images, in a store of their own (DWINDEX_UNWIND_DIR), keep the
 * unwinder's rules of a DSO's CFI (unwind_dwarf.c), keyed by that file.
 */
#include "analyze/cache/dwindex.h"
#include "util/bsearch.h"
#include "util/buf.h"
#include "util/cachedir.h"
#include "util/hash.h"
#include "util/load.h"
#include "util/xalloc.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DWINDEX_MAX_ENTRIES (1u << 22)
#define DWINDEX_MAX_SIZE (1ull << 34)

static const char magic[8] = { 'S', 'C', 'D', 'W', 'I', 'D', 'X', '1' };

/* A store's look at the newer image and its rename, one thread at a time
 * (dwindex_lock) */
static pthread_mutex_t store_mu = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

void dwindex_lock(void)
{
	pthread_mutex_lock(&store_mu);
}

void dwindex_unlock(void)
{
	pthread_mutex_unlock(&store_mu);
}

/* the header's fields, after the magic and the file's identity */
struct dx_hdr {
	uint64_t n, size;
};
#define HDR_SIZE cacheimg_header_size(sizeof(struct cacheimg_id), sizeof(struct dx_hdr))

struct dx_entry {
	uint64_t key, at, size;
};

struct added {
	uint64_t key;
	void *p;
	size_t size;
};

struct dwindex {
	struct cacheimg_id id;
	const char *dir;             /* the store (DWINDEX_DIR, DWINDEX_UNWIND_DIR) */
	bool stored;                 /* id is a file's: close may store */
	const uint8_t *img;          /* the image (mapped, or a caller's) */
	size_t img_size;
	bool mapped;
	const struct dx_entry *e;    /* its entries */
	size_t n;
	struct added *add;           /* entries made this run */
	size_t nadd, cap_add;
};

/* Check p as an image for id; its entries into x. */
static bool parse(struct dwindex *x, const struct cacheimg_id *id, const void *p, size_t size)
{
	struct dx_hdr h;
	if ((uintptr_t)p % 8 ||
	    !cacheimg_header_get(p, size, magic, id, sizeof *id, &h, sizeof h) || h.size != size ||
	    h.n > DWINDEX_MAX_ENTRIES || h.n > (size - HDR_SIZE) / sizeof(struct dx_entry))
		return false;
	const struct dx_entry *e = (const void *)((const uint8_t *)p + HDR_SIZE);
	size_t data = HDR_SIZE + (size_t)h.n * sizeof *e;
	for (size_t i = 0; i < h.n; i++)
		if ((i && e[i].key <= e[i - 1].key) || e[i].at % 8 || e[i].at < data ||
		    e[i].at > size || e[i].size > size - e[i].at)
			return false;
	x->img = p;
	x->img_size = size;
	x->e = e;
	x->n = (size_t)h.n;
	return true;
}

/* The image's path for id (by device and inode: one image per file,
 * replaced when it changes). */
static bool image_path(const char *store, const struct cacheimg_id *id, struct cacheimg_path *p)
{
	uint64_t k = hash_u64(id->dev * 0x9e3779b97f4a7c15ULL ^ hash_u64(id->ino));
	return cacheimg_path(store, k, "idx", p);
}

static bool valid(void *ctx, const uint8_t *img, size_t size)
{
	struct dwindex *x = ctx;
	return parse(x, &x->id, img, size);
}

static struct dwindex *open_in(const char *store, const struct cacheimg_id *id)
{
	struct cacheimg_path p;
	if (!image_path(store, id, &p))
		return NULL;
	struct dwindex *x = xcalloc(1, sizeof *x);
	x->id = *id;
	x->dir = store;
	x->stored = true;
	size_t size;
	x->mapped = cacheimg_load(&p, DWINDEX_MAX_SIZE, valid, x, &size) != NULL;
	return x;
}

struct dwindex *dwindex_open_id(const struct cacheimg_id *id)
{
	return open_in(DWINDEX_DIR, id);
}

struct dwindex *dwindex_open_in(const char *store, int fd)
{
	struct stat st;
	if (fd < 0 || cachedir_disabled() || fstat(fd, &st) || !S_ISREG(st.st_mode))
		return NULL;
	struct cacheimg_id id;
	cacheimg_id_of(&st, &id);
	return open_in(store, &id);
}

struct dwindex *dwindex_open(int fd)
{
	return dwindex_open_in(DWINDEX_DIR, fd);
}

struct dwindex *dwindex_over(const struct cacheimg_id *id, const void *p, size_t size)
{
	struct dwindex *x = xcalloc(1, sizeof *x);
	x->id = *id;
	if (!parse(x, id, p, size)) {
		free(x);
		return NULL;
	}
	return x;
}

static bool key_of(enum dwindex_kind kind, uint64_t off, uint64_t *key)
{
	if (off >> 56)
		return false;
	*key = (uint64_t)kind << 56 | off;
	return true;
}

const void *dwindex_find(const struct dwindex *x, enum dwindex_kind kind, uint64_t off,
			 size_t *size)
{
	uint64_t key;
	if (!key_of(kind, off, &key))
		return NULL;
	/* the keys strictly increase: the entry is the last one at or
	 * before key, if its key is key */
	size_t i = UPPER_BOUND(x->e, x->n, key, key);
	if (!i || x->e[i - 1].key != key)
		return NULL;
	*size = (size_t)x->e[i - 1].size;
	return x->img + x->e[i - 1].at;
}

void dwindex_add(struct dwindex *x, enum dwindex_kind kind, uint64_t off, void *p, size_t size)
{
	uint64_t key;
	if (!x->stored || !key_of(kind, off, &key) || size > DWINDEX_MAX_SIZE ||
	    x->nadd >= DWINDEX_MAX_ENTRIES ||
	    ARRAY_GROW(x->add, x->cap_add, x->nadd + 1, DWINDEX_MAX_ENTRIES)) {
		free(p);
		return;
	}
	x->add[x->nadd++] = (struct added){ key, p, size };
}

uint8_t *dwindex_image(const struct cacheimg_id *id, size_t n, const uint64_t *keys,
		       const void *const *p, const size_t *sizes, size_t *size)
{
	if (n > DWINDEX_MAX_ENTRIES)
		return NULL;
	size_t total = HDR_SIZE + n * sizeof(struct dx_entry);
	for (size_t i = 0; i < n; i++) {
		if ((i && keys[i] <= keys[i - 1]) || sizes[i] > DWINDEX_MAX_SIZE)
			return NULL;
		total = cacheimg_pad8(total) + sizes[i];
		if (total > DWINDEX_MAX_SIZE)
			return NULL;
	}
	total = cacheimg_pad8(total);
	uint8_t *img = xcalloc(1, total);
	struct dx_hdr h = { .n = n, .size = total };
	cacheimg_header_put(img, magic, id, sizeof *id, &h, sizeof h);
	size_t at = HDR_SIZE + n * sizeof(struct dx_entry);
	for (size_t i = 0; i < n; i++) {
		at = cacheimg_pad8(at);
		struct dx_entry e = { keys[i], at, sizes[i] };
		memcpy(img + HDR_SIZE + i * sizeof e, &e, sizeof e);
		if (sizes[i])
			memcpy(img + at, p[i], sizes[i]);
		at += sizes[i];
	}
	*size = total;
	return img;
}

static int added_cmp(const void *a, const void *b)
{
	const struct added *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* The kept entries and the added ones, by key (an added one replaces a
 * kept one, whose data did not check), as a new image, stored. */
static struct dwindex *newer(const struct dwindex *x);

static void store(struct dwindex *x)
{
	struct cacheimg_path path;
	if (!image_path(x->dir, &x->id, &path))
		return;
	dwindex_lock();
	qsort(x->add, x->nadd, sizeof *x->add, added_cmp);
	size_t cap = x->n + x->nadd, n = 0;
	uint64_t *keys = xmalloc(cap * sizeof *keys);
	const void **p = xmalloc(cap * sizeof *p);
	size_t *sizes = xmalloc(cap * sizeof *sizes);
	size_t i = 0, j = 0;
	while (i < x->n || j < x->nadd) {
		if (j < x->nadd && (i == x->n || x->add[j].key <= x->e[i].key)) {
			if (i < x->n && x->e[i].key == x->add[j].key)
				i++;
			/* the same key added twice: once */
			if (!n || keys[n - 1] != x->add[j].key) {
				keys[n] = x->add[j].key;
				p[n] = x->add[j].p;
				sizes[n++] = x->add[j].size;
			}
			j++;
		} else {
			keys[n] = x->e[i].key;
			p[n] = x->img + x->e[i].at;
			sizes[n++] = (size_t)x->e[i].size;
			i++;
		}
	}
	/* another writer's image since x was opened (another thread of this
	 * run, which opened the same one, or another run): its entries too,
	 * ours where both have one. Else the last writer's rename dropped the
	 * others' entries, and `-j 2` took 6 runs instead of 1 to stop
	 * storing */
	struct dwindex *o = newer(x);
	if (o && o->n) {
		size_t cap2 = n + o->n, n2 = 0;
		uint64_t *k2 = xmalloc(cap2 * sizeof *k2);
		const void **p2 = xmalloc(cap2 * sizeof *p2);
		size_t *s2 = xmalloc(cap2 * sizeof *s2);
		i = j = 0;
		while (i < n || j < o->n) {
			if (i < n && (j == o->n || keys[i] <= o->e[j].key)) {
				if (j < o->n && o->e[j].key == keys[i])
					j++;
				k2[n2] = keys[i];
				p2[n2] = p[i];
				s2[n2++] = sizes[i++];
			} else {
				k2[n2] = o->e[j].key;
				p2[n2] = o->img + o->e[j].at;
				s2[n2++] = (size_t)o->e[j++].size;
			}
		}
		free(keys);
		free(p);
		free(sizes);
		keys = k2;
		p = p2;
		sizes = s2;
		n = n2;
	}
	size_t size;
	uint8_t *img = dwindex_image(&x->id, n, keys, p, sizes, &size);
	if (img)
		cacheimg_store(&path, img, size);
	dwindex_close(o); /* after the image is made: its entries were read in place */
	dwindex_unlock();
	free(img);
	free(keys);
	free(p);
	free(sizes);
}

void dwindex_store_now(struct dwindex *x)
{
	if (!x)
		return;
	if (x->nadd && x->stored)
		store(x);
	for (size_t i = 0; i < x->nadd; i++)
		free(x->add[i].p);
	x->nadd = 0;
}

/* The image stored for x's file since x was opened (another writer's),
 * opened as dwindex_open does; NULL when the image is still x's, or there
 * is none. */
static struct dwindex *newer(const struct dwindex *x)
{
	if (!x || !x->stored)
		return NULL;
	struct dwindex *o = open_in(x->dir, &x->id);
	if (o && (!o->mapped || o->img == x->img)) {
		dwindex_close(o); /* nothing added: it does not store */
		o = NULL;
	}
	return o;
}

bool dwindex_refresh(struct dwindex **xp)
{
	struct dwindex *o = newer(*xp);
	if (!o)
		return false;
	/* what was added goes with it, to be stored from there */
	struct dwindex *x = *xp;
	o->add = x->add;
	o->nadd = x->nadd;
	o->cap_add = x->cap_add;
	x->add = NULL;
	x->nadd = 0;
	dwindex_close(x); /* nothing added any more: it does not store */
	*xp = o;
	return true;
}

void dwindex_close(struct dwindex *x)
{
	if (!x)
		return;
	dwindex_store_now(x);
	free(x->add);
	if (x->mapped)
		cachedir_unmap((void *)x->img);
	free(x);
}
