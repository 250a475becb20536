/*
 * writer_sync.c: the fallback writer: write(2)/pwrite(2) at submit time,
 * completion reported at once.
 */
#include "record/writer.h"
#include "util/buf.h"
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

/* One write/pwrite step of b, EINTR/EAGAIN retried; returns 0 when b is
 * complete or -errno. */
static int write_now(struct writer *w, struct wbuf *b)
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

static int sync_submit(struct writer *w, struct wbuf *b)
{
	int rc = write_now(w, b);
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
