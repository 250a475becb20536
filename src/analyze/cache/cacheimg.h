/*
 * cacheimg.h: the skeleton every on-disk cache of scorch shares; each cache
 * (kscache.c, symcache.c, dwindex.c) keeps only its own encoding.
 *
 * An image is one file, in host byte order (it never leaves the machine):
 *
 *   magic[8]      the cache and its format's version ("SCKSYMS1")
 *   identity      the sources it was made from (struct cacheimg_id per
 *                 file, and whatever else the cache adds), compared byte
 *                 for byte: a source that changed makes the image stale
 *   ...           the cache's own header fields and data
 *
 * Invariants: an image is used only when its header checks and the cache
 * has checked its sizes against the exact file size (cacheimg_load's
 * valid), so a damaged image can give a wrong answer but never a read
 * outside it; it is mapped read-only, never read into the heap whole; a
 * store is atomic (a unique temporary renamed over the image: a reader
 * sees a whole image or none, concurrent writers are harmless) and keeps
 * all caches under the configured size, evicting the least recently used
 * files (util/cachedir.h, which also turns every cache off).
 */
#ifndef SCORCH_CACHEIMG_H
#define SCORCH_CACHEIMG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

/* What identifies a source file's content: device, inode, size and
 * modification and change times (ns). */
struct cacheimg_id {
	uint64_t dev, ino, size, mtime_s, mtime_ns, ctime_s, ctime_ns;
};
void cacheimg_id_of(const struct stat *st, struct cacheimg_id *id);

/* Where an image lives: the store's folder and the file in it. */
struct cacheimg_path {
	char dir[PATH_MAX];
	char file[PATH_MAX + 64];
};

/* The image of key (a hash of what it was made from) in store
 * ("kallsyms-v1"), named KEY.ext; false when caches are off or the path
 * does not fit. */
bool cacheimg_path(const char *store, uint64_t key, const char *ext, struct cacheimg_path *p);

/* The image at p, mapped, when it is at most max bytes and valid(ctx,
 * image, size) says it is whole and made for what the caller has (then it
 * counts as used for the eviction): its address (cachedir_unmap it), its
 * size in *size. NULL when there is none or it is not valid (nothing
 * stays mapped). */
void *cacheimg_load(const struct cacheimg_path *p, uint64_t max,
		    bool (*valid)(void *ctx, const uint8_t *img, size_t size), void *ctx,
		    size_t *size);

/* Store img (size bytes, the caller's) at p, atomically and under the size
 * cap. Failures are silent: a cache is only a shortcut. */
void cacheimg_store(struct cacheimg_path *p, const uint8_t *img, size_t size);

/* An image's header: magic (8 bytes), the identity (idsize bytes), then
 * the cache's fields (fsize bytes: a struct of u64 counts and sizes). Its
 * size: */
static inline size_t cacheimg_header_size(size_t idsize, size_t fsize)
{
	return 8 + idsize + fsize;
}

/* Whether the image p (size bytes) starts with magic and then the
 * identity id; its fields into f. */
bool cacheimg_header_get(const uint8_t *p, size_t size, const char *magic, const void *id,
			 size_t idsize, void *f, size_t fsize);
/* Write that header at p. */
void cacheimg_header_put(uint8_t *p, const char *magic, const void *id, size_t idsize,
			 const void *f, size_t fsize);

/* A names section (NUL-terminated strings, each named by its u32 offset
 * into the section): whether its last byte is a NUL, so that every name
 * found at an offset inside it ends inside it. */
static inline bool cacheimg_names_ok(const uint8_t *names, uint64_t size)
{
	return size && !names[size - 1];
}

/* Put the name s (len bytes and a NUL) at names + *at, its offset (u32)
 * at off; *at moves past it. */
static inline void cacheimg_name_put(uint8_t *names, size_t *at, const char *s, size_t len,
				     uint8_t *off)
{
	uint32_t o = (uint32_t)*at;
	memcpy(off, &o, 4);
	memcpy(names + *at, s, len);
	names[*at + len] = 0;
	*at += len + 1;
}

/* n rounded up to a multiple of 8 (the sections of an image start there). */
static inline size_t cacheimg_pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

#endif
