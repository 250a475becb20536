/*
 * workers.h: resolve samples on N threads, deliver them in sample order.
 *
 * The thread driving the session submits each sample: its record is kept
 * by a reference to the input chunk holding it (order_keepable), or copied
 * when the ordering queue made its own copy (decompressed, swapped), together with
 * a view of the session at that moment, the process's and the kernel's maps
 * (snapshots shared by every sample until the process's map generation
 * changes) and the comm. A worker decodes the copy and resolves it with a
 * resolver of its own (its own DSO caches: no locks on the hot path), and
 * the submitting thread hands finished samples to the callback strictly in
 * submission order. At most `depth` samples are in flight, so memory stays
 * bounded whatever the input size. From 2 threads on resolving is split in
 * two stages, unwinding and symbolizing, each on its own threads with its
 * own per-DSO caches (see workers.c).
 *
 * Records that need no resolving may go through the same ring (resolve =
 * false): they are delivered in their place among the samples, so a sink
 * can see every record in record order while samples resolve ahead. Each
 * slot carries up to WORKERS_AUX bytes of the submitter's state at submit
 * (the pipeline's input position and ordering counters), handed back at
 * delivery.
 *
 * With a format callback, a worker also turns its resolved sample into the
 * sink's output bytes (script text) right after resolving it, unless the
 * sample has names that can only be decided in order (addr2line's, see
 * a2l.h) or the callback declines; delivery hands the bytes over with the
 * sample (rs->text), so the submitting thread only writes them out.
 *
 * Snapshots are reference counted by the submitting thread only (taken at
 * submit, dropped at delivery); workers only read them.
 */
#ifndef SCORCH_WORKERS_H
#define SCORCH_WORKERS_H

#include "analyze/pipeline_config.h"
#include "analyze/resolver.h"
#include "perf/event.h"
#include "perf/header.h"
#include "util/buf.h"

struct workers;

#define WORKERS_AUX 128

/* A delivered record: ev decoded from the slot's copy; rs its resolved
 * sample (NULL when submitted with resolve = false); aux the bytes given at
 * submit. */
typedef int (*workers_deliver_fn)(void *ctx, const struct perf_event *ev,
				  struct resolved_sample *rs, const void *aux);
/* On a worker thread, concurrently with other workers and the submitting
 * thread: append the sample's output to out and return 0, or return
 * nonzero to leave the sample to the in-order delivery. */
typedef int (*workers_format_fn)(void *ctx, const struct resolved_sample *rs, struct buf *out);

/* n threads (>= 1); format may be NULL. Returns NULL on failure (the caller
 * resolves inline). */
struct workers *workers_new(const struct pipeline_config *c, struct session *s,
			    const struct perf_header *h, const struct perf_evlist *el, int n,
			    workers_deliver_fn deliver, void *ctx,
			    workers_format_fn format, void *format_ctx);

/* Submit record rec (size from its header) decoded as ev: a sample to
 * resolve (resolve = true, ev a PERF_RECORD_SAMPLE) or any record to deliver
 * as is in its place. aux_size (<= WORKERS_AUX) bytes of aux are kept with
 * it. May deliver earlier records. Returns 0, a delivery callback's nonzero
 * return, or a negative error. */
int workers_submit(struct workers *w, const uint8_t *rec, uint64_t file_off,
		   bool kept, struct input_chunk *chunk,
		   const struct perf_event *ev, const struct perf_attr *attr, bool resolve,
		   const void *aux, size_t aux_size);

/* pid's process has ended (session.h: its maps dropped): the latest
 * snapshot of its maps is let go, so ended processes do not accumulate.
 * Called by the submitting thread after applying an EXIT. */
void workers_process_ended(struct workers *w, uint32_t pid);

/* Deliver every submitted sample. */
int workers_drain(struct workers *w);

/* The workers' resolver counters, summed. */
void workers_stats(struct workers *w, struct resolver_stats *out);

/* Stop the threads (samples not yet delivered are dropped) and free. */
void workers_free(struct workers *w);

/* The number of worker threads -j 0 means: the online CPUs. */
int workers_default_jobs(void);

#endif
