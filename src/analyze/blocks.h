/*
 * blocks.h: one input analyzed by N threads, each reading all of it.
 *
 * Every thread runs a whole pipeline of its own over the same file (its own
 * reads, ordering queue, session, resolver, sink): the records come out of
 * every ordering queue in the same order, so they are numbered alike and cut
 * into blocks of the same records. Each thread applies every record to its
 * session, but hands only its own blocks (block b is thread b % N's) to its
 * sink and resolves only their samples. The sinks write into per-thread
 * block buffers, which are written to the output strictly in block order.
 *
 * Why not resolve on worker threads (workers.h)? A sample's user stack is
 * most of its bytes: read by one thread and unwound by another, every stack
 * crosses between cores, and on a 2-CPU VM that cost as much as the second
 * core gave (`scorch script -j 2` with workers: 1.96 CPU-s against 1.10 at
 * -j 1 on the 2.3 GB build recording). Here each thread reads the bytes it
 * unwinds; the price is that each reads and orders the whole input (about
 * 0.13 s a GB here) and builds the DSO state its blocks need.
 *
 * Output is byte for byte that of one thread:
 * - sink state that depends on earlier samples is not allowed: the caller
 *   says whether its sink has any for this input (eligible);
 * - names addr2line decides in sample order (a2l.h) are left open by the
 *   resolvers; such a sample is kept (frames, deferred names) instead of
 *   formatted, and at its place in the output its names are decided with one
 *   a2l state, in order, and the sink's format() makes its text;
 * - warnings: the resolvers' once per cause across the threads (the order
 *   of different causes may differ from one thread's); the pipelines' own
 *   (late MMAPs, AUX data, damaged features) only from thread 0, whose
 *   counts are everyone's.
 *
 * Memory: each thread keeps at most BLOCKS_PENDING finished blocks waiting
 * for an earlier one; the session, DSO state and ordering queue are per
 * thread.
 */
#ifndef SCORCH_BLOCKS_H
#define SCORCH_BLOCKS_H

#include "analyze/pipeline.h"
#include <stdio.h>

/* Make thread i's sink, writing to out. */
typedef int (*blocks_sink_fn)(void *ctx, int i, FILE *out, struct sink *sink);
/* Whether the sink can run in blocks on this input. */
typedef bool (*blocks_eligible_fn)(void *ctx, const struct perf_header *h,
				   const struct perf_evlist *el);

/*
 * Run c's input on n threads (n >= 2), writing to out. Returns 1 without
 * running anything when blocks do not apply (a pipe or stdin, not eligible,
 * or the threads could not be started): the caller runs pipeline_run.
 * Else 0, or a negative code with e filled (thread 0's error first).
 */
int blocks_run(const struct pipeline_config *c, int n, blocks_sink_fn make_sink,
	       blocks_eligible_fn eligible, void *ctx, FILE *out, struct err *e);

#endif
