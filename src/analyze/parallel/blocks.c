/*
 * blocks.c: one input analyzed by N threads, thread 0 reading and
 * ordering it for all of them (see blocks.h and feed.h).
 *
 * Text: each thread's sink writes to a stdio stream of its own
 * (fopencookie) that appends to the thread's current block. Ordered: the
 * thread's pipeline hands each record of its blocks over (on_hand), kept in
 * the block's data. When the pipeline says a block is done, the block joins
 * the finished ones; whichever thread finishes the block that is next in
 * order writes it (text) or replays it on the one sink (ordered), and every
 * following finished one, one writer at a time, unless another thread
 * waits (idle, with blocks of its own finished): then that one is woken
 * to write them and the one that finished goes on. So no thread waits for
 * the writing of others unless it has BLOCKS_PENDING blocks waiting
 * already, the writing goes to the thread ahead rather than the one
 * behind, and the sink of an ordered run is only ever called by one
 * thread at a time, in record order.
 */
#include "analyze/parallel/blocks.h"
#include "analyze/dwarf/a2l.h"
#include "analyze/parallel/feed.h"
#include "analyze/resolver.h"
#include "analyze/stitch.h"
#include "analyze/unwind/unwind.h"
#include "util/annotate.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/sys.h"
#include "util/xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BLOCK_RECORDS_ORDERED 256   /* kept records and frames are bigger than text */
#define BLOCK_RECORDS_TEXT 128      /* text (below) */
#define BLOCKS_PENDING 3
#define BLOCK_TEXT_MAX ((size_t)1 << 30)
#define LIGHT SIZE_MAX                 /* kept.rec of a record kept without its bytes */
#define OWNER_PAGE 65536               /* blocks per page of the owner table */
#define OWNER_PAGES 65536
#define OUT_DIRECT_MIN 65536          /* text written past the FILE from this size (out_put) */
#define BACKLOG 6                      /* text, -j 2: blocks the follower is given ahead */
#define BACKLOG_ORDERED 2              /* ordered (perfparser), or more threads */

/* A record handed over (on_hand), its bytes in the block's data: ordered,
 * every record, for the one sink; text, a sample whose names are decided
 * at its place in the output. */
struct kept {
	size_t at;                       /* text: its place, an offset in the block's text */
	size_t rec;                      /* the record (without its user stack); LIGHT: none */
	uint64_t file_off;
	uint64_t time;                   /* LIGHT: the record's type, misc and time */
	uint32_t type;
	uint16_t misc;
	struct pipeline_recstate st;
	bool sample;
	struct resolved_sample rs;       /* pointers fixed at writing: */
	size_t frames, maps, def;        /* offsets in data */
	uint32_t nd;
};

struct block {
	uint64_t no;
	int owner;
	struct buf text;
	struct buf data;                 /* the kept records, frames, maps, names */
	struct kept *kept;
	size_t nr_kept, cap_kept;
	/* the resolver's warnings while making it, said when it is written
	 * (so in -j 1's order: the first block that has one says it) */
	struct resolver_warnings warns;
	struct block *next;              /* finished list / free list */
};

struct bthread;

struct blocks {
	const struct pipeline_config *cfg;
	int n;
	FILE *out;
	int out_fd;                      /* its descriptor, or -1 (out_put) */
	struct sink *ordered;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct block *ready;             /* finished, not yet written (any order) */
	struct block *free;
	uint64_t next;                   /* the next block to write */
	bool writing;
	int idle;                        /* threads waiting that write what is ready when woken */
	bool abort;                      /* a thread failed alone: nothing more is written */
	uint64_t limit;                  /* the block a thread's error ended first: none after it is written */
	int begun;                       /* ordered: the sink's begin 0 not yet, 1 done, -1 failed */
	int drained;                     /* threads done with their blocks (written or aborted) */
	bool ended;                      /* ordered: the sink's end was called */
	int end_rc;                      /* what it returned */
	int write_rc;
	struct a2l_state a2l;            /* used by the writer only */
	/* with a feed: the blocks' owners, as thread 0 decides them
	 * (owner + 1; 0: not yet), pages allocated by thread 0 */
	uint16_t **owners;
	uint64_t backlog;                /* blocks thread 0 gives a follower ahead (on_mine) */
	bool leader_gone;                /* thread 0 has ended (atomic) */
	struct hmap warned;
	char **late;                     /* pipeline 0's own warnings, said at the end */
	size_t nr_late, cap_late;
	struct bthread *t;
};

