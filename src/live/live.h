/*
 * live.h: the recorder feeding the analysis pipeline in one process, no
 * perf.data in between (scorch top, scorch record --continuous). This is
 * the one place that joins src/record and src/analyze.
 *
 * live_run runs record_run with a consumer (record.h) whose callbacks drive
 * a pipeline fed from memory (pipeline.h): each stream the recorder begins
 * (one for the whole run, or one per interval with switch-output by time)
 * becomes one pipeline with a sink the caller supplies; the recorder's
 * buffers of whole records are fed to it as they are written, on the
 * recorder's thread, so the records go through exactly the code of `scorch
 * record` and of the reading commands. A pipeline's session, ordering queue
 * and resolver (DSO symbol and unwind caches) live as long as its stream.
 */
#ifndef SCORCH_LIVE_H
#define SCORCH_LIVE_H

#include "analyze/pipeline.h"
#include "record/record.h"
#include "util/err.h"

struct live;

struct live_ops {
	void *ctx;
	/* A stream begins: fill *sink (it must live until close). */
	int (*open)(void *ctx, struct live *l, struct sink **sink);
	/* The stream's pipeline ended with rc (its sink's end was called). */
	int (*close)(void *ctx, struct live *l, int rc);
	/* Every recorder housekeeping pass (at least every 100 ms): nonzero
	 * stops the recording (> 0: normally). */
	int (*tick)(void *ctx, struct live *l, uint64_t now_ns);
	/* The raw stream, as record -o - would write it (--keep-raw); may be NULL. */
	int (*raw)(void *ctx, const uint8_t *p, size_t n, bool head);
};

/* Record with ro (its output and consumer are ignored) into pipelines set up
 * with pc. res as record_run fills it. Returns 0 or a negative code with e
 * filled (an analysis error is reported in preference to the recorder's). */
int live_run(const struct record_opts *ro, const struct pipeline_config *pc,
	     const struct live_ops *ops, struct record_result *res, struct err *e);

/* Deliver everything queued in the current pipeline (a refresh). */
int live_flush(struct live *l);
/* The current pipeline (NULL between streams). */
struct pipeline *live_pipeline(struct live *l);
/* The recorder's counters so far (samples, lost). */
const struct record_result *live_result(struct live *l);

#endif
