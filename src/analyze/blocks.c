/*
 * blocks.c: one input analyzed by N threads, each reading all of it (see
 * blocks.h).
 *
 * Each thread's sink writes to a stdio stream of its own (fopencookie) that
 * appends to the thread's current block. When the pipeline says a block is
 * done, the block joins the finished ones; whichever thread finishes the
 * block that is next in order writes it and every following finished one
 * (one writer at a time), so no thread waits for the writing of others
 * unless it has BLOCKS_PENDING blocks waiting already.
 */
#include "analyze/blocks.h"
#include "analyze/a2l.h"
#include "analyze/resolver.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BLOCK_RECORDS 1024
#define BLOCKS_PENDING 3
#define BLOCK_TEXT_MAX ((size_t)1 << 30)

/* A sample whose names are decided at its place in the output. */
struct held {
	size_t at;                       /* its place: offset in the block's text */
	struct perf_event ev;
	struct resolved_sample rs;       /* frames, comm: copies below */
	struct resolver_deferred *def;
	uint32_t nd;
	char *comm;
};

struct block {
	uint64_t no;
	int owner;
	struct buf text;
	struct held *held;
	size_t nr_held, cap_held;
	struct block *next;              /* finished list / free list */
};

struct bthread;

struct blocks {
	const struct pipeline_config *cfg;
	int n;
	FILE *out;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct block *ready;             /* finished, not yet written (any order) */
	struct block *free;
	uint64_t next;                   /* the next block to write */
	bool writing;
	bool abort;                      /* a thread failed alone: nothing more is written */
	int write_rc;
	struct a2l_state a2l;            /* used by the writer only */
	struct hmap warned;
	struct bthread *t;
};

struct bthread {
	struct blocks *B;
	int index;
	pthread_t th;
	bool started, finished;
	struct pipeline_config cfg;
	struct pipeline_blocks pb;
	struct sink sink;
	FILE *out;
	struct block *cur;
	int pending;                     /* its finished blocks not yet written */
	struct err e;
	int rc;
};

static ssize_t cookie_write(void *ctx, const char *data, size_t n)
{
	struct bthread *t = ctx;
	if (buf_append(&t->cur->text, data, n)) {
		errno = ENOMEM;
		return -1;
	}
	return (ssize_t)n;
}

static struct block *block_get(struct blocks *B, int owner)
{
	pthread_mutex_lock(&B->mu);
	struct block *b = B->free;
	if (b)
		B->free = b->next;
	pthread_mutex_unlock(&B->mu);
	if (!b) {
		b = xcalloc(1, sizeof(*b));
		buf_init(&b->text, BLOCK_TEXT_MAX);
	}
	b->text.len = 0;
	b->nr_held = 0;
	b->owner = owner;
	b->next = NULL;
	return b;
}

static void held_release(struct held *h)
{
	free(h->rs.frames);
	free(h->def);
	free(h->comm);
}

static void block_free(struct block *b)
{
	for (size_t i = 0; i < b->nr_held; i++)
		held_release(&b->held[i]);
	free(b->held);
	buf_release(&b->text);
	free(b);
}

/* Write block b: its text, with each held sample's names decided and its
 * text made at its place. Outside the lock; one writer at a time. */
static int block_write(struct blocks *B, struct block *b)
{
	struct bthread *t = &B->t[b->owner];
	size_t pos = 0;
	struct buf tmp;
	buf_init(&tmp, BLOCK_TEXT_MAX);
	int rc = 0;
	for (size_t i = 0; i < b->nr_held && !rc; i++) {
		struct held *h = &b->held[i];
		if (h->at > pos)
			fwrite(b->text.data + pos, 1, h->at - pos, B->out);
		pos = h->at;
		h->rs.ev = &h->ev;
		resolver_apply_deferred(&B->a2l, h->def, h->nd, &h->rs);
		tmp.len = 0;
		if (t->sink.format(t->sink.ctx, &h->rs, &tmp))
			rc = -EINVAL; /* eligible() promised format() takes every sample */
		else
			fwrite(tmp.data, 1, tmp.len, B->out);
		held_release(h);
	}
	b->nr_held = 0;
	if (!rc && b->text.len > pos)
		fwrite(b->text.data + pos, 1, b->text.len - pos, B->out);
	buf_release(&tmp);
	if (!rc && ferror(B->out))
		rc = -EIO;
	return rc;
}