struct bthread {
	struct blocks *B;
	int index;
	pthread_t th;
	bool started, finished, drained;
	int rc_fin;                      /* its pipeline's result, at its finish */
	uint64_t fail_blk;               /* after an error: the block it ended (0 if before any) */
	struct pipeline_config cfg;
	struct pipeline_blocks pb;
	struct sink sink;                /* text: its own; ordered: a stand-in */
	struct pipeline *p;              /* its pipeline (for the kept records' evlist, replays) */
	const struct map **seen;         /* a sample's maps, while kept */
	size_t seen_cap;
	FILE *out;
	struct block *cur;
	struct buf *cur_text;            /* &cur->text, for the sink's set_text (sink_jobs) */
	int pending;                     /* its finished blocks not yet written */
	uint64_t assigned;               /* with a feed: blocks thread 0 gave it (thread 0's) */
	uint64_t completed;              /* and those it has finished (atomic) */
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

static void say_warning(struct blocks *B, const struct resolver_warning *w);

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
		buf_init(&b->data, BLOCK_TEXT_MAX);
	}
	b->text.len = 0;
	b->data.len = 0;
	b->nr_kept = 0;
	resolver_warnings_clear(&b->warns);
	b->owner = owner;
	b->next = NULL;
	return b;
}

static void block_free(struct block *b)
{
	resolver_warnings_free(&b->warns);
	free(b->kept);
	buf_release(&b->text);
	buf_release(&b->data);
	free(b);
}

/* Kept record k of block b as its pipeline had it: decoded again into ev
 * (with the owner's evlist), and for a sample *rs with its frames' maps
 * pointing at their copies and its names decided (in output order: one
 * a2l state). 0, or the decoder's error. */
static int kept_get(struct blocks *B, struct block *b, struct kept *k, struct perf_event *ev,
		    struct resolved_sample **rs)
{
	const struct perf_evlist *el = input_evlist(pipeline_input(B->t[b->owner].p));
	*rs = NULL;
	if (k->rec == LIGHT) {
		/* the sink's event() reads only these (sink_jobs.event_light) */
		perf_event_light(ev, k->type, k->misc, k->file_off, k->time);
		return 0;
	}
	struct err e; /* decoded before: no error to say (not zeroed: 280 bytes a record) */
	e.set = 0;
	int rc = perf_event_decode(el, b->data.data + k->rec, k->file_off, ev, &e);
	if (rc || !k->sample)
		return rc;
	struct resolved_sample *r = &k->rs;
	r->ev = ev;
	r->frames = (struct frame *)(b->data.data + k->frames);
	struct map *maps = (struct map *)(b->data.data + k->maps);
	for (uint32_t f = 0; f < r->nr_frames; f++)
		if (r->frames[f].map) /* the index + 1 of its copy */
			r->frames[f].map = &maps[(uintptr_t)r->frames[f].map - 1];
	resolver_apply_deferred(&B->a2l, (const struct resolver_deferred *)(b->data.data + k->def),
				k->nd, r);
	*rs = r;
	return 0;
}

/* Put n bytes of text on the output. A block's text is written straight
 * from its buffer when the output has a descriptor (after what its FILE
 * holds): copied into the FILE's buffer first, every byte of the output
 * was copied once more than at -j 1, 150 MB on the 916 MB build
 * recording. Short pieces (around kept samples) go through the FILE. */
static int out_put(struct blocks *B, const void *p, size_t n)
{
	if (n >= OUT_DIRECT_MIN && B->out_fd >= 0) {
		if (fflush(B->out))
			return -EIO;
		return sys_write_all(B->out_fd, p, n, false) ? -EIO : 0;
	}
	fwrite(p, 1, n, B->out);
	return 0;
}

/* Write block b. Ordered: replay its records on the sink, in order. Text:
 * its text, with each kept sample's text made at its place by the owner's
 * sink. Outside the lock; one writer at a time. */
