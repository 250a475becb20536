/*
 * live.c: record_run with a consumer that feeds a pipeline (see live.h).
 *
 * The recorder's buffers end on record boundaries, the pipe head comes
 * first, and a fed input copies what it reads into its own chunks, so the
 * bytes handed over need to live only for the call. An analysis error stops
 * the recording through the consumer's return value; the pipeline's message
 * is kept in its own struct err and reported by live_run.
 */
#include "live/live.h"
#include <errno.h>
#include <string.h>

struct live {
	const struct pipeline_config *pc;
	const struct live_ops *ops;
	struct record_result *res;
	struct pipeline *p;
	struct err perr;     /* the pipeline's error */
	int cb_err;          /* an error of the caller's callbacks */
};

static int l_begin(void *ctx, const uint8_t *head, size_t n)
{
	struct live *l = ctx;
	struct sink *sink = NULL;
	int rc = l->ops->open ? l->ops->open(l->ops->ctx, l, &sink) : -EINVAL;
	if (rc < 0)
		return l->cb_err = rc;
	if (l->ops->raw && (rc = l->ops->raw(l->ops->ctx, head, n, true)) < 0)
		return l->cb_err = rc;
	l->p = pipeline_feed_new(l->pc, sink, head, n, &l->perr);
	if (!l->p) {
		if (l->ops->close)
			l->ops->close(l->ops->ctx, l, -EINVAL);
		return -EINVAL;
	}
	return 0;
}

static int l_data(void *ctx, const uint8_t *p, size_t n)
{
	struct live *l = ctx;
	int rc;
	if (l->ops->raw && (rc = l->ops->raw(l->ops->ctx, p, n, false)) < 0)
		return l->cb_err = rc;
	if (!l->p)
		return 0;
	rc = pipeline_feed(l->p, p, n);
	return rc < 0 ? rc : 0;
}

static int l_end(void *ctx, int rc)
{
	struct live *l = ctx;
	if (!l->p)
		return 0;
	rc = pipeline_feed_end(l->p, rc);
	l->p = NULL;
	int crc = l->ops->close ? l->ops->close(l->ops->ctx, l, rc) : 0;
	if (crc < 0 && !l->cb_err)
		l->cb_err = crc;
	return rc < 0 ? rc : crc;
}

static int l_tick(void *ctx, uint64_t now_ns)
{
	struct live *l = ctx;
	if (!l->ops->tick)
		return 0;
	int rc = l->ops->tick(l->ops->ctx, l, now_ns);
	if (rc < 0)
		l->cb_err = rc;
	return rc;
}

int live_flush(struct live *l)
{
	return l->p ? pipeline_feed_flush(l->p) : 0;
}

struct pipeline *live_pipeline(struct live *l) { return l->p; }
const struct record_result *live_result(struct live *l) { return l->res; }

int live_run(const struct record_opts *ro, const struct pipeline_config *pc,
	     const struct live_ops *ops, struct record_result *res, struct err *e)
{
	struct live l = { .pc = pc, .ops = ops, .res = res };
	struct record_consumer cons = { &l, l_begin, l_data, l_end, l_tick };
	struct record_opts o = *ro;
	o.consumer = &cons;
	o.output = "(live)";
	int rc = record_run(&o, res, e);
	if (l.p) { /* the recorder failed before it ended the stream */
		pipeline_feed_end(l.p, rc ? rc : -EINTR);
		l.p = NULL;
		if (ops->close)
			ops->close(ops->ctx, &l, rc ? rc : -EINTR);
	}
	if (l.perr.set) {
		*e = l.perr;
		return rc ? rc : -EINVAL;
	}
	if (l.cb_err && !rc)
		rc = l.cb_err;
	return rc;
}
