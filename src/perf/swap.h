/*
 * swap.h: reading perf.data written on an opposite-endian machine (its
 * magic reads PERF_MAGIC2_SWAPPED). The readers copy a header, attr or
 * record and swap the copy in place before decoding it.
 */
#ifndef SCORCH_PERF_SWAP_H
#define SCORCH_PERF_SWAP_H

#include "perf/event.h"
#include <stddef.h>
#include <stdint.h>

/* n bytes of a struct perf_event_attr (as much of it as the file has). */
void perf_attr_swap(uint8_t *a, size_t n);
/* n u64 words (the file header, id lists, section descriptors). */
void perf_u64s_swap(uint64_t *w, size_t n);
/* A record: its header, then its fields as its type and the attr of el it
 * belongs to lay them out. */
void perf_record_swap(const struct perf_evlist *el, uint8_t *p);

#endif