/* Write what is next in order while this thread can. Under mu. */
static void write_ready(struct blocks *B)
{
	while (!B->writing && !B->abort) {
		struct block **pp = &B->ready;
		while (*pp && (*pp)->no != B->next)
			pp = &(*pp)->next;
		struct block *b = *pp;
		if (!b)
			return;
		*pp = b->next;
		B->writing = true;
		pthread_mutex_unlock(&B->mu);
		int rc = block_write(B, b);
		pthread_mutex_lock(&B->mu);
		B->writing = false;
		B->next++;
		B->t[b->owner].pending--;
		b->next = B->free;
		B->free = b;
		if (rc) {
			B->write_rc = rc;
			B->abort = true;
		}
		pthread_cond_broadcast(&B->cv);
	}
}

/* Whether the block to write next can never come: its owner has ended
 * without it (a failure of its own). Under mu. */
static bool stuck(struct blocks *B)
{
	struct bthread *o = &B->t[B->next % (uint64_t)B->n];
	if (!o->finished || B->writing) /* writing: next is the block being written */
		return false;
	for (struct block *b = B->ready; b; b = b->next)
		if (b->no == B->next)
			return false;
	return true;
}

/* Write what can be written, waiting while t has more than `most` finished
 * blocks unwritten (or until the run is aborted). Under mu. */
static void write_until(struct blocks *B, struct bthread *t, int most)
{
	for (;;) {
		write_ready(B);
		if (B->abort || t->pending <= most)
			return;
		if (stuck(B)) {
			B->abort = true;
			pthread_cond_broadcast(&B->cv);
			return;
		}
		pthread_cond_wait(&B->cv, &B->mu);
	}
}

static int on_done(void *ctx, int index, uint64_t no)
{
	struct blocks *B = ctx;
	struct bthread *t = &B->t[index];
	fflush(t->out);
	struct block *b = t->cur;
	b->no = no;
	pthread_mutex_lock(&B->mu);
	b->next = B->ready;
	B->ready = b;
	t->pending++;
	write_until(B, t, BLOCKS_PENDING - 1);
	bool stop = B->abort;
	pthread_mutex_unlock(&B->mu);
	t->cur = block_get(B, index);
	return stop ? 1 : 0;
}

static void on_finish(void *ctx, int index)
{
	struct blocks *B = ctx;
	struct bthread *t = &B->t[index];
	pthread_mutex_lock(&B->mu);
	t->finished = true;
	pthread_cond_broadcast(&B->cv);
	write_until(B, t, 0);
	pthread_mutex_unlock(&B->mu);
}

static int on_defer(void *ctx, int index, const struct resolved_sample *rs,
		    const struct resolver_deferred *d, uint32_t nd)
{
	struct blocks *B = ctx;
	struct bthread *t = &B->t[index];
	fflush(t->out);
	struct block *b = t->cur;
	if (b->nr_held == b->cap_held) {
		size_t cap = b->cap_held;
		if (ARRAY_GROW(b->held, cap, b->nr_held + 1, (size_t)1 << 24))
			return -ENOMEM;
		b->cap_held = cap;
	}
	struct held *h = &b->held[b->nr_held];
	memset(h, 0, sizeof(*h));
	h->at = b->text.len;
	h->ev = *rs->ev;
	h->rs = *rs;
	h->rs.ev = NULL; /* &h->ev at writing: held[] may move until then */
	h->rs.frames = NULL;
	if (rs->nr_frames) {
		h->rs.frames = malloc(rs->nr_frames * sizeof(*rs->frames));
		if (!h->rs.frames)
			return -ENOMEM;
		memcpy(h->rs.frames, rs->frames, rs->nr_frames * sizeof(*rs->frames));
	}
	h->def = malloc(nd * sizeof(*d));
	h->comm = rs->comm ? strdup(rs->comm) : NULL;
	if (!h->def || (rs->comm && !h->comm)) {
		held_release(h);
		return -ENOMEM;
	}
	memcpy(h->def, d, nd * sizeof(*d));
	h->nd = nd;
	h->rs.comm = h->comm;
	b->nr_held++;
	return 0;
}

/* The resolvers' warnings once per cause across the threads (as workers.c). */
static void on_warn(void *ctx, const struct resolver_warning *w)
{
	struct blocks *B = ctx;
	uint64_t h = resolver_warning_hash(w);
	pthread_mutex_lock(&B->mu);
	if (!hmap_get(&B->warned, h)) {
		hmap_put(&B->warned, h, (void *)1);
		resolver_warning_route(B->cfg, w); /* under the lock: one at a time */
	}
	pthread_mutex_unlock(&B->mu);
}

static void *thread_main(void *arg)
{
	struct bthread *t = arg;
	t->rc = pipeline_run(&t->cfg, &t->sink, &t->e);
	return NULL;
}