static int block_write(struct blocks *B, struct block *b)
{
	struct bthread *t = &B->t[b->owner];
	/* its warnings first: a sink's replay may read what they say (the
	 * perfparser stream's missing files) */
	for (size_t i = 0; i < b->warns.n; i++)
		say_warning(B, &b->warns.w[i]);
	size_t pos = 0;
	struct buf tmp;
	buf_init(&tmp, BLOCK_TEXT_MAX);
	int rc = 0;
	for (size_t i = 0; i < b->nr_kept && !rc; i++) {
		struct kept *k = &b->kept[i];
		struct perf_event ev;
		struct resolved_sample *rs;
		if ((rc = kept_get(B, b, k, &ev, &rs)))
			break;
		if (B->ordered) {
			rc = pipeline_replay(t->p, B->ordered, &ev, rs, &k->st);
			continue;
		}
		if (k->at > pos && (rc = out_put(B, b->text.data + pos, k->at - pos)))
			break;
		pos = k->at;
		tmp.len = 0;
		if (!rs || t->sink.jobs->format(t->sink.ctx, rs, &tmp))
			rc = -EINVAL; /* eligible() promised format() takes every sample */
		else if (tmp.len) /* none: an event -F gave no field (tmp.data NULL) */
			fwrite(tmp.data, 1, tmp.len, B->out);
	}
	b->nr_kept = 0;
	if (!B->ordered && !rc && b->text.len > pos)
		rc = out_put(B, b->text.data + pos, b->text.len - pos);
	buf_release(&tmp);
	if (!B->ordered && !rc && ferror(B->out))
		rc = -EIO;
	return rc;
}

/* The owner of block no: thread 0's decision (thread 0 while it has not
 * decided: the block can come only from it). */
static int owner_of(const struct blocks *B, uint64_t no)
{
	uint16_t *pg = no / OWNER_PAGE < OWNER_PAGES
			       ? __atomic_load_n(&B->owners[no / OWNER_PAGE], __ATOMIC_ACQUIRE) : NULL;
	uint16_t v = pg ? __atomic_load_n(&pg[no % OWNER_PAGE], __ATOMIC_ACQUIRE) : 0;
	return v ? v - 1 : 0;
}

/*
 * With a feed (feed.h), thread 0 reads and orders the input, which the
 * others do not: it should resolve fewer blocks. So it gives each block
 * to the follower with the fewest blocks given and not finished, unless
 * every follower has B->backlog of them: then it is its own. Thread 0
 * meets every block first (the others take its records), decides, and
 * the others wait for that (briefly: it decides as it delivers the
 * block's first record, which it has just published). Which thread makes
 * a block changes nothing in the output (the output is the same for any
 * number of threads and any block size: jobs_parity.sh).
 */
static bool on_mine(void *ctx, int index, uint64_t no)
{
	struct blocks *B = ctx;
	uint64_t pgi = no / OWNER_PAGE;
	if (pgi >= OWNER_PAGES)
		return index == 0; /* past the table (2^32 blocks): thread 0 */
	if (index == 0) {
		int o = 0;
		uint64_t least = B->backlog;
		for (int i = 1; i < B->n; i++) {
			uint64_t done = __atomic_load_n(&B->t[i].completed, __ATOMIC_ACQUIRE);
			uint64_t backlog = B->t[i].assigned - done;
			if (backlog < least) {
				least = backlog;
				o = i;
			}
		}
		B->t[o].assigned++;
		uint16_t *pg = B->owners[pgi];
		if (!pg) {
			pg = xcalloc(OWNER_PAGE, sizeof(*pg));
			VALGRIND_HG_DISABLE_CHECKING(pg, OWNER_PAGE * sizeof(*pg)); /* atomics only */
			__atomic_store_n(&B->owners[pgi], pg, __ATOMIC_RELEASE);
		}
		__atomic_store_n(&pg[no % OWNER_PAGE], (uint16_t)(o + 1), __ATOMIC_RELEASE);
		return o == 0;
	}
	for (unsigned spin = 0;; spin++) {
		/* gone first: every decision came before it */
		bool gone = __atomic_load_n(&B->leader_gone, __ATOMIC_ACQUIRE);
		uint16_t *pg = __atomic_load_n(&B->owners[pgi], __ATOMIC_ACQUIRE);
		uint16_t v = pg ? __atomic_load_n(&pg[no % OWNER_PAGE], __ATOMIC_ACQUIRE) : 0;
		if (v)
			return v - 1 == index;
		if (gone)
			return false; /* it stopped before: so does this one (the feed's end) */
		if (spin > 64)
			sched_yield();
	}
}

