/*
 * writer_call.c: the "writer" of a recording with a consumer (record.h):
 * each submitted buffer is handed to the consumer's data callback at once,
 * in submission order, and completed. The consumer's negative return is the
 * writer's sticky error, which ends the recording like a failed write.
 */
#include "record/writer.h"
#include "util/buf.h"
#include <stdlib.h>

struct writer_call {
	struct writer w;
	const struct record_consumer *cons;
};

static int call_submit(struct writer *w, struct wbuf *b)
{
	const struct record_consumer *c = ((struct writer_call *)w)->cons;
	int rc = c->data ? c->data(c->ctx, b->data, b->len) : 0;
	if (rc > 0)
		rc = 0;
	if (rc && !w->err)
		w->err = rc;
	b->done = b->len;
	w->done(w->ctx, b, rc);
	return rc;
}

static int call_reap(struct writer *w, bool wait)
{
	return 0;
}

static void call_destroy(struct writer *w)
{
	free(w);
}

static const struct writer_ops call_ops = { "consumer", call_submit, call_reap, call_destroy };

struct writer *writer_call_new(const struct record_consumer *cons, writer_done_fn done, void *ctx)
{
	struct writer_call *wc = xcalloc(1, sizeof(*wc));
	wc->w.ops = &call_ops;
	wc->w.fd = -1;
	wc->w.seq = true;
	wc->w.depth = 1;
	wc->w.done = done;
	wc->w.ctx = ctx;
	wc->cons = cons;
	return &wc->w;
}
