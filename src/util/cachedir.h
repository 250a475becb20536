/*
 * cachedir.h: where scorch keeps what it derives from files and can build
 * again (decompressed debug files, parsed kallsyms, symbol tables): under
 * $XDG_CACHE_HOME/scorch/, else ~/.cache/scorch/, one versioned directory
 * per kind. The command line says where and how much, once per process
 * (cachedir_configure, from scorch(1)'s SCORCH_NO_CACHE, XDG_CACHE_HOME,
 * HOME and SCORCH_CACHE_MAX); until it does, nothing is cached.
 *
 * Size: after a store the whole of scorch/ is kept under the configured
 * size (default 4G) by deleting the files used longest ago. A file's modification time says when it was last used: stores set
 * it, and a hit sets it again (cachedir_used).
 */
#ifndef SCORCH_UTIL_CACHEDIR_H
#define SCORCH_UTIL_CACHEDIR_H

#include <stdbool.h>
#include <stddef.h>

struct cachedir_config {
	bool off;                    /* no cache is read or written */
	/* the root: XDG_CACHE_HOME/scorch when absolute, else
	 * HOME/.cache/scorch when absolute, else none (no cache) */
	const char *xdg_cache_home, *home;
	unsigned long long max;      /* bytes all caches may hold */
};
#define CACHEDIR_MAX_DEFAULT (4ULL << 30)
/* Set the process's cache configuration (the strings are copied). */
void cachedir_configure(const struct cachedir_config *c);
/* The configuration in force (all zero before cachedir_configure). */
const struct cachedir_config *cachedir_config(void);
/* No cache is read or written (configured off, or never configured). */
bool cachedir_disabled(void);
/* The directory of kind `sub` ("dwarf-v1") in out; false when there is no
 * root (cachedir_config), or it does not fit. */
bool cachedir_path(const char *sub, char *out, size_t cap);
/* Create dir and its parents (0755); 0, or -1. */
int cachedir_mkdirs(char *dir);
/* A new cache file for path (in dir, made when missing) is written under
 * a unique temporary name, put in tmp (cap bytes), and open for writing
 * as the returned fd; -1 when it cannot be. */
int cachedir_create(char *dir, const char *path, char *tmp, size_t cap);
/* Close fd (from cachedir_create); when ok and the close succeeds, tmp is
 * renamed to path (so a reader sees a whole file or none, and concurrent
 * writers each rename a whole one) and the cache trimmed (cachedir_trim),
 * else tmp is removed. */
void cachedir_commit(int fd, bool ok, const char *tmp, const char *path);
/* The cache file open as fd was just used: it is now the most recent. */
void cachedir_used(int fd);
/* The cache file path mapped read-only, *size bytes (a regular file of 1
 * to max bytes), its fd open in *fd (for cachedir_used on a hit; the
 * caller closes it); NULL when there is none. One mapping per file is
 * shared by the whole process (every thread's tables read the same pages):
 * each map is given back with cachedir_unmap, never munmap. */
void *cachedir_map(const char *path, unsigned long long max, size_t *size, int *fd);
/* Give back a mapping from cachedir_map; the last holder's unmaps it. */
void cachedir_unmap(void *map);
/* How many holders map has now (0: not mapped); for tests. */
unsigned long cachedir_map_refs(const void *map);
/* Store size bytes at p as the cache file path (in dir, made when
 * missing): cachedir_create, then cachedir_commit. Failures are silent:
 * a cache is only a shortcut. */
void cachedir_store(char *dir, const char *path, const void *p, size_t size);
/* After storing the file `kept` (never deleted): while all of scorch/ is
 * over cachedir_max(), delete the least recently used files, down to
 * 90% of it (so that not every store pays for a walk and deletions).
 * Temporary files of writers still at work are left alone. */
void cachedir_trim(const char *kept);
/* The configured size in bytes. */
unsigned long long cachedir_max(void);

#endif