int blocks_run(const struct pipeline_config *c, int n, blocks_sink_fn make_sink,
	       blocks_eligible_fn eligible, void *ctx, FILE *out, struct err *e)
{
	struct stat st;
	if (n < 2 || c->input_fd >= 0 || !c->input || !strcmp(c->input, "-") ||
	    stat(c->input, &st) || !S_ISREG(st.st_mode) || c->unordered)
		return 1;
	/* the header and attrs, to ask whether the sink's output can be cut */
	struct err e0 = { 0 };
	struct input *in = input_open(c->input, &e0);
	if (!in)
		return 1; /* pipeline_run says what is wrong */
	bool ok = !input_header(in)->pipe && eligible(ctx, input_header(in), input_evlist(in));
	input_free(in);
	if (!ok)
		return 1;

	struct blocks *B = xcalloc(1, sizeof(*B));
	B->cfg = c;
	B->n = n;
	B->out = out;
	pthread_mutex_init(&B->mu, NULL);
	pthread_cond_init(&B->cv, NULL);
	hmap_init(&B->warned);
	B->t = xcalloc((size_t)n, sizeof(*B->t));
	/* SCORCH_BLOCK_RECORDS: another block size (tests: small blocks cut
	 * everything, rounds and held samples, at many places) */
	uint64_t size = BLOCK_RECORDS;
	const char *env = getenv("SCORCH_BLOCK_RECORDS");
	if (env && strtoull(env, NULL, 10) > 0)
		size = strtoull(env, NULL, 10);
	int rc = 0, started = 0;
	for (int i = 0; i < n; i++) {
		struct bthread *t = &B->t[i];
		t->B = B;
		t->index = i;
		t->cfg = *c;
		t->cfg.jobs = 1;
		t->pb = (struct pipeline_blocks){ .index = i, .n = n, .size = size,
			.done = on_done, .defer = on_defer, .warn = on_warn, .finish = on_finish,
			.ctx = B };
		t->cfg.blocks = &t->pb;
		t->cur = block_get(B, i);
		cookie_io_functions_t io = { .write = cookie_write };
		t->out = fopencookie(t, "w", io);
		if (!t->out || make_sink(ctx, i, t->out, &t->sink)) {
			rc = -ENOMEM;
			break;
		}
		if (!t->sink.format) {
			rc = -EINVAL;
			break;
		}
		setvbuf(t->out, NULL, _IOFBF, 1 << 16);
	}
	if (rc) {
		/* nothing ran: undo, and let the caller run one pipeline */
		for (int i = 0; i < n; i++) {
			struct bthread *t = &B->t[i];
			if (t->sink.end)
				t->sink.end(t->sink.ctx, NULL, -EINVAL);
			if (t->out)
				fclose(t->out);
			if (t->cur)
				block_free(t->cur);
		}
		goto out;
	}
	for (int i = 0; i < n; i++) {
		if (pthread_create(&B->t[i].th, NULL, thread_main, &B->t[i])) {
			/* the others would wait for its blocks */
			pthread_mutex_lock(&B->mu);
			B->abort = true;
			B->write_rc = -EAGAIN;
			pthread_cond_broadcast(&B->cv);
			pthread_mutex_unlock(&B->mu);
			break;
		}
		B->t[i].started = true;
		started++;
	}
	for (int i = 0; i < n; i++) {
		struct bthread *t = &B->t[i];
		if (t->started)
			pthread_join(t->th, NULL);
		else if (t->sink.end)
			t->sink.end(t->sink.ctx, NULL, -EAGAIN);
		fclose(t->out);
		block_free(t->cur);
	}
	/* the error: thread 0's (every thread meets an input error alike),
	 * else the first other thread's, else the writing's */
	for (int i = 0; i < n && !rc; i++)
		if (B->t[i].started && B->t[i].rc < 0) {
			rc = B->t[i].rc;
			*e = B->t[i].e;
		}
	if (!rc && B->write_rc) {
		rc = B->write_rc;
		err_set(e, rc, "writing the output failed (%s)", strerror(-rc));
	}
	if (!rc && started < n) {
		rc = -EAGAIN;
		err_set(e, rc, "could not start %d threads", n);
	}
	if (!rc && fflush(out)) {
		rc = -EIO;
		err_set(e, rc, "writing the output failed (%s)", strerror(errno));
	}
out:
	while (B->ready) {
		struct block *b = B->ready;
		B->ready = b->next;
		block_free(b);
	}
	while (B->free) {
		struct block *b = B->free;
		B->free = b->next;
		block_free(b);
	}
	a2l_state_release(&B->a2l);
	hmap_release(&B->warned);
	pthread_cond_destroy(&B->cv);
	pthread_mutex_destroy(&B->mu);
	bool ran = B->t[0].started;
	free(B->t);
	free(B);
	if (!ran && rc)
		return 1;
	return rc;
}
