/*
 * pipeline.h: the analysis driver. input -> order -> session -> resolve ->
 * sink. A command fills a struct pipeline_config and a struct sink and calls
 * pipeline_run. The sink sees every record in time order (after the session
 * has applied it) and every sample resolved, in sample order.
 */
#ifndef SCORCH_PIPELINE_H
#define SCORCH_PIPELINE_H

#include "analyze/input.h"
#include "analyze/order.h"
#include "analyze/pipeline_config.h"
#include "analyze/frame.h"
#include "analyze/session.h"
#include "util/buf.h"
#include "util/err.h"
#include <stdbool.h>

struct pipeline;
struct resolver_stats;

/* What a sink offers the parallel runs only (-j: analyze/parallel/); each
 * member optional. */
struct sink_jobs {
	/* In block-parallel runs of a text sink: the output of a sample kept
	 * for names decided in order, made when its block is written, on any
	 * thread (concurrently with the sink's own thread, with no lock: it
	 * may only read state the sink no longer changes). Appends to out and
	 * returns 0; nonzero: the sample cannot be made so. */
	int (*format)(void *ctx, const struct resolved_sample *rs, struct buf *out);
	/* In block-parallel runs (analyze/parallel/blocks.h): a sample whose
	 * sample() this sink will not get (another pipeline's block, not
	 * decoded; or one held for names decided in order) is at this place,
	 * for state that depends on the samples before. */
	void (*sample_seen)(void *ctx, struct pipeline *p);
	/* In block-parallel runs of a text sink: *text is the text of the
	 * block being made (the pointer changes from block to block). The
	 * sink may append its output there directly instead of writing it to
	 * its FILE, once what it wrote to the FILE is flushed. */
	void (*set_text)(void *ctx, struct buf *const *text);
	/* For the one sink of an ordered block-parallel run: whether event()
	 * of this record reads nothing of it but ev->type, ev->misc and
	 * ev->s.time (and the pipeline's input position and ordering
	 * counters); such a record is kept without its bytes and given to
	 * event() with only those fields set. Called on any thread,
	 * concurrently: a function of the record alone. */
	bool (*event_light)(const struct perf_event *ev);
};

struct sink {
	void *ctx;
	/* After the header is read, before any record. */
	int (*begin)(void *ctx, struct pipeline *p);
	/* Every record in time order (samples too), after session_apply. */
	int (*event)(void *ctx, struct pipeline *p, const struct perf_event *ev);
	/* Every sample, resolved, in sample order. NULL: samples are not resolved. */
	int (*sample)(void *ctx, struct pipeline *p, const struct resolved_sample *rs);
	/* Always called once at the end, also after an error (rc < 0; then the
	 * input may be NULL and must not be used). Frees the sink's context.
	 * p is NULL for the one sink of a block-parallel run (blocks.h). */
	int (*end)(void *ctx, struct pipeline *p, int rc);
	/* What it offers -j runs; NULL: nothing. */
	const struct sink_jobs *jobs;
	/* Samples may come in any order and no record need keep its place
	 * (the sink sums samples up): stitching then keeps back only the
	 * samples that wait for later ones (analyze/stitch.h). */
	bool any_order;
};


struct resolver_deferred;


/* Say a pipeline's own warning as pipeline_run does: c->warn, else a line
 * on stderr naming the input. */
void pipeline_warning_say(const struct pipeline_config *c, const char *msg);

/*
 * Block-parallel runs (analyze/parallel/blocks.h): n pipelines read the same input,
 * each on its own thread with its own session and resolver. Records are
 * counted as they leave the ordering queue (the same order in every
 * pipeline), in blocks of `size` (a block also ends where the input
 * changes its attrs or header: barrier); every pipeline applies every record to
 * its session, and only the one with index == block % n hands the block's
 * records to its sink (and resolves its samples).
 */
