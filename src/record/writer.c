/*
 * writer.c: the front end of writer.h: the fallback chain that picks an
 * implementation, and the calls every implementation shares (submit with
 * the sticky error, reap, barrier, free) through its ops.
 */
#include "record/writer.h"
#include <errno.h>

struct writer *writer_open(enum record_io io, int fd, bool seq, unsigned depth,
			   writer_done_fn done, void *ctx)
{
	struct writer *w = NULL;
	if (!seq && (io == RECORD_IO_AUTO || io == RECORD_IO_URING))
		w = writer_uring_new(fd, depth);
	if (!w && !seq && io != RECORD_IO_SYNC)
		w = writer_aio_new(fd, depth);
	if (!w)
		w = writer_sync_new(fd, seq);
	w->done = done;
	w->ctx = ctx;
	return w;
}

int writer_submit(struct writer *w, struct wbuf *b)
{
	b->done = 0;
	if (w->err) {
		w->done(w->ctx, b, w->err);
		return w->err;
	}
	return w->ops->submit(w, b);
}

int writer_reap(struct writer *w, bool wait)
{
	return w->ops->reap(w, wait);
}

int writer_barrier(struct writer *w)
{
	while (w->inflight) {
		int rc = w->ops->reap(w, true);
		if (rc && rc != -EINTR)
			return rc;
	}
	return w->err;
}

void writer_free(struct writer *w)
{
	if (!w)
		return;
	writer_barrier(w);
	w->ops->destroy(w);
}
