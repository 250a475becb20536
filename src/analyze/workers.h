/*
 * workers.h: resolve samples on N threads, deliver them in sample order.
 *
 * The thread driving the session submits each sample: its record is copied
 * (the original may go away with the ordering queue's chunk) together with
 * a view of the session at that moment, the process's and the kernel's maps
 * (snapshots shared by every sample until the process's map generation
 * changes) and the comm. A worker decodes the copy and resolves it with a
 * resolver of its own (its own DSO caches: no locks on the hot path), and
 * the submitting thread hands finished samples to the callback strictly in
 * submission order. At most `depth` samples are in flight, so memory stays
 * bounded whatever the input size.
 *
 * Snapshots are reference counted by the submitting thread only (taken at
 * submit, dropped at delivery); workers only read them.
 */
#ifndef SCORCH_WORKERS_H
#define SCORCH_WORKERS_H

#include "analyze/pipeline.h"
#include "analyze/resolver.h"
#include "perf/event.h"
#include "perf/header.h"

struct workers;

typedef int (*workers_deliver_fn)(void *ctx, const struct resolved_sample *rs);

/* n threads (>= 1). Returns NULL on failure (the caller resolves inline). */
struct workers *workers_new(const struct pipeline_config *c, struct session *s,
			    const struct perf_header *h, const struct perf_evlist *el, int n,
			    workers_deliver_fn deliver, void *ctx);

/* Submit sample record rec (size from its header) decoded as ev. May
 * deliver earlier samples. Returns 0, a delivery callback's nonzero return,
 * or a negative error. */
int workers_submit(struct workers *w, const uint8_t *rec, uint64_t file_off,
		   const struct perf_event *ev, const struct perf_attr *attr);

/* Deliver every submitted sample. */
int workers_drain(struct workers *w);

/* The workers' resolver counters, summed. */
void workers_stats(struct workers *w, struct resolver_stats *out);

/* Stop the threads (samples not yet delivered are dropped) and free. */
void workers_free(struct workers *w);

/* The number of worker threads -j 0 means: the online CPUs. */
int workers_default_jobs(void);

#endif