struct pipeline_blocks {
	int index, n;
	uint64_t size;
	/* The sink calls of block `block` are over (its last record, the end
	 * of the input, or an error). Nonzero: stop. */
	int (*done)(void *ctx, int index, uint64_t block);
	/* Whether block `block` is this pipeline's. Called by every pipeline
	 * for every block, in order (pipeline 0 decides:
	 * analyze/parallel/blocks.c). */
	bool (*mine)(void *ctx, int index, uint64_t block);
	/* A record of this pipeline's blocks handed over instead of given to
	 * its sink: decoded, the sample resolved (rs; NULL for other records;
	 * d/nd its names to decide in order across the pipelines), with the
	 * input state st. rec (file_off) is valid during the call only.
	 * ordered (a sink that must see every record in order, the perfparser
	 * stream): every record, for pipeline_replay in record order on one
	 * sink. Else: only the samples with names to decide in order. */
	bool ordered;
	int (*hand)(void *ctx, int index, struct pipeline *p, const uint8_t *rec, uint64_t file_off,
		    const struct perf_event *ev, const struct resolved_sample *rs,
		    const struct resolver_deferred *d, uint32_t nd, const struct pipeline_recstate *st);
	/* The pipeline met an error in block `block` (its last: it stops
	 * there, as one pipeline would), before that block's done. The
	 * others may go past it (a sample is decoded only by the pipeline
	 * whose block it is in). */
	void (*failed)(void *ctx, int index, uint64_t block);
	/* Returns once every block before `block` is written (or the run
	 * was aborted). Called before the input changes its attrs or
	 * header, the blocks cut there. */
	void (*barrier)(void *ctx, int index, uint64_t block);
	/* The resolvers' warnings, once per cause across the pipelines. */
	void (*warn)(void *ctx, const struct resolver_warning *w);
	/* The pipeline's own warnings (late MMAPs, AUX data, damaged
	 * features; pipeline 0's only: every pipeline counts the same),
	 * which one pipeline says at the end of the input: to be said
	 * (pipeline_warning_say) once every block is written, after the
	 * resolvers' warnings of the last blocks. */
	void (*late)(void *ctx, const char *msg);
	/* After the last done, before the sink's end (rc: the pipeline's
	 * result): returns once every pipeline's blocks are written (they may
	 * use any pipeline's names) and, ordered, the one sink has ended. */
	void (*finish)(void *ctx, int index, struct pipeline *p, int rc);
	void *ctx;
	/* The unwinders share the CFI rows they convert (unwind.h). */
	struct unwind_share *unwind_share;
	/* Ordered runs with stitching (c->stitch): the one stitcher, used by
	 * pipeline_replay in record order (else NULL). */
	struct stitch *stitch;
	/* Pipeline 0 alone reads and orders the input and publishes what
	 * leaves its queue here; the others take it from there instead of
	 * reading (analyze/parallel/feed.h). */
	struct feed *feed;
};

void pipeline_config_init(struct pipeline_config *c);

/* Run the whole pipeline. Returns 0, or a negative code with e filled. */
int pipeline_run(const struct pipeline_config *c, struct sink *sink, struct err *e);

/*
 * The same pipeline fed from memory (src/live): head is the beginning of a
 * pipe-format stream (header and attrs), then pipeline_feed hands it whole
 * records as they are recorded; each is queued, ordered, applied to the
 * session and resolved as in pipeline_run. pipeline_feed_flush delivers what
 * is queued (the end of an interval or a refresh); the session, the queue
 * and the resolver's caches live on until pipeline_feed_end, which calls the
 * sink's end and frees it all. c and sink must outlive the pipeline.
 * pipeline_feed_new returns NULL with e filled (the sink's end was called).
 */
struct pipeline *pipeline_feed_new(const struct pipeline_config *c, struct sink *sink,
				   const uint8_t *head, size_t n, struct err *e);
int pipeline_feed(struct pipeline *p, const uint8_t *data, size_t n);
int pipeline_feed_flush(struct pipeline *p);
int pipeline_feed_end(struct pipeline *p, int rc);

/* Ordered block-parallel runs: give sink a handed record (ev, rs as
 * handed, names decided) as p's sink would have had it: event(), then
 * sample() for a sample, with st as the input state. From any thread, one
 * call at a time, while p is running or waiting in its blocks' finish. */
int pipeline_replay(struct pipeline *p, const struct sink *sink, const struct perf_event *ev,
		    const struct resolved_sample *rs, const struct pipeline_recstate *st);
/* After the last replay: what the stitcher kept, to sink (0, or the sink's
 * return). */
int pipeline_replay_end(struct pipeline *p, const struct sink *sink);

/* Accessors for sinks. */
struct input *pipeline_input(struct pipeline *p);
/* The input position when the record being delivered left the ordering
 * queue (input_pos then; for a replayed record, as of its own). */
uint64_t pipeline_input_pos(struct pipeline *p);
struct session *pipeline_session(struct pipeline *p);
const struct order_stats *pipeline_order_stats(struct pipeline *p);
const struct pipeline_config *pipeline_config(struct pipeline *p);
/* The resolver's counters (NULL when samples are not resolved). */
const struct resolver_stats *pipeline_resolver_stats(struct pipeline *p);
/* A sink's reason to stop with an error (said as the run's: "scorch: FILE:
 * msg", exit status 2); returns what the sink returns: -EINVAL. */
int pipeline_fail(struct pipeline *p, const char *msg);

#endif
