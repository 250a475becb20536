/*
 * bidcache.h: perf's build-id cache, written. What a recording's samples
 * hit is kept by build id, so the recording stays readable when the files
 * at its paths are rebuilt, upgraded or removed, by scorch and by perf alike
 * (both read this layout):
 *
 *   DIR/PATH/HEX/elf        the ELF file mapped at PATH (hard link or copy)
 *   DIR/PATH/HEX/debug      its separate debug file, when the system has one
 *                           (/usr/lib/debug/.build-id/XX/REST.debug)
 *   DIR/[kernel.kallsyms]/HEX/kallsyms   /proc/kallsyms of the recorded kernel
 *   DIR/.build-id/XX/REST -> ../../PATH/HEX    (HEX = XX REST)
 *
 * DIR is $HOME/.debug by default. Every file is written under a temporary
 * name and renamed into place, so a reader (or a second recorder) sees a
 * whole file or none. A hard link is tried first (perf's way: no copy, no
 * disk space), then a copy.
 *
 * Size: the cache is an LRU. An entry's time is its directory's
 * modification time: adding it sets it, and a recording that hits an entry
 * already there sets it again. bidcache_prune deletes the entries used
 * longest ago until the cache holds at most a given number of bytes (the
 * kept file sizes, a hard link counted as a copy).
 */
#ifndef SCORCH_RECORD_BIDCACHE_H
#define SCORCH_RECORD_BIDCACHE_H

#include "perf/header.h"
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct bidcache_stats {
	unsigned added;      /* entries made */
	unsigned present;    /* entries already there (their time renewed) */
	unsigned failed;     /* DSOs that could not be added */
	uint64_t bytes;      /* bytes of the files added (a link counted as its size) */
	unsigned removed;    /* entries pruned */
	uint64_t total;      /* the cache's size after pruning */
};

/* /proc/kallsyms read into memory on a thread of its own (which takes no
 * signal), started once the workload runs: reading it has the kernel
 * format every symbol, tens of milliseconds that the recording then hides
 * instead of adding them at its end. id[0..n): the running kernel's build
 * id. NULL when the cache in dir already holds that kernel's kallsyms or
 * no thread can start. Start it after the last fork of the recorder. */
struct bidcache_kallsyms *bidcache_kallsyms_start(const char *dir, const uint8_t *id, size_t n);
/* Waits for the thread; NULL is allowed. */
void bidcache_kallsyms_free(struct bidcache_kallsyms *k);

/* Add the DSOs of l[0..n) (buildid_collect's list) to the cache in dir,
 * made when missing; the kernel's kallsyms from ks when it was read early
 * for the same build id (ks may be NULL). Kernel modules are left out
 * (their symbols come with the kernel's kallsyms). 0, or a negative code
 * when dir cannot be made. */
int bidcache_add(const char *dir, const struct perf_build_id *l, size_t n,
		 struct bidcache_kallsyms *ks, struct bidcache_stats *st);

/* Delete the least recently used entries until the cache holds at most
 * max_bytes; dangling .build-id links and the empty directories entries
 * leave are removed too. st->removed, st->total. 0 or a negative code. */
int bidcache_prune(const char *dir, uint64_t max_bytes, struct bidcache_stats *st);

/* One line per entry, "HEX PATH", in the order of the .build-id links. */
int bidcache_list(const char *dir, FILE *out);

#endif
