/*
 * writer.h: the asynchronous trace writer, a small vtable with three
 * implementations: io_uring (writer_uring.c, the default), POSIX AIO
 * (writer_aio.c) and plain write(2) (writer_sync.c).
 *
 * The recorder fills a struct wbuf (bytes and their file offset) and submits
 * it; the writer owns it until it calls done(ctx, b, err) from submit/reap,
 * after which the recorder may reuse it. Offsets are assigned by the recorder
 * in submission order, so the file's layout never depends on completion
 * order. Partial writes are resumed and EAGAIN/EINTR retried inside the
 * writer; any other error is passed to done() once and remembered (w->err),
 * and later submissions fail with it.
 *
 * A sequential writer (pipe output) ignores offsets and keeps order.
 * writer_open() tries the requested kind and falls back
 * io_uring -> POSIX AIO -> sync when one is unavailable.
 */
#ifndef SCORCH_RECORD_WRITER_H
#define SCORCH_RECORD_WRITER_H

#include "record/record.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wbuf {
	uint8_t *data;
	size_t len, cap;
	uint64_t off;       /* file offset of data[0] */
	size_t done;        /* bytes written so far */
	struct wbuf *next;  /* free list (recorder) */
	int slot;           /* writer-private */
};

struct writer;
typedef void (*writer_done_fn)(void *ctx, struct wbuf *b, int err);

struct writer_ops {
	const char *name;
	/* Take b and start writing it. May block while the queue is full. */
	int (*submit)(struct writer *w, struct wbuf *b);
	/* Complete finished writes (done() per buffer); with wait, block until
	 * at least one completes when any is in flight. Returns 0 or -errno. */
	int (*reap)(struct writer *w, bool wait);
	void (*destroy)(struct writer *w);
};

struct writer {
	const struct writer_ops *ops;
	int fd;
	bool seq;             /* pipe: write in order, no offsets */
	unsigned depth;       /* writes in flight at most */
	unsigned inflight;
	int err;              /* first error, sticky */
	writer_done_fn done;
	void *ctx;
};

struct writer *writer_sync_new(int fd, bool seq);
struct writer *writer_aio_new(int fd, unsigned depth);   /* NULL if unavailable */
struct writer *writer_uring_new(int fd, unsigned depth); /* NULL if unavailable */
/* Hands every buffer to cons->data (writer_call.c): a recording without a file. */
struct writer *writer_call_new(const struct record_consumer *cons, writer_done_fn done, void *ctx);

/* The requested kind with fallback; never NULL except out of memory. */
struct writer *writer_open(enum record_io io, int fd, bool seq, unsigned depth,
			   writer_done_fn done, void *ctx);
int writer_submit(struct writer *w, struct wbuf *b);
int writer_reap(struct writer *w, bool wait);
/* Wait for every write in flight (the barrier before switch-output/stop). */
int writer_barrier(struct writer *w);
void writer_free(struct writer *w);

/* Shared by the implementations: one write/pwrite step of b, EINTR/EAGAIN
 * retried; returns 0 when b is complete or -errno. */
int writer_write_now(struct writer *w, struct wbuf *b);

#endif
