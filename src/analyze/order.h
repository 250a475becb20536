/*
 * order.h: time ordering of records, as perf and perfparser do it.
 *
 * Records are buffered and delivered in (time, arrival) order. On
 * FINISHED_ROUND everything up to the previous round's maximum timestamp is
 * delivered (the kernel guarantees that after a full pass over all rings no
 * later record can be older than that). Files without rounds use a buffer
 * bounded in bytes (buffer_size): when it is exceeded the oldest records are
 * delivered until it is half full; a record older than what was already
 * delivered is a time-order violation, counted, and doubles the buffer up to
 * max_buffer_size. Records without a timestamp are delivered at once.
 *
 * A record in an input chunk is held by a reference to the chunk (no copy);
 * other records that are not stable (decompressed, swapped) are copied into
 * chunks owned by the queue, freed when their last record is delivered.
 */
#ifndef SCORCH_ORDER_H
#define SCORCH_ORDER_H

#include "analyze/input.h"
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

struct order_config {
	uint64_t buffer_size;      /* bytes buffered without rounds (32 MiB); 0: until rounds */
	uint64_t max_buffer_size;  /* upper bound for growth; default 1 GiB */
};

struct order_stats {
	uint64_t rounds;            /* FINISHED_ROUND seen */
	uint64_t flushes;           /* times records were delivered from the buffer */
	uint64_t time_violations;   /* records older than the last delivered time */
	uint64_t mmap_violations;   /* of which MMAP/MMAP2 records */
	uint64_t max_events_per_round;
	uint64_t max_samples_per_round;
	uint64_t max_reorder_time;  /* largest (max time seen - time) of a late record, ns */
	uint64_t max_buffered_bytes;
	uint64_t buffer_growths;
	uint64_t delivered;
};

/* Called for each record in order. Return nonzero to stop (propagated). */
typedef int (*order_deliver_fn)(void *ctx, const uint8_t *rec, uint64_t file_off);

struct order;
struct order *order_new(const struct order_config *cfg, order_deliver_fn fn, void *ctx);
void order_free(struct order *o);

/* Queue a record (see struct input_rec for rec/stable/chunk). has_time
 * false: delivered at once. Returns 0 or the deliver callback's nonzero
 * result, or -ENOMEM. */
int order_push(struct order *o, const struct input_rec *r, bool has_time, uint64_t time, bool is_sample);
/* A FINISHED_ROUND record was read. */
int order_round(struct order *o);
/* Deliver everything (end of input). */
int order_flush_all(struct order *o);
const struct order_stats *order_stats(const struct order *o);
/* Inside the deliver callback: whether the record being delivered may be
 * kept past the callback without a copy. True with *chunk set: while a
 * reference to that input chunk is held (input_chunk_get); true with
 * *chunk NULL: for the life of the input. False: copy it. */
bool order_keepable(const struct order *o, struct input_chunk **chunk);

#endif
