/*
 * namecache.h: a DSO's demangled symbol names kept across runs (see
 * namecache.c).
 */
#ifndef SCORCH_NAMECACHE_H
#define SCORCH_NAMECACHE_H

#include <stddef.h>
#include <stdint.h>

struct namecache;

/* The kept names of the file open as fd (the DSO's binary); NULL when
 * caches are off (SCORCH_NO_CACHE) or fd is not a regular file. */
struct namecache *namecache_open(int fd);
/* What demangle_alloc made of mangled in an earlier run (alive until
 * namecache_close), or NULL when not kept. */
const char *namecache_find(const struct namecache *c, const char *mangled);
/* demangle_alloc made demangled of mangled this run (demangled must live
 * until namecache_close): kept on close. */
void namecache_note(struct namecache *c, const char *mangled, const char *demangled);
/* Store the kept names and this run's when any was noted, then free c. */
void namecache_close(struct namecache *c);
/* What namecache_close keeps, stored now (c stays open). */
void namecache_store(struct namecache *c);

/* The entry of n names (hashes[i] strictly increasing, names[i] the
 * demangled names), malloc'd, its size in *size; and whether p (size
 * bytes, 8-byte aligned) is one: for the fuzzer and the tests. */
uint8_t *namecache_entry(size_t n, const uint64_t *hashes, const char *const *names, size_t *size);
struct namecache *namecache_over(const void *p, size_t size);

#endif
