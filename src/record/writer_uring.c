/*
 * writer_uring.c: io_uring writer (liburing), the default. One SQE per
 * buffer (IORING_OP_WRITE at the buffer's offset), submitted at once; a
 * completion with a short count is resubmitted for the rest, -EAGAIN/-EINTR
 * are resubmitted, other errors end the buffer. Writes are punted to the
 * kernel's io-wq workers (IOSQE_ASYNC) so submitting never copies inline. The ring is created lazily
 * by writer_uring_new; if the kernel refuses (no io_uring, seccomp) it
 * returns NULL and the caller falls back.
 */
#include "record/writer.h"
#include "util/buf.h"
#include <errno.h>
#include <liburing.h>
#include <stdlib.h>

struct writer_uring {
	struct writer w;
	struct io_uring ring;
};

static int uring_queue(struct writer_uring *u, struct wbuf *b)
{
	struct io_uring_sqe *sqe;
	while (!(sqe = io_uring_get_sqe(&u->ring))) {
		int rc = io_uring_submit(&u->ring);
		if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY)
			return rc;
	}
	io_uring_prep_write(sqe, u->w.fd, b->data + b->done, (unsigned)(b->len - b->done),
			    b->off + b->done);
	io_uring_sqe_set_data(sqe, b);
	/* straight to a kernel worker: a buffered write of megabytes done
	 * inline would stall the ring reader for the copy */
	sqe->flags |= IOSQE_ASYNC;
	for (;;) {
		int rc = io_uring_submit(&u->ring);
		if (rc >= 0)
			return 0;
		if (rc != -EINTR && rc != -EAGAIN && rc != -EBUSY)
			return rc;
	}
}

static void uring_finish(struct writer_uring *u, struct wbuf *b, int err)
{
	u->w.inflight--;
	writer_complete(&u->w, b, err);
}

static int uring_complete(struct writer_uring *u, struct io_uring_cqe *cqe)
{
	struct wbuf *b = io_uring_cqe_get_data(cqe);
	int res = cqe->res;
	io_uring_cqe_seen(&u->ring, cqe);
	int rc;
	if (writer_account(b, res < 0 ? -res : 0, res, &rc)) {
		uring_finish(u, b, rc);
		return 1;
	}
	rc = uring_queue(u, b);
	if (rc) {
		uring_finish(u, b, rc);
		return 1;
	}
	return 0;
}

static int uring_reap(struct writer *w, bool wait)
{
	struct writer_uring *u = (struct writer_uring *)w;
	int finished = 0;
	for (;;) {
		struct io_uring_cqe *cqe;
		int rc;
		if (wait && !finished && w->inflight)
			rc = io_uring_wait_cqe(&u->ring, &cqe);
		else
			rc = io_uring_peek_cqe(&u->ring, &cqe);
		if (rc == -EINTR)
			continue;
		if (rc < 0)
			return rc == -EAGAIN ? 0 : rc;
		finished += uring_complete(u, cqe);
	}
}

static int uring_submit_buf(struct writer *w, struct wbuf *b)
{
	struct writer_uring *u = (struct writer_uring *)w;
	while (w->inflight >= w->depth)
		uring_reap(w, true);
	w->inflight++;
	int rc = uring_queue(u, b);
	if (rc)
		uring_finish(u, b, rc);
	return rc;
}

static void uring_destroy(struct writer *w)
{
	struct writer_uring *u = (struct writer_uring *)w;
	io_uring_queue_exit(&u->ring);
	free(u);
}

static const struct writer_ops uring_ops = { "io_uring", uring_submit_buf, uring_reap,
					     uring_destroy };

struct writer *writer_uring_new(int fd, unsigned depth)
{
	if (depth < 1)
		depth = 1;
	struct writer_uring *u = xcalloc(1, sizeof(*u));
	unsigned entries = 1;
	while (entries < depth)
		entries <<= 1;
	if (io_uring_queue_init(entries, &u->ring, 0) < 0) {
		free(u);
		return NULL;
	}
	u->w.ops = &uring_ops;
	u->w.fd = fd;
	u->w.depth = depth;
	return &u->w;
}
