/*
 * blocks.h: one input analyzed by N threads.
 *
 * Every thread runs a whole pipeline of its own over the same file (its own
 * session, resolver and sink); thread 0 alone reads and orders the input
 * and hands every record that leaves its ordering queue to the others
 * (feed.h), so the records are numbered alike in every pipeline and cut
 * into blocks of the same records. Each thread applies every record to its
 * session, but hands only its own blocks (thread 0 decides whose a block
 * is: the follower with the fewest given and not finished) to its sink and
 * resolves only their samples; another thread's samples, which change no
 * session state, are counted and not even decoded. The sinks write into
 * per-thread block buffers, which are written to the output strictly in
 * block order.
 *
 * Why whole pipelines and not samples handed to worker threads? A sample's
 * user stack is most of its bytes: read by one thread and unwound by
 * another, every stack crosses between cores, and on a 2-CPU VM that cost
 * as much as the second core gave. Here each thread resolves whole blocks
 * and builds the DSO state its blocks need.
 *
 * Output is byte for byte that of one thread:
 * - sink state that depends on earlier samples is not allowed: the caller
 *   says whether its sink has any for this input (eligible);
 * - names addr2line decides in sample order (a2l.h) are left open by the
 *   resolvers; such a sample is kept (its record without the user stack,
 *   frames, maps, deferred names: as the ordered runs below keep every
 *   record) instead of formatted, and at its place in the output its names are decided with one
 *   a2l state, in order, and the sink's format() makes its text;
 * - warnings: the resolvers' once per cause across the threads (the order
 *   of different causes may differ from one thread's); the pipelines' own
 *   (late MMAPs, AUX data, damaged features) only from thread 0, whose
 *   counts are everyone's, once every block is written (as one pipeline
 *   says them at the end of the input, after every resolver warning);
 * - errors: one pipeline stops at the first record it cannot decode; a
 *   damaged sample is met only by the thread whose block it is in, the
 *   others go past it. So nothing after the block a thread's error ended
 *   is written, and the error said is that of the earliest such block
 *   (its owner's: another thread fails in it only at a record the owner
 *   decodes too);
 * - attrs and header as of the record: a record that changes them, read
 *   after records were delivered, ends the current block in every
 *   pipeline (all read it at the same record) and waits until every block
 *   before it is written, so kept records are written with the attrs and
 *   header they were delivered with.
 *
 * A sink that must see every record in order (perfparser: the stream
 * numbers strings and locations by first use) is one sink: each thread
 * resolves its blocks' samples and keeps their records (without the user
 * stack, which only unwinding reads) and frames; the writer replays them on
 * the sink in order. The sink's own work is then serial, the resolving
 * parallel. Records whose event() reads only their type and time
 * (sink_jobs.event_light: the stream's MMAPs) are kept without their bytes.
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

struct blocks_config {
	int n;                       /* threads; 0: one per online CPU */
	uint64_t size;               /* records in a block; 0: the default (128 text,
				      * 256 ordered); small blocks cut the output at many
				      * more places, which stays the same */
	/* Text: a sink per thread (make_sink), its blocks written to out. */
	blocks_sink_fn make_sink;
	FILE *out;
	/* Or one sink, `ordered`, that gets every record in record order, as
	 * pipeline_run would give it: each thread resolves its blocks' samples
	 * and keeps their records (user stacks cut off) and frames; the
	 * writer replays them on the sink (pipeline_replay). Its begin is
	 * called by thread 0 (before any replay), its end once at the end
	 * (with no pipeline). */
	struct sink *ordered;
	blocks_eligible_fn eligible; /* NULL: any file */
	void *ctx;
};

/*
 * Run c's input on bc->n threads. Returns 1 without running anything when
 * blocks do not apply (fewer than 2 threads, a pipe or stdin, not eligible,
 * or the sinks could not be made): the caller runs pipeline_run, on one
 * thread. Else 0, or a negative code with e
 * filled (thread 0's error first), or the ordered sink's begin's nonzero
 * return.
 */
int blocks_run(const struct pipeline_config *c, const struct blocks_config *bc, struct err *e);

#endif