/* Write what is next in order while this thread can. Under mu. */
static void write_ready(struct blocks *B)
{
	while (!B->writing && !B->abort) {
		if (B->next > B->limit) {
			/* one pipeline stops at its first error: so does the
			 * output, after the block that error ended */
			B->abort = true;
			pthread_cond_broadcast(&B->cv);
			return;
		}
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
	struct bthread *o = &B->t[owner_of(B, B->next)];
	if (!o->finished || B->writing) /* writing: next is the block being written */
		return false;
	for (struct block *b = B->ready; b; b = b->next)
		if (b->no == B->next)
			return false;
	return true;
}

/* Wait on cv as a thread that writes what is ready when woken (idle: the
 * one a finished block's writing is left to). Under mu. */
static void wait_idle(struct blocks *B)
{
	B->idle++;
	pthread_cond_wait(&B->cv, &B->mu);
	B->idle--;
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
		wait_idle(B);
	}
}

static int on_done(void *ctx, int index, uint64_t no)
{
	struct blocks *B = ctx;
	struct bthread *t = &B->t[index];
	if (t->out)
		fflush(t->out);
	struct block *b = t->cur;
	b->no = no;
	__atomic_add_fetch(&t->completed, 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&B->mu);
	b->next = B->ready;
	B->ready = b;
	t->pending++;
	if (B->idle && t->pending < BLOCKS_PENDING)
		/* another thread waits for this block, with blocks of its
		 * own finished: it writes them all, this one goes on (else
		 * the thread behind would write every block, the one ahead
		 * would wait for it, and it would fall further behind) */
		pthread_cond_broadcast(&B->cv);
	else
		write_until(B, t, BLOCKS_PENDING - 1);
	bool stop = B->abort;
	pthread_mutex_unlock(&B->mu);
	t->cur = block_get(B, index);
	t->cur_text = &t->cur->text;
	return stop ? 1 : 0;
}

/* The input changes its attrs or header after block `no` - 1: what was
 * kept before is written first, with what they said then (pipeline.c,
 * block_meta). Every thread has cut its blocks at the same record. */
static void on_barrier(void *ctx, int index, uint64_t no)
{
	struct blocks *B = ctx;
	(void)index;
	pthread_mutex_lock(&B->mu);
	for (;;) {
		write_ready(B);
		if (B->abort || B->next >= no || stuck(B))
			break;
		wait_idle(B);
	}
	pthread_mutex_unlock(&B->mu);
}

/* The thread whose error comes first in the output (-j 1's error), or -1:
 * of those whose result (rc_fin, else rc) is an error, the one that ended
 * the earliest block; of those, the block's owner (another thread fails in
 * that block only at a record the owner decodes too), else the first. */
static int first_failed(const struct blocks *B, bool fin)
{
	int best = -1;
	for (int i = 0; i < B->n; i++) {
		const struct bthread *t = &B->t[i];
		if ((fin ? t->rc_fin : t->rc) >= 0 || (!fin && !t->started))
			continue;
		if (best < 0 || t->fail_blk < B->t[best].fail_blk ||
		    (t->fail_blk == B->t[best].fail_blk && owner_of(B, t->fail_blk) == i))
			best = i;
	}
	return best;
}

/* Thread t is done with its blocks (rc: its result). Under mu. */
static void drain(struct blocks *B, struct bthread *t, int rc)
{
	if (t->drained)
		return;
	t->drained = true;
	t->finished = true;
	t->rc_fin = rc;
	B->drained++;
	pthread_cond_broadcast(&B->cv);
}

/* Every pipeline lives until all blocks are written: names decided in
 * order (a2l.h) are one resolver's strings handed to the others' samples;
 * and the one sink of an ordered run may hold pointers into any resolver
 * (the stream's strings and frame cache are keyed by pointer: a name freed
 * and allocated again would be taken for the old one). So every thread
 * waits for all to be drained; then, ordered, thread 0 ends the sink with
 * the first error (thread 0's first) while the others wait. Under mu. */
static void end_all(struct blocks *B, struct bthread *t, struct pipeline *p)
{
	while (B->drained < B->n)
		pthread_cond_wait(&B->cv, &B->mu);
	if (!B->ordered)
		return;
	if (t->index) {
		while (!B->ended)
			pthread_cond_wait(&B->cv, &B->mu);
		return;
	}
	if (B->ended)
		return;
	int f = first_failed(B, true);
	int rc = f >= 0 ? B->t[f].rc_fin : 0;
	if (!rc && B->write_rc < 0)
		rc = B->write_rc;
	pthread_mutex_unlock(&B->mu);
	if (!rc && p) {
		/* what the stitcher kept waiting for later samples */
		rc = pipeline_replay_end(p, B->ordered);
		if (rc > 0)
			rc = 0; /* the sink asked to stop */
	}
	int r = B->ordered->end ? B->ordered->end(B->ordered->ctx, p, rc) : 0;
	pthread_mutex_lock(&B->mu);
	B->end_rc = r;
	B->ended = true;
	pthread_cond_broadcast(&B->cv);
}

