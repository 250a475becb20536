/* cacheimg.c: the skeleton of the on-disk caches (see cacheimg.h). */
#include "analyze/cache/cacheimg.h"
#include "util/cachedir.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

void cacheimg_id_of(const struct stat *st, struct cacheimg_id *id)
{
	memset(id, 0, sizeof *id);
	id->dev = (uint64_t)st->st_dev;
	id->ino = (uint64_t)st->st_ino;
	id->size = (uint64_t)st->st_size;
	id->mtime_s = (uint64_t)st->st_mtim.tv_sec;
	id->mtime_ns = (uint64_t)st->st_mtim.tv_nsec;
	id->ctime_s = (uint64_t)st->st_ctim.tv_sec;
	id->ctime_ns = (uint64_t)st->st_ctim.tv_nsec;
}

bool cacheimg_path(const char *store, uint64_t key, const char *ext, struct cacheimg_path *p)
{
	if (cachedir_disabled() || !cachedir_path(store, p->dir, sizeof p->dir))
		return false;
	int n = snprintf(p->file, sizeof p->file, "%s/%016llx.%s", p->dir, (unsigned long long)key, ext);
	return n > 0 && (size_t)n < sizeof p->file;
}

void *cacheimg_load(const struct cacheimg_path *p, uint64_t max,
		    bool (*valid)(void *ctx, const uint8_t *img, size_t size), void *ctx,
		    size_t *size)
{
	int fd;
	void *map = cachedir_map(p->file, max, size, &fd);
	if (!map)
		return NULL;
	if (valid(ctx, map, *size)) {
		cachedir_used(fd);
	} else {
		cachedir_unmap(map);
		map = NULL;
	}
	close(fd);
	return map;
}

void cacheimg_store(struct cacheimg_path *p, const uint8_t *img, size_t size)
{
	cachedir_store(p->dir, p->file, img, size);
}

bool cacheimg_header_get(const uint8_t *p, size_t size, const char *magic, const void *id,
			 size_t idsize, void *f, size_t fsize)
{
	if (size < cacheimg_header_size(idsize, fsize) || memcmp(p, magic, 8) ||
	    memcmp(p + 8, id, idsize))
		return false;
	memcpy(f, p + 8 + idsize, fsize);
	return true;
}

void cacheimg_header_put(uint8_t *p, const char *magic, const void *id, size_t idsize,
			 const void *f, size_t fsize)
{
	memcpy(p, magic, 8);
	memcpy(p + 8, id, idsize);
	memcpy(p + 8 + idsize, f, fsize);
}
