/*
 * kscache.c: the kallsyms table, parsed once per kallsyms file.
 *
 * Why: a recording's kernel frames are named from the kallsyms copy perf
 * record saved in its build-id cache (~/.debug/[kernel.kallsyms]/BUILDID/
 * kallsyms, written once per kernel build), ~120k lines whose parse was a
 * third of all the instructions of analysing a small recording (cc1:
 * 30 M of 94 M) and 9 MB of heap (the text the names are in, the table).
 * The parsed table is stored in $XDG_CACHE_HOME/scorch/kallsyms-v1/ (else
 * ~/.cache/...), one file per source file (by device and inode), and
 * later runs map it: the names stay in the mapped file, and only the
 * pages a lookup touches are read.
 *
 * Only regular files of non-zero size are cached (procfs calls
 * /proc/kallsyms a regular file of size 0): /proc/kallsyms changes without a trace
 * (modules, BPF programs, trampolines), and a stale name is worse than
 * none. The image records the source's device, inode, size and
 * modification and change times; a source that changed in any of them is
 * parsed again and the image replaced.
 *
 * The image (host byte order: it never leaves the machine):
 *   header   magic "SCKSYMS1", the source's identity (struct cacheimg_id),
 *            n symbols, n modules, the names' size
 *   start[n], end[n]  u64 each; starts strictly increasing (an end may
 *            have wrapped past 2^64, as kallsyms_read leaves it)
 *   name[n]  u32 offset into names
 *   mod[n]   u16: module number + 1, 0 for vmlinux (then padding to 8)
 *   modname[nmods]  u32 offset into names (then padding to 8)
 *   names    NUL-terminated strings, the last byte NUL
 * It is mapped only when its header checks (the source's identity, the
 * sizes, the exact file size, the names ending in a NUL) and its module
 * names lie inside the names; a symbol's entry is checked when a lookup
 * reaches it (kallsyms.c), so a damaged image can give a wrong name but
 * never a read outside it. Paths, mapping, the atomic store and the size
 * cap are the caches' common skeleton (cacheimg.h).
 */
#include "analyze/cache/kscache.h"
#include "util/cachedir.h"
#include "util/hash.h"
#include "util/load.h"
#include "util/xalloc.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KSCACHE_DIR "kallsyms-v1"
#define KSCACHE_MAX_SYMS (1u << 24)
#define KSCACHE_MAX_NAMES (1u << 30)

static const char magic[8] = { 'S', 'C', 'K', 'S', 'Y', 'M', 'S', '1' };

/* the header's fields, after the magic and the source's identity */
struct kscache_hdr {
	uint64_t nsyms, nmods, names_size;
};
#define HDR_SIZE cacheimg_header_size(sizeof(struct cacheimg_id), sizeof(struct kscache_hdr))

/* Byte offsets of the parts of an image of n symbols and m modules. */
struct layout {
	size_t start, end, name, mod, modname, names, total;
};

static bool layout_of(uint64_t n, uint64_t m, uint64_t names_size, struct layout *l)
{
	if (n > KSCACHE_MAX_SYMS || m > 0xfffe || names_size > KSCACHE_MAX_NAMES)
		return false;
	l->start = HDR_SIZE;
	l->end = l->start + n * 8;
	l->name = l->end + n * 8;
	l->mod = l->name + n * 4;
	l->modname = cacheimg_pad8(l->mod + n * 2);
	l->names = cacheimg_pad8(l->modname + m * 4);
	l->total = l->names + names_size;
	return true;
}

int kscache_parse(struct kallsyms *k, const uint8_t *p, size_t size, const struct cacheimg_id *id)
{
	memset(k, 0, sizeof *k);
	struct kscache_hdr h;
	struct layout l;
	if (!cacheimg_header_get(p, size, magic, id, sizeof *id, &h, sizeof h) || !h.nsyms ||
	    !layout_of(h.nsyms, h.nmods, h.names_size, &l) || l.total != size ||
	    !cacheimg_names_ok(p + l.names, h.names_size))
		return -1;
	/* the names end inside the image (its last byte is a NUL); the
	 * symbols' entries are checked when a lookup finds them
	 * (kallsyms_find): a run reads only the entries it needs */
	size_t m = (size_t)h.nmods;
	const char *names = (const char *)p + l.names;
	const char **mod_names = xmalloc((m ? m : 1) * sizeof *mod_names);
	for (size_t i = 0; i < m; i++) {
		uint32_t off = load_u32(p + l.modname + 4 * i);
		if (off >= h.names_size) {
			free(mod_names);
			return -1;
		}
		mod_names[i] = names + off;
	}
	k->mod_names = mod_names;
	k->nr_mods = m;
	k->img = (struct kallsyms_img){ .start = p + l.start, .end = p + l.end, .name = p + l.name,
					.mod = p + l.mod, .names = names,
					.names_size = h.names_size, .n = (size_t)h.nsyms };
	hmap_init(&k->img_syms);
	return 0;
}