/* Thread index's pipeline met an error in block `no`: nothing after that
 * block is written (a sample is decoded by its block's thread only,
 * pipeline.c: an error one thread meets, the others may pass). Before
 * that block's done. */
static void on_failed(void *ctx, int index, uint64_t no)
{
	struct blocks *B = ctx;
	pthread_mutex_lock(&B->mu);
	B->t[index].fail_blk = no;
	if (no < B->limit)
		B->limit = no;
	pthread_cond_broadcast(&B->cv);
	pthread_mutex_unlock(&B->mu);
}

static void on_finish(void *ctx, int index, struct pipeline *p, int rc)
{
	struct blocks *B = ctx;
	struct bthread *t = &B->t[index];
	if (!index)
		/* it decides no more blocks: a follower waiting for its
		 * decision of one it ended before (a stop) is not kept */
		__atomic_store_n(&B->leader_gone, true, __ATOMIC_RELEASE);
	pthread_mutex_lock(&B->mu);
	t->finished = true;
	pthread_cond_broadcast(&B->cv);
	write_until(B, t, 0);
	drain(B, t, rc);
	end_all(B, t, p);
	pthread_mutex_unlock(&B->mu);
}

/* Append n bytes (aligned to 8) to b's data, whose room on_hand reserved
 * (the padding is left as it is: the data never leaves the process); its
 * offset. */
static size_t data_put(struct block *b, const void *p, size_t n)
{
	size_t at = (b->data.len + 7) & ~(size_t)7;
	if (n)
		memcpy(b->data.data + at, p, n);
	b->data.len = at + n;
	return at;
}

/* Keep a record of this thread's block: ordered, every one, for the
 * replay; text, a sample whose names are decided at writing. */
static int on_hand(void *ctx, int index, struct pipeline *p, const uint8_t *rec, uint64_t file_off,
		   const struct perf_event *ev, const struct resolved_sample *rs,
		   const struct resolver_deferred *d, uint32_t nd, const struct pipeline_recstate *st)
{
	struct blocks *B = ctx;
	struct bthread *t = &B->t[index];
	struct block *b = t->cur;
	if (!t->p)
		t->p = p; /* set once, before any of its blocks is finished */
	if (t->out)
		fflush(t->out); /* text: the sink's output so far is the block's */
	if (b->nr_kept == b->cap_kept) {
		size_t cap = b->cap_kept;
		if (ARRAY_GROW(b->kept, cap, b->nr_kept + 1, (size_t)1 << 24))
			return -ENOMEM;
		b->cap_kept = cap;
	}
	struct kept *k = &b->kept[b->nr_kept];
	memset(k, 0, sizeof(*k));
	k->at = b->text.len;
	k->file_off = file_off;
	k->st = *st;
	bool stitch_reads = B->cfg->stitch && (ev->type == PERF_RECORD_EXIT || ev->type == PERF_RECORD_FORK ||
					       ev->type == PERF_RECORD_COMM);
	if (!rs && B->ordered && B->ordered->jobs && B->ordered->jobs->event_light && !stitch_reads &&
	    B->ordered->jobs->event_light(ev)) {
		/* what the sink reads of it: no bytes, no decoding at the replay
		 * (a build's MMAP2 records are half of what the stream keeps) */
		k->rec = LIGHT;
		k->type = ev->type;
		k->misc = ev->misc;
		k->time = ev->s.time;
		b->nr_kept++;
		return 0;
	}
	/* the record; a sample without its user stack (size 0, no dyn_size),
	 * which nothing after unwinding reads: most of the bytes */
	uint16_t size;
	memcpy(&size, rec + 6, 2);
	/* room for all of it at once: the record, the frames, as many maps,
	 * the deferred names, each piece's padding */
	size_t nf = rs ? rs->nr_frames : 0, room = (size_t)size + 8 + 8 * 8;
	if (rs)
		room += nf * (sizeof(*rs->frames) + sizeof(struct map) + 8) + nd * sizeof(*d);
	if (buf_reserve(&b->data, room))
		return -ENOMEM;
	/* the stack-less record is at a multiple of 8 (data_put of nothing
	 * aligns), as the whole one would be */
	size_t at = data_put(b, rec, 0);
	size_t n = perf_sample_without_stack(rec, ev, b->data.data + at);
	if (n)
		b->data.len = at + n;
	else
		at = data_put(b, rec, size);
	k->rec = at;
	if (rs) {
		k->sample = true;
		k->rs = *rs;
		k->rs.ev = NULL;
		k->rs.frames = NULL;
		/* the maps the frames point into, copied (the session moves on);
		 * a frame's map becomes its copy's index + 1 until the replay */
		uint32_t nm = 0;
		if (rs->nr_frames > t->seen_cap) {
			size_t cap = t->seen_cap;
			if (ARRAY_GROW(t->seen, cap, rs->nr_frames, (size_t)1 << 22))
				return -ENOMEM;
			t->seen_cap = cap;
		}
		size_t fat = data_put(b, rs->frames, rs->nr_frames * sizeof(*rs->frames));
		k->frames = fat;
		uint32_t lj = 0; /* the map of the frame before: most often this one's */
		for (uint32_t f = 0; f < rs->nr_frames; f++) {
			const struct map *m = rs->frames[f].map;
			if (!m)
				continue;
			uint32_t j = lj;
			if (j >= nm || t->seen[j] != m)
				for (j = 0; j < nm && t->seen[j] != m;)
					j++;
			lj = j;
			if (j == nm) {
				data_put(b, m, sizeof(*m));
				t->seen[nm++] = m;
			}
			((struct frame *)(b->data.data + k->frames))[f].map = (const struct map *)(uintptr_t)(j + 1);
		}
		/* the map copies follow the frames, 8-aligned and contiguous */
		k->maps = (fat + rs->nr_frames * sizeof(*rs->frames) + 7) & ~(size_t)7;
		k->def = data_put(b, d, nd * sizeof(*d));
		k->nd = nd;
	}
	b->nr_kept++;
	return 0;
}

