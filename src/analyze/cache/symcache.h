/*
 * symcache.h: a DSO's symbol table, built once per pair of files and
 * cached on disk (see symcache.c).
 */
#ifndef SCORCH_SYMCACHE_H
#define SCORCH_SYMCACHE_H

#include "analyze/cache/cacheimg.h"
#include "analyze/symbols/symtab.h"
#include <stddef.h>
#include <stdint.h>

/* Tables smaller than this are built each time: cheaper than a file. */
#define SYMCACHE_MIN_SYMS 1024

/* What the table was built from: the binary and its separate debug file
 * (each all zero when there is none), and the version of the way
 * symbols.c builds it. */
struct symcache_id {
	struct cacheimg_id bin, dbg;
	uint64_t version;
};

/* The identity of the files open as bin_fd and dbg_fd (-1: none); false
 * when neither is a regular file. */
bool symcache_id_of(int bin_fd, int dbg_fd, struct symcache_id *id);

/* The table in a cache image (p, size bytes) made for id: 0 and t filled
 * (t->syms allocated, names pointing into p, which must outlive t), or -1
 * when p is not a whole, consistent image for id (t left empty). */
int symcache_parse(struct symtab *t, const uint8_t *p, size_t size, const struct symcache_id *id);

/* The cached table for id: 0, t filled and the image mapped at *map
 * (cachedir_unmap it after t is released), or -1 (no cache, disabled,
 * stale, damaged: t left empty). */
int symcache_load(struct symtab *t, const struct symcache_id *id, void **map);

/* The image of t (just built: no name demangled yet) for id, malloc'd,
 * its size in *size; NULL when t is empty or its starts are not strictly
 * increasing. */
uint8_t *symcache_image(const struct symtab *t, const struct symcache_id *id, size_t *size);

/* Store t as the cache for id. Failures are silent: the cache is only a
 * shortcut. */
void symcache_store(const struct symtab *t, const struct symcache_id *id);

#endif
