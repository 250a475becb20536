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

#include "record/record_opts.h"
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

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

/* Shared by the implementations (inline: they call nothing of writer.c,
 * which calls them). Hand b back through done() with err (0 or -errno),
 * remembering the first error as w->err. */
static inline void writer_complete(struct writer *w, struct wbuf *b, int err)
{
	if (err && !w->err)
		w->err = err;
	w->done(w->ctx, b, err);
}

/* A write of b ended with errno e (0: none) after n bytes (counted into
 * b->done): 1 when b is finished, *err its outcome (0 complete, -EIO for a
 * zero-byte write, else -e); 0 when the rest is to be written again
 * (partial write, EAGAIN, EINTR). */
static inline int writer_account(struct wbuf *b, int e, long long n, int *err)
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

/* ops for writers that complete at submit: reap has nothing to do, destroy
 * frees the struct. */
static inline int writer_reap_none(struct writer *w, bool wait)
{
	return 0;
}

static inline void writer_destroy_free(struct writer *w)
{
	free(w);
}

#endif