/* Say w unless said before (once per cause across the threads). */
static void say_warning(struct blocks *B, const struct resolver_warning *w)
{
	uint64_t h = resolver_warning_hash(w);
	pthread_mutex_lock(&B->mu);
	if (!hmap_get(&B->warned, h)) {
		hmap_put(&B->warned, h, (void *)1);
		resolver_warning_route(B->cfg, w); /* under the lock: one at a time */
	}
	pthread_mutex_unlock(&B->mu);
}

/* Pipeline 0's own warning (pipeline_blocks.late): kept until every block
 * is written. */
static void on_late(void *ctx, const char *msg)
{
	struct blocks *B = ctx;
	pthread_mutex_lock(&B->mu);
	if (B->nr_late < B->cap_late ||
	    !ARRAY_GROW(B->late, B->cap_late, B->nr_late + 1, (size_t)1 << 16))
		B->late[B->nr_late++] = xstrdup(msg);
	pthread_mutex_unlock(&B->mu);
}

/* The thread running a pipeline (its resolver's warnings go to its block). */
static __thread struct bthread *this_thread;

static void on_warn(void *ctx, const struct resolver_warning *w)
{
	struct blocks *B = ctx;
	struct bthread *t = this_thread;
	struct block *b = t && t->B == B ? t->cur : NULL;
	/* said when the block is written, in block order; with no block
	 * (or no memory), now */
	if (!b || resolver_warnings_add(&b->warns, w))
		say_warning(B, w);
}

static void *thread_main(void *arg)
{
	struct bthread *t = arg;
	this_thread = t;
	t->rc = pipeline_run(&t->cfg, &t->sink, &t->e);
	if (!t->index) /* also when it ended before its finish (on_finish) */
		__atomic_store_n(&t->B->leader_gone, true, __ATOMIC_RELEASE);
	/* a pipeline that ended before its finish (it could not open the
	 * input): the others must not wait for it, nor for thread 0's sink */
	struct blocks *B = t->B;
	pthread_mutex_lock(&B->mu);
	if (!t->index && !B->begun)
		B->begun = -1;
	drain(B, t, t->rc);
	if (B->ordered && !t->index && !B->ended)
		end_all(B, t, NULL);
	pthread_mutex_unlock(&B->mu);
	return NULL;
}

/* Ordered: the stand-in sink of each thread. Thread 0's begin is the
 * sink's; sample() is never called (records are handed over), but makes
 * the pipeline resolve. */
