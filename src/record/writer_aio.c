/*
 * writer_aio.c: POSIX AIO writer (glibc's, thread based). depth control
 * blocks; a submit with all of them busy waits in aio_suspend for one. A
 * partial write is resubmitted for the rest, EAGAIN (no resources) is
 * retried after a wait, any other error ends the buffer with that error.
 */
#include "record/writer.h"
#include "util/buf.h"
#include <aio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct writer_aio {
	struct writer w;
	struct aiocb *cbs;
	struct wbuf **bufs;   /* per slot, NULL when free */
};

static int aio_start(struct writer_aio *a, int slot)
{
	struct wbuf *b = a->bufs[slot];
	struct aiocb *cb = &a->cbs[slot];
	for (int tries = 0;; tries++) {
		memset(cb, 0, sizeof(*cb));
		cb->aio_fildes = a->w.fd;
		cb->aio_buf = b->data + b->done;
		cb->aio_nbytes = b->len - b->done;
		cb->aio_offset = (off_t)(b->off + b->done);
		cb->aio_sigevent.sigev_notify = SIGEV_NONE;
		if (aio_write(cb) == 0)
			return 0;
		if (errno != EAGAIN || tries > 1000)
			return -errno;
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
}

static void aio_finish(struct writer_aio *a, int slot, int err)
{
	struct wbuf *b = a->bufs[slot];
	a->bufs[slot] = NULL;
	a->w.inflight--;
	writer_complete(&a->w, b, err);
}

/* Check slot; returns 1 when it finished (done called), 0 when in progress. */
static int aio_check(struct writer_aio *a, int slot)
{
	struct aiocb *cb = &a->cbs[slot];
	int e = aio_error(cb);
	if (e == EINPROGRESS)
		return 0;
	ssize_t n = aio_return(cb);
	struct wbuf *b = a->bufs[slot];
	int rc;
	if (writer_account(b, e, n, &rc)) {
		aio_finish(a, slot, rc);
		return 1;
	}
	rc = aio_start(a, slot);
	if (rc) {
		aio_finish(a, slot, rc);
		return 1;
	}
	return 0;
}

static int aio_reap(struct writer *w, bool wait)
{
	struct writer_aio *a = (struct writer_aio *)w;
	int finished = 0;
	for (;;) {
		const struct aiocb *list[64];
		int nl = 0;
		for (unsigned i = 0; i < w->depth; i++) {
			if (!a->bufs[i])
				continue;
			if (aio_check(a, (int)i))
				finished++;
			else if (nl < 64)
				list[nl++] = &a->cbs[i];
		}
		if (!wait || finished || !nl)
			return 0;
		aio_suspend(list, nl, NULL);
	}
}

static int aio_submit_buf(struct writer *w, struct wbuf *b)
{
	struct writer_aio *a = (struct writer_aio *)w;
	int slot = -1;
	for (;;) {
		for (unsigned i = 0; i < w->depth; i++)
			if (!a->bufs[i]) {
				slot = (int)i;
				break;
			}
		if (slot >= 0)
			break;
		aio_reap(w, true);
	}
	a->bufs[slot] = b;
	w->inflight++;
	int rc = aio_start(a, slot);
	if (rc)
		aio_finish(a, slot, rc);
	return rc;
}

static void aio_destroy(struct writer *w)
{
	struct writer_aio *a = (struct writer_aio *)w;
	free(a->cbs);
	free(a->bufs);
	free(a);
}

static const struct writer_ops aio_ops = { "posix-aio", aio_submit_buf, aio_reap, aio_destroy };

struct writer *writer_aio_new(int fd, unsigned depth)
{
	if (depth < 1)
		depth = 1;
	struct writer_aio *a = xcalloc(1, sizeof(*a));
	a->w.ops = &aio_ops;
	a->w.fd = fd;
	a->w.depth = depth;
	a->cbs = xcalloc(depth, sizeof(*a->cbs));
	a->bufs = xcalloc(depth, sizeof(*a->bufs));
	return &a->w;
}
