/*
 * writer_sync.c: the fallback writer: write(2)/pwrite(2) at submit time,
 * completion reported at once. Also the generic front end of writer.h
 * (fallback chain, barrier).
 */
#include "record/writer.h"
#include "util/buf.h"
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

int writer_write_now(struct writer *w, struct wbuf *b)
{
	while (b->done < b->len) {
		ssize_t n = w->seq ? write(w->fd, b->data + b->done, b->len - b->done)
				   : pwrite(w->fd, b->data + b->done, b->len - b->done,
					    (off_t)(b->off + b->done));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				struct pollfd p = { .fd = w->fd, .events = POLLOUT };
				poll(&p, 1, 100);
				continue;
			}
			return -errno;
		}
		if (n == 0)
			return -EIO;
		b->done += (size_t)n;
	}
	return 0;
}

void writer_complete(struct writer *w, struct wbuf *b, int err)
{
	if (err && !w->err)
		w->err = err;
	w->done(w->ctx, b, err);
}

int writer_account(struct wbuf *b, int e, long long n, int *err)
{
	if (e == 0 && n > 0) {
		b->done += (size_t)n;
		if (b->done >= b->len) {
			*err = 0;
			return 1;
		}
		return 0; /* partial: resume */
	}
	if (e == 0 && n == 0) {
		*err = -EIO;
		return 1;
	}
	if (e && e != EAGAIN && e != EINTR) {
		*err = -e;
		return 1;
	}
	return 0;
}

int writer_reap_none(struct writer *w, bool wait)
{
	return 0;
}

void writer_destroy_free(struct writer *w)
{
	free(w);
}

static int sync_submit(struct writer *w, struct wbuf *b)
{
	int rc = writer_write_now(w, b);
	writer_complete(w, b, rc);
	return rc;
}

static const struct writer_ops sync_ops = { "sync", sync_submit, writer_reap_none,
					    writer_destroy_free };

struct writer *writer_sync_new(int fd, bool seq)
{
	struct writer *w = xcalloc(1, sizeof(*w));
	w->ops = &sync_ops;
	w->fd = fd;
	w->seq = seq;
	w->depth = 1;
	return w;
}

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