static int stand_in_begin(void *ctx, struct pipeline *p)
{
	struct bthread *t = ctx;
	struct blocks *B = t->B;
	t->p = p;
	if (t->index) {
		/* the others start once the sink has begun: after a failed
		 * begin nothing runs (it would warn about what it resolves) */
		pthread_mutex_lock(&B->mu);
		while (!B->begun)
			pthread_cond_wait(&B->cv, &B->mu);
		int ok = B->begun > 0;
		pthread_mutex_unlock(&B->mu);
		return ok ? 0 : 1;
	}
	int rc = B->ordered->begin ? B->ordered->begin(B->ordered->ctx, p) : 0;
	pthread_mutex_lock(&B->mu);
	B->begun = rc ? -1 : 1;
	if (rc)
		B->abort = true; /* no block may be replayed on a sink that did not begin */
	pthread_cond_broadcast(&B->cv);
	pthread_mutex_unlock(&B->mu);
	return rc;
}

static int stand_in_sample(void *ctx, struct pipeline *p, const struct resolved_sample *rs)
{
	(void)ctx, (void)p, (void)rs;
	return -EINVAL;
}

int blocks_run(const struct pipeline_config *c, const struct blocks_config *bc, struct err *e)
{
	struct stat st;
	long cpus = bc->n ? 0 : sysconf(_SC_NPROCESSORS_ONLN);
	int n = bc->n ? bc->n : cpus > 0 ? (int)cpus : 1;
	/* stitching needs each thread's samples in order on one stitcher:
	 * only an ordered sink's replay has them */
	if (n < 2 || c->input_fd >= 0 || !c->input || !strcmp(c->input, "-") ||
	    stat(pipeline_input_file(c), &st) || !S_ISREG(st.st_mode) || c->unordered || (c->stitch && !bc->ordered))
		return 1;
	/* the header and attrs, to ask whether the sink's output can be cut */
	struct err e0 = { 0 };
	struct input *in = input_open_named(pipeline_input_file(c), c->input, c->tmpdir, &e0);
	if (!in)
		return 1; /* pipeline_run says what is wrong */
	bool ok = !input_header(in)->pipe &&
		  (!bc->eligible || bc->eligible(bc->ctx, input_header(in), input_evlist(in)));
	input_free(in);
	if (!ok)
		return 1;

	struct blocks *B = xcalloc(1, sizeof(*B));
	B->cfg = c;
	B->n = n;
	B->out = bc->out;
	B->out_fd = bc->out ? fileno(bc->out) : -1;
	B->ordered = bc->ordered;
	pthread_mutex_init(&B->mu, NULL);
	pthread_cond_init(&B->cv, NULL);
	hmap_init(&B->warned);
	B->t = xcalloc((size_t)n, sizeof(*B->t));
	B->limit = UINT64_MAX;
	/* thread 0 alone reads and orders the input and the others take its
	 * records (analyze/parallel/feed.h). Text blocks of 128 records: the
	 * feed's ring holds the
	 * blocks given ahead, and their records' chunks (peak RSS of `script
	 * -j 2/4/8` on the 916 MB build recording 70/124/217 MB, 73/140/251
	 * with 256, and 110-114 MB at -j 2 with 1024; CPU and wall the same
	 * within noise at -j 2) */
	uint64_t size = bc->size ? bc->size : B->ordered ? BLOCK_RECORDS_ORDERED : BLOCK_RECORDS_TEXT;
	int rc = 0, started = 0;
	/* the ring: each follower's backlog of blocks, the one it makes and the
	 * one thread 0 makes, at least 512 records */
	/* a follower of script -j 2 is given up to 6 text blocks ahead, not 2:
	 * resolving its samples is cheaper than thread 0's reading, ordering
	 * and resolving (prefetch_next in pipeline.c), and with 2 it waited
	 * for records and thread 0 made a third of the blocks. perfparser
	 * keeps 2: its writer replays every record in order, and 6 cost it
	 * time and memory. With more followers, 2 as well: thread 0's share
	 * is small already, and 6 would grow each follower's ring (the
	 * measures: commit messages, bench/jobs_bench.sh) */
	B->backlog = B->ordered || n > 2 ? BACKLOG_ORDERED : BACKLOG;
	uint64_t fcap = (B->backlog + 2) * size * (uint64_t)(n - 1);
	struct feed *feed = feed_new(n, fcap < 512 ? 512 : fcap > (1u << 20) ? (1u << 20) : (size_t)fcap);
	/* these are only read and written atomically */
	B->owners = xcalloc(OWNER_PAGES, sizeof(*B->owners));
	VALGRIND_HG_DISABLE_CHECKING(B->owners, OWNER_PAGES * sizeof(*B->owners));
	VALGRIND_HG_DISABLE_CHECKING(&B->leader_gone, sizeof(B->leader_gone));
	/* the unwinders convert each CFI row once between them */
	struct unwind_share *ush = unwind_share_new();
	struct stitch *sti = c->stitch && B->ordered && B->ordered->sample
				     ? stitch_new(c->max_frames, c->stitch_window, false) : NULL;
	for (int i = 0; i < n; i++) {
		struct bthread *t = &B->t[i];
		t->B = B;
		t->index = i;
		VALGRIND_HG_DISABLE_CHECKING(&t->completed, sizeof(t->completed));
		t->cfg = *c;
		t->pb = (struct pipeline_blocks){ .index = i, .n = n, .size = size,
			.done = on_done, .hand = on_hand, .failed = on_failed, .ordered = B->ordered != NULL,
			.barrier = on_barrier,
			.warn = on_warn, .late = on_late, .finish = on_finish, .ctx = B,
			.unwind_share = ush, .stitch = sti, .feed = feed, .mine = on_mine };
		t->cfg.blocks = &t->pb;
		t->cur = block_get(B, i);
		t->cur_text = &t->cur->text;
		if (B->ordered) {
			t->sink = (struct sink){ .ctx = t, .begin = stand_in_begin,
						 .sample = B->ordered->sample ? stand_in_sample : NULL };
			continue;
		}
		cookie_io_functions_t io = { .write = cookie_write };
		t->out = fopencookie(t, "w", io);
		if (!t->out || bc->make_sink(bc->ctx, i, t->out, &t->sink)) {
			rc = -ENOMEM;
			break;
		}
		if (!t->sink.jobs || !t->sink.jobs->format) {
			rc = -EINVAL;
			break;
		}
		if (t->sink.jobs->set_text)
			t->sink.jobs->set_text(t->sink.ctx, &t->cur_text);
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
			if (!B->begun && i == 0)
				B->begun = -1;
			pthread_cond_broadcast(&B->cv);
			pthread_mutex_unlock(&B->mu);
			break;
		}
		B->t[i].started = true;
		started++;
	}
	pthread_mutex_lock(&B->mu);
	for (int i = started; i < n; i++) {
		drain(B, &B->t[i], -EAGAIN); /* never started: no one waits for them */
		feed_leave(feed, i);
	}
	pthread_mutex_unlock(&B->mu);
	for (int i = 0; i < n; i++) {
		struct bthread *t = &B->t[i];
		if (t->started)
			pthread_join(t->th, NULL);
		else if (t->sink.end)
			t->sink.end(t->sink.ctx, NULL, -EAGAIN);
		if (t->out)
			fclose(t->out);
		block_free(t->cur);
		free(t->seen);
	}
	/* the error: the one -j 1 would meet (first_failed; every thread
	 * meets an input error alike), else the writing's */
	int f = first_failed(B, false);
	if (!rc && f >= 0) {
		rc = B->t[f].rc;
		*e = B->t[f].e;
	}
	/* every block written: pipeline 0's own warnings, as one pipeline
	 * says them at the end of the input; not after a failure another
	 * thread met or the writing (one pipeline stops there, before its
	 * end) */
	for (size_t i = 0; !rc && B->write_rc >= 0 && i < B->nr_late; i++)
		pipeline_warning_say(c, B->late[i]);
	if (!rc && B->write_rc < 0) {
		rc = B->write_rc;
		if (B->ordered) /* as pipeline_run says a sink's error */
			err_set(e, rc, "analysis failed (%s)", strerror(-rc));
		else
			err_set(e, rc, "writing the output failed (%s)", strerror(-rc));
	}
	if (!rc && B->end_rc < 0)
		rc = B->end_rc; /* as pipeline_run gives the sink's end's error */
	if (!rc && started < n) {
		rc = -EAGAIN;
		err_set(e, rc, "could not start %d threads", n);
	}
	if (!B->ordered && !rc && fflush(bc->out)) {
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
	feed_free(feed);
	for (size_t i = 0; i < OWNER_PAGES; i++)
		free(B->owners[i]);
	free(B->owners);
	unwind_share_free(ush);
	stitch_free(sti);
	a2l_state_release(&B->a2l);
	hmap_release(&B->warned);
	for (size_t i = 0; i < B->nr_late; i++)
		free(B->late[i]);
	free(B->late);
	pthread_cond_destroy(&B->cv);
	pthread_mutex_destroy(&B->mu);
	bool ran = B->t[0].started;
	free(B->t);
	free(B);
	if (!ran && rc)
		return 1;
	return rc;
}
