/*
 * kscache.h: the parsed kallsyms table of a kallsyms file, cached on disk
 * (see kscache.c).
 */
#ifndef SCORCH_KSCACHE_H
#define SCORCH_KSCACHE_H

#include "analyze/cache/cacheimg.h"
#include "analyze/kernel/kallsyms.h"
#include <stdint.h>
#include <sys/stat.h>

/* The table in a cache image (p, size bytes) made for id: 0 and k filled
 * (names point into p, which must outlive k), or -1 when p is not a whole,
 * consistent image for id (k left empty). */
int kscache_parse(struct kallsyms *k, const uint8_t *p, size_t size, const struct cacheimg_id *id);

/* The cached table of the kallsyms file described by src: 0 and k filled
 * (k keeps the cache file mapped), or -1 (no cache, disabled, stale,
 * damaged: k left empty). */
int kscache_load(struct kallsyms *k, const struct stat *src);
/* The image of k (parsed by kallsyms_read) for id, malloc'd, its size in
 * *size; NULL when k has no symbols or is not a table kallsyms_read makes
 * (starts strictly increasing). */
uint8_t *kscache_image(const struct kallsyms *k, const struct cacheimg_id *id, size_t *size);
/* Store k, just read from the file described by src, as its cache.
 * Failures are silent: the cache is only a shortcut. */
void kscache_store(const struct kallsyms *k, const struct stat *src);

#endif
