/*
 * hugeheap.h: the analysis on a heap of transparent huge pages (hugeheap.c
 * says why and how).
 */
#ifndef SCORCH_UTIL_HUGEHEAP_H
#define SCORCH_UTIL_HUGEHEAP_H

#include <stddef.h>

/* First thing in main, for the analysis commands: the heap grows in large
 * steps and its 2 MB-aligned stretches are advised as huge pages. Nothing
 * when the kernel has THP off. */
void hugeheap_init(void);
/* Advise what the heap grew by since the last call (cheap: no system call
 * unless it grew). Called as records are read. */
void hugeheap_tick(void);
/* n bytes of zeros, written at once (xmalloc + memset), for a cache whose
 * first accesses are reads: calloc leaves fresh memory untouched, and on
 * the huge-page heap a read-first region maps the kernel's shared zero
 * page, which the first write splits into 512 small pages, each faulting
 * on its own. */
void *hugeheap_zeroed(size_t n);

#endif