/* The image's path for src (by device and inode: one image per source). */
static bool image_path(const struct stat *src, struct cacheimg_path *p)
{
	/* procfs says regular file, of size 0: /proc/kallsyms is never cached */
	if (!S_ISREG(src->st_mode) || src->st_size <= 0)
		return false;
	uint64_t key = hash_u64((uint64_t)src->st_dev * 0x9e3779b97f4a7c15ULL ^ (uint64_t)src->st_ino);
	return cacheimg_path(KSCACHE_DIR, key, "ksyms", p);
}

struct load {
	struct kallsyms *k;
	struct cacheimg_id id;
};

static bool valid(void *ctx, const uint8_t *img, size_t size)
{
	struct load *l = ctx;
	return !kscache_parse(l->k, img, size, &l->id);
}

int kscache_load(struct kallsyms *k, const struct stat *src)
{
	memset(k, 0, sizeof *k);
	struct cacheimg_path p;
	if (!image_path(src, &p))
		return -1;
	struct load l = { .k = k };
	cacheimg_id_of(src, &l.id);
	size_t size;
	void *map = cacheimg_load(&p, KSCACHE_MAX_NAMES + (uint64_t)KSCACHE_MAX_SYMS * 32, valid, &l, &size);
	if (!map)
		return -1;
	k->map = map;
	return 0;
}

uint8_t *kscache_image(const struct kallsyms *k, const struct cacheimg_id *id, size_t *size)
{
	size_t n = k->t.nr, m = k->nr_mods;
	if (!n)
		return NULL;
	/* the names: every symbol's, then every module's */
	uint32_t *len = xmalloc((n + m) * sizeof *len);
	uint64_t names_size = 0;
	for (size_t i = 0; i < n + m; i++) {
		len[i] = (uint32_t)strnlen(i < n ? k->t.syms[i].name : k->mod_names[i - n], 1u << 20) + 1;
		names_size += len[i];
	}
	struct layout l;
	if (!layout_of(n, m, names_size, &l) || names_size > UINT32_MAX) {
		free(len);
		return NULL;
	}
	uint8_t *img = xmalloc(l.total);
	/* zero what no field covers: the header's spare bytes, the padding */
	memset(img, 0, l.start);
	memset(img + l.mod + n * 2, 0, l.modname - (l.mod + n * 2));
	memset(img + l.modname + m * 4, 0, l.names - (l.modname + m * 4));
	struct kscache_hdr h = { .nsyms = n, .nmods = m, .names_size = names_size };
	cacheimg_header_put(img, magic, id, sizeof *id, &h, sizeof h);
	size_t at = 0;
	uint8_t *names = img + l.names;
	bool ok = true;
	for (size_t i = 0; i < n; i++) {
		const struct sym *y = &k->t.syms[i];
		uint16_t mod = k->mod ? k->mod[i] : 0;
		ok = ok && (!i || y->start > k->t.syms[i - 1].start);
		memcpy(img + l.start + 8 * i, &y->start, 8);
		memcpy(img + l.end + 8 * i, &y->end, 8);
		memcpy(img + l.mod + 2 * i, &mod, 2);
		cacheimg_name_put(names, &at, y->name, len[i] - 1, img + l.name + 4 * i);
	}
	for (size_t i = 0; i < m; i++)
		cacheimg_name_put(names, &at, k->mod_names[i], len[n + i] - 1, img + l.modname + 4 * i);
	free(len);
	if (!ok) {
		free(img);
		return NULL;
	}
	*size = l.total;
	return img;
}

void kscache_store(const struct kallsyms *k, const struct stat *src)
{
	struct cacheimg_path p;
	if (!image_path(src, &p))
		return;
	struct cacheimg_id id;
	cacheimg_id_of(src, &id);
	size_t size;
	uint8_t *img = kscache_image(k, &id, &size);
	if (img)
		cacheimg_store(&p, img, size);
	free(img);
}
