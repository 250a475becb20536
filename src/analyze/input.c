/*
 * input.c: perf.data and pipe streams in, raw records out (see input.h).
 *
 * File mode maps the file for its header, attrs and features, and preads
 * the data section into chunks; inputs of one file on several threads may
 * share those chunks (shared reading, below). With SCORCH_INPUT_WINDOWS=1
 * the data is taken from the same mapping in windows instead: refcounted
 * chunks that point into it (window_next), records handed out in place, no
 * copy; a window no record is held from any more has its pages dropped
 * from the process (window_drop), so the mapping's resident part stays the
 * records in use (where no SIGBUS slot is left, pread again). Pipe mode
 * (header size 16, from a pipe or a saved stream) reads into chunks as the
 * stream comes. COMPRESSED records feed one zstd stream whose output is cut
 * into records; a record may continue in the next COMPRESSED record, so the
 * partial tail is kept.
 *
 * Records are handed out 8-byte aligned: a misaligned one (hostile sizes) or
 * one that must be byte-swapped is copied to a scratch buffer first.
 * Payloads that follow a record outside its size (HEADER_TRACING_DATA,
 * AUXTRACE) are skipped here (tracing data is kept in the header).
 */
#include "analyze/input.h"
#include "util/load.h"
#include "util/sys.h"
#include "util/xalloc.h"
#include "perf/swap.h"
#include <byteswap.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define PIPE_CHUNK (256 * 1024)
#define READ_CHUNK ((size_t)256 << 10)
#define WINDOW ((size_t)4 << 20)
#define CHUNK_LIMIT ((size_t)512 << 20)
#define DECOMP_LIMIT ((size_t)256 << 20)

struct input {
	char *name;
	int fd;
	bool own_fd;
	bool pipe;          /* pipe format (records only) */
	bool from_stream;   /* size unknown (a pipe) */
	bool from_file_spill; /* a file-format stream, put in a temporary file (spill_stream) */
	bool memwalk;       /* data walked in memory (a file-format stream read whole) */
	bool eof;
	bool feed;          /* fed from memory (input_feed), never at its end */
	const uint8_t *fp;  /* feed: bytes not yet taken */
	size_t fn;
	/* the file, mapped (or read whole) for its header, attrs and features */
	const uint8_t *map;
	size_t map_len;
	bool mapped;
	uint64_t pos, end;  /* memwalk: position / end of the data section */
	/* chunked reading of the data: pread(rd_off..rd_end) or read() */
	struct input_chunk *cur;
	size_t cpos;         /* parse position in cur */
	uint64_t cur_off;    /* input offset of cur->data[0] */
	bool use_pread;
	bool windows;        /* the data taken in place from the mapping (window_next) */
	int fault_slot;      /* windows: its SIGBUS slot (input_fault), else -1 */
	size_t window;       /* windows: their size (SCORCH_INPUT_WINDOW for tests) */
	uint64_t rd_off, rd_end;
	struct input_chunk *whole; /* memwalk: the chunk holding the whole input */
	struct input_chunk *pool;  /* free chunks */
	struct input_share *share; /* shared reading (input_share_attach) */
	int share_reader;
	struct input_chunk *views;  /* free views of shared chunks (share_view) */
	void (*meta_fn)(void *ctx); /* input_set_meta_hook */
	void *meta_ctx;
	/* decompression */
	ZSTD_DStream *zd;
	struct buf dbuf;
	size_t dpos;
	uint64_t comp_off;
	/* scratch for aligned / swapped copies */
	struct buf scratch;
	struct perf_header hdr;
	struct perf_evlist el;
	struct input_stats st;
};

struct perf_evlist *input_evlist(struct input *in) { return &in->el; }
struct perf_header *input_header(struct input *in) { return &in->hdr; }
const struct input_stats *input_stats(const struct input *in) { return &in->st; }
uint64_t input_size(const struct input *in) { return in->from_stream ? 0 : in->map_len; }
uint64_t input_pos(const struct input *in) { return in->memwalk ? in->pos : in->cur_off + in->cpos; }

/* A shared chunk's count is an atomic reference count: the thread whose
 * decrement reaches zero returns the chunk to the pool, and what the other
 * holders did with it happened before (their release, its acquire).
 * helgrind does not see that order through atomics, so it is told
 * (ANNOTATE_HAPPENS_BEFORE/AFTER, valgrind's documented way for reference
 * counts), and the count itself, only ever changed atomically but for its
 * first value (set by the one thread that took the chunk from the pool),
 * is not checked (VALGRIND_HG_DISABLE_CHECKING where the chunk is made).
 * None of it does anything outside valgrind. Without them, a chunk reused
 * from the pool was reported as a race between an earlier holder's
 * decrement and the new count (script -j 3, blocks of 5 records: in 9 of
 * 22 runs; with them, none in 32). */
#include "util/annotate.h"

void input_chunk_get(struct input_chunk *c)
{
	if (c->share)
		__atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
	else
		c->refs++;
}

static void share_release(struct input_chunk *c);
static void window_drop(struct input_chunk *c);

/* Chunks return to the input's free list (the pages stay mapped and warm:
 * a fresh multi-MB malloc is fresh page faults); the list is freed with the
 * input, which must therefore outlive every holder of a chunk. */
void input_chunk_put(struct input_chunk *c)
{
	if (!c)
		return;
	if (c->share) {
		ANNOTATE_HAPPENS_BEFORE(&c->refs);
		if (!__atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL)) {
			ANNOTATE_HAPPENS_AFTER(&c->refs);
			share_release(c);
		}
		return;
	}
	if (--c->refs)
		return;
	if (c->under) {
		input_chunk_put(c->under);
		c->under = NULL;
	}
	if (c->window) {
		window_drop(c);
		return;
	}
	if (c->pool) {
		c->next = *c->pool;
		*c->pool = c;
	} else {
		free(c);
	}
}

/*
 * A mapped file that shrinks while it is read (or whose pages cannot be
 * read: an I/O error) raises SIGBUS where pread would have returned short.
 * The mappings read in windows are registered; the handler puts a page of
 * zeros where the fault was, notes its address in the mapping's slot and
 * returns, so the access completes; the pipeline then ends with one error
 * line about the file (input_fault), whatever it made of the zeros. A
 * SIGBUS anywhere else is not ours: the previous handling is put back
 * and the fault happens again under it.
 */
#define FAULT_SLOTS 64
static struct fault_slot {
	uintptr_t lo, hi;        /* the mapping; lo 0: free, 1: being taken */
	uintptr_t at;            /* the first address that faulted, 0: none */
} fault_slots[FAULT_SLOTS];
static struct sigaction fault_prev;
static uintptr_t page_size;
static pthread_once_t fault_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t fault_mu = PTHREAD_MUTEX_INITIALIZER; /* taking and freeing slots */

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	int saved = errno;
	uintptr_t a = (uintptr_t)si->si_addr;
	for (int i = 0; i < FAULT_SLOTS; i++) {
		struct fault_slot *f = &fault_slots[i];
		uintptr_t lo = __atomic_load_n(&f->lo, __ATOMIC_ACQUIRE);
		if (lo <= 1 || a < lo || a >= __atomic_load_n(&f->hi, __ATOMIC_RELAXED))
			continue; /* free, being taken (1), or not this one */
		uintptr_t pg = a & ~(page_size - 1);
		if (mmap((void *)pg, page_size, PROT_READ, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) ==
		    MAP_FAILED)
			break;
		uintptr_t none = 0;
		__atomic_compare_exchange_n(&f->at, &none, a, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
		errno = saved;
		return;
	}
	sigaction(sig, &fault_prev, NULL);
	errno = saved;
}

static void fault_install(void)
{
	page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &fault_prev))
		page_size = 0;
}

/* A slot for the mapping [p, p + n), or -1 (then the file is read with pread). */
static int fault_register(const void *p, size_t n)
{
	pthread_once(&fault_once, fault_install);
	if (!page_size)
		return -1;
	/* the handler reads the slots without the lock (it may interrupt
	 * a holder): a slot is published by its lo, stored last */
	pthread_mutex_lock(&fault_mu);
	int got = -1;
	for (int i = 0; i < FAULT_SLOTS && got < 0; i++) {
		if (__atomic_load_n(&fault_slots[i].lo, __ATOMIC_RELAXED))
			continue;
		__atomic_store_n(&fault_slots[i].lo, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&fault_slots[i].at, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&fault_slots[i].hi, (uintptr_t)p + n, __ATOMIC_RELAXED);
		__atomic_store_n(&fault_slots[i].lo, (uintptr_t)p, __ATOMIC_RELEASE);
		got = i;
	}
	pthread_mutex_unlock(&fault_mu);
	return got;
}

static void fault_unregister(int i)
{
	if (i < 0)
		return;
	pthread_mutex_lock(&fault_mu);
	__atomic_store_n(&fault_slots[i].hi, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&fault_slots[i].lo, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&fault_mu);
}

int input_fault(const struct input *in, struct err *e)
{
	if (in->fault_slot < 0)
		return 0;
	uintptr_t at = __atomic_load_n(&fault_slots[in->fault_slot].at, __ATOMIC_ACQUIRE);
	if (!at)
		return 0;
	uint64_t off = at - (uintptr_t)in->map;
	e->set = 0;
	return err_at(e, off, "the file could not be read here: it is shorter than when it was opened "
			      "(%zu bytes), or an I/O error", in->map_len);
}

/* A window nobody holds any more: its pages leave the process (they stay
 * in the page cache), so what is mapped is what is in use, not all that
 * was read. The page it ends in may begin the next window: that one drops it. */
static void window_drop(struct input_chunk *c)
{
	uintptr_t pg = page_size;
	uintptr_t a = (uintptr_t)c->data & ~(pg - 1), b = ((uintptr_t)c->data + c->len) & ~(pg - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
	free(c);
}

/* A chunk of at least cap bytes off a free list, or NULL. */
static struct input_chunk *pool_take(struct input_chunk **pool, size_t cap)
{
	struct input_chunk **pp = pool;
	while (*pp && (*pp)->cap < cap)
		pp = &(*pp)->next;
	struct input_chunk *c = *pp;
	if (c)
		*pp = c->next;
	return c;
}

static void pool_free(struct input_chunk **pool)
{
	while (*pool) {
		struct input_chunk *c = *pool;
		*pool = c->next;
		free(c);
	}
}

static struct input_chunk *chunk_new(struct input *in, size_t cap)
{
	struct input_chunk *c = pool_take(&in->pool, cap);
	if (!c) {
		c = xmalloc_input(sizeof(*c) + cap, sizeof(*c) + 4 * CHUNK_LIMIT);
		if (!c)
			return NULL;
		c->data = (uint8_t *)(c + 1);
		c->window = false;
		c->cap = cap;
		c->pool = &in->pool;
		c->share = NULL;
		c->under = NULL;
	}
	c->refs = 1;
	c->len = 0;
	c->next = NULL;
	return c;
}
const char *input_name(const struct input *in) { return in->name; }

bool input_in_place(const struct input *in)
{
	return in->windows;
}

/* ---- shared reading (input.h) ------------------------------------------ */

/* Chunks read and wanted by a reader that has not taken them yet. Readers
 * move forward only, so a chunk before every reader's place is dropped;
 * so is the oldest when the table is full (a reader far behind the others
 * or one that cuts the data otherwise): whoever comes for it later reads
 * it again. */
#define SHARE_ENTRIES 128

struct share_ent {
	uint64_t off, end;       /* where the chunk starts; the data section's end */
	size_t want;             /* its size in the cutting */
	struct input_chunk *c;   /* NULL while being read */
	bool eof;                /* the data ended within it */
};

struct input_share {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int n;
	uint64_t *at;            /* each reader's place: where the chunk it came for last
				  * starts (0: none yet; UINT64_MAX: gone) */
	int nent;
	struct share_ent ent[SHARE_ENTRIES]; /* oldest first */
	struct input_chunk *pool;
	uint64_t bytes;          /* read from the file, by all */
};

struct input_share *input_share_new(int n)
{
	struct input_share *s = xcalloc(1, sizeof(*s));
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->n = n;
	s->at = xcalloc((size_t)n, sizeof(*s->at));
	return s;
}

/* A shared chunk nobody holds any more: back to the share's free list. */
static void share_release(struct input_chunk *c)
{
	struct input_share *s = c->share;
	pthread_mutex_lock(&s->mu);
	c->next = s->pool;
	s->pool = c;
	pthread_mutex_unlock(&s->mu);
}

/* Under the lock: drop the chunks no reader will come for: every reader
 * still reading has come for a later one (one that came for this one may
 * still be waiting for it to be read). Their table references go to
 * drop[], to put after unlocking. Returns how many. */
static int share_sweep(struct input_share *s, struct input_chunk **drop)
{
	uint64_t low = UINT64_MAX;
	for (int i = 0; i < s->n; i++)
		if (s->at[i] < low)
			low = s->at[i];
	int nd = 0, k = 0;
	for (int i = 0; i < s->nent; i++) {
		struct share_ent *x = &s->ent[i];
		if (x->c && x->off < low)
			drop[nd++] = x->c;
		else
			s->ent[k++] = *x;
	}
	s->nent = k;
	return nd;
}

static void put_all(struct input_chunk **c, int n)
{
	for (int i = 0; i < n; i++)
		input_chunk_put(c[i]);
}

void input_share_leave(struct input_share *s, int reader)
{
	struct input_chunk *drop[SHARE_ENTRIES];
	pthread_mutex_lock(&s->mu);
	s->at[reader] = UINT64_MAX;
	int nd = share_sweep(s, drop);
	pthread_mutex_unlock(&s->mu);
	put_all(drop, nd);
}

void input_share_attach(struct input *in, struct input_share *s, int reader)
{
	if (!in->use_pread || in->windows || in->memwalk || in->feed || in->cur) {
		input_share_leave(s, reader);
		return;
	}
	in->share = s;
	in->share_reader = reader;
}

void input_share_free(struct input_share *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nent; i++)
		free(s->ent[i].c); /* the table's reference was the last */
	pool_free(&s->pool);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s->at);
	free(s);
}

uint64_t input_share_bytes(struct input_share *s)
{
	return __atomic_load_n(&s->bytes, __ATOMIC_RELAXED);
}

/* Under the lock: entry i leaves the table (the order of the rest kept). */
static void share_remove(struct input_share *s, int i)
{
	memmove(&s->ent[i], &s->ent[i + 1], (size_t)(s->nent - i - 1) * sizeof(s->ent[0]));
	s->nent--;
}

static int share_find(struct input_share *s, uint64_t off, size_t want, uint64_t end)
{
	for (int i = 0; i < s->nent; i++)
		if (s->ent[i].off == off && s->ent[i].want == want && s->ent[i].end == end)
			return i;
	return -1;
}

/* Read a chunk: want bytes of the data from off, fewer where it ends. */
static int share_read(struct input *in, struct input_chunk *c, uint64_t off, size_t want, struct err *e)
{
	c->len = 0;
	while (c->len < want && off + c->len < in->rd_end) {
		size_t n = want - c->len;
		if (n > in->rd_end - off - c->len)
			n = (size_t)(in->rd_end - off - c->len);
		ssize_t r = pread(in->fd, c->data + c->len, n, (off_t)(off + c->len));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return err_set(e, -errno, "read error: %s", strerror(errno));
		if (r == 0)
			break;
		c->len += (size_t)r;
	}
	return 0;
}

/* The data is read up to end (a chunk or window that ends there). */
static void read_to(struct input *in, uint64_t end)
{
	if (end > in->rd_off) {
		in->st.bytes_read += end - in->rd_off;
		in->rd_off = end;
	}
}

/* The size of a chunk or window for a record of n bytes: base, doubled
 * until it holds two; -E2BIG past CHUNK_LIMIT. */
static int chunk_cap(size_t base, size_t n, size_t *cap, struct err *e)
{
	*cap = base;
	if (n > CHUNK_LIMIT)
		return err_set(e, -E2BIG, "a record of %zu bytes is larger than %zu MiB", n, CHUNK_LIMIT >> 20);
	while (*cap < n * 2)
		*cap *= 2;
	return 0;
}

/* This input's view of the shared chunk c, taking over the reference it
 * holds: its records' references are counted on the view, by this input's
 * thread alone, instead of on c, whose count every reader's records would
 * move (a cache line the threads took from each other at every record:
 * input_chunk_put had 3% of `perfparser -j 2`'s samples). */
static struct input_chunk *share_view(struct input *in, struct input_chunk *c)
{
	struct input_chunk *v = in->views;
	if (v)
		in->views = v->next;
	else
		v = xmalloc(sizeof(*v));
	v->refs = 1;
	v->cap = c->cap;
	v->len = c->len;
	v->pool = &in->views;
	v->share = NULL;
	v->next = NULL;
	v->window = false;
	v->under = c;
	v->data = c->data;
	return v;
}

/*
 * The next chunk of a shared reading: the data from off, want bytes (fewer
 * where the data ends), taken from the table or read and put there. It
 * becomes in->cur as chunk_fill would make it: the same bytes at the same
 * place, read ahead to the same point.
 */
static int share_next(struct input *in, uint64_t off, size_t want, struct err *e)
{
	struct input_share *s = in->share;
	struct input_chunk *c = NULL, *drop[SHARE_ENTRIES + 1];
	int nd = 0;
	bool eof = false, taken = false, publish = false;
	pthread_mutex_lock(&s->mu);
	s->at[in->share_reader] = off;
	for (;;) {
		int i = share_find(s, off, want, in->rd_end);
		if (i < 0)
			break;
		struct share_ent *x = &s->ent[i];
		if (!x->c) { /* another reader is reading it */
			pthread_cond_wait(&s->cv, &s->mu);
			continue;
		}
		c = x->c;
		eof = x->eof;
		taken = true;
		__atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
		break;
	}
	nd = share_sweep(s, drop);
	if (!taken) {
		/* read it, with a place in the table first: the others wait
		 * for this read instead of making their own */
		if (s->nent == SHARE_ENTRIES)
			for (int i = 0; i < s->nent; i++)
				if (s->ent[i].c) {
					drop[nd++] = s->ent[i].c;
					share_remove(s, i);
					break;
				}
		if (s->nent < SHARE_ENTRIES) {
			s->ent[s->nent++] = (struct share_ent){ .off = off, .want = want, .end = in->rd_end };
			publish = true;
		}
		c = pool_take(&s->pool, want);
	}
	pthread_mutex_unlock(&s->mu);
	put_all(drop, nd);

	if (!taken) {
		int rc = 0;
		if (!c && (c = xmalloc_input(sizeof(*c) + want, sizeof(*c) + 4 * CHUNK_LIMIT))) {
			VALGRIND_HG_DISABLE_CHECKING(&c->refs, sizeof(c->refs));
			c->data = (uint8_t *)(c + 1);
			c->window = false;
			c->cap = want;
			c->pool = NULL;
			c->share = s;
			c->under = NULL;
		}
		if (c) {
			c->refs = publish ? 2 : 1; /* this input's, the table's */
			c->next = NULL;
			rc = share_read(in, c, off, want, e);
			__atomic_add_fetch(&s->bytes, c->len, __ATOMIC_RELAXED);
			eof = c->len < want || off + c->len >= in->rd_end;
		} else {
			rc = err_set(e, -ENOMEM, "out of memory reading the input");
		}
		if (publish) {
			pthread_mutex_lock(&s->mu);
			int i = share_find(s, off, want, in->rd_end);
			if (rc) {
				share_remove(s, i); /* whoever waits for it reads it for itself */
			} else {
				s->ent[i].c = c;
				s->ent[i].eof = eof;
			}
			nd = share_sweep(s, drop);
			pthread_cond_broadcast(&s->cv);
			pthread_mutex_unlock(&s->mu);
			put_all(drop, nd);
		}
		if (rc) {
			if (c) {
				c->refs = 1;
				input_chunk_put(c);
			}
			return rc;
		}
	}
	input_chunk_put(in->cur);
	in->cur = share_view(in, c);
	in->cur_off = off;
	in->cpos = 0;
	read_to(in, off + c->len);
	in->eof = eof;
	return 0;
}

/* ---- reading a stream ---------------------------------------------------- */

/*
 * The next window of a mapped file: the data from where parsing is, at
 * least n bytes (fewer where the data ends), as a chunk that points into
 * the mapping. No copy: records are read where the page cache has them.
 */
static int window_next(struct input *in, size_t n, struct err *e)
{
	int f = input_fault(in, e);
	if (f)
		return f;
	uint64_t pos = in->cur ? in->cur_off + in->cpos : in->rd_off;
	size_t cap;
	if ((f = chunk_cap(in->window, n, &cap, e)))
		return f;
	uint64_t end = pos > in->rd_end ? pos : in->rd_end;
	if (end - pos > cap)
		end = pos + cap;
	struct input_chunk *c = xmalloc(sizeof(*c));
	c->refs = 1;
	c->cap = c->len = (size_t)(end - pos);
	c->pool = NULL;
	c->share = NULL;
	c->under = NULL;
	c->next = NULL;
	c->window = true;
	c->data = (uint8_t *)in->map + pos;
	input_chunk_put(in->cur);
	in->cur = c;
	in->cur_off = pos;
	in->cpos = 0;
	read_to(in, end);
	if (end >= in->rd_end)
		in->eof = true;
	return 0;
}

/*
 * Make at least n bytes available at cur->data + cpos. 1: yes, 0: the input
 * ends first. A chunk that cannot hold n more bytes is replaced by a new one
 * that starts with the unread tail; the old one lives on while records
 * handed out from it are referenced.
 */
static int chunk_fill(struct input *in, size_t n, struct err *e)
{
	while (!in->cur || in->cur->len - in->cpos < n) {
		if (in->eof)
			return 0;
		if (in->windows) {
			int r = window_next(in, n, e);
			if (r)
				return r;
			continue;
		}
		if (!in->cur || in->share || in->cur->cap - in->cpos < n ||
		    in->cur->cap - in->cur->len < PIPE_CHUNK / 4) {
			size_t tail = in->cur ? in->cur->len - in->cpos : 0;
			size_t cap;
			int r = chunk_cap(READ_CHUNK, n, &cap, e);
			if (r)
				return r;
			if (in->share) {
				/* a shared chunk is read whole (up to the data's
				 * end) and never read into again */
				if ((r = share_next(in, in->cur_off + in->cpos, cap, e)))
					return r;
				continue;
			}
			struct input_chunk *c;
			if (in->cur && in->cur->refs == 1 && in->cur->cap >= cap) {
				/* nothing handed out still uses it: reuse in place */
				c = in->cur;
				memmove(c->data, c->data + in->cpos, tail);
			} else {
				c = chunk_new(in, cap);
				if (!c)
					return err_set(e, -ENOMEM, "out of memory reading the input");
				if (tail)
					memcpy(c->data, in->cur->data + in->cpos, tail);
				input_chunk_put(in->cur);
			}
			c->len = tail;
			in->cur_off += in->cpos;
			in->cpos = 0;
			in->cur = c;
		}
		struct input_chunk *c = in->cur;
		size_t want = c->cap - c->len;
		ssize_t r;
		if (in->feed) {
			if (!in->fn)
				return 0; /* until the next input_feed */
			r = (ssize_t)(want < in->fn ? want : in->fn);
			memcpy(c->data + c->len, in->fp, (size_t)r);
			in->fp += r;
			in->fn -= (size_t)r;
		} else if (in->use_pread) {
			if (in->rd_off >= in->rd_end) {
				in->eof = true;
				return 0;
			}
			if (want > in->rd_end - in->rd_off)
				want = (size_t)(in->rd_end - in->rd_off);
			r = pread(in->fd, c->data + c->len, want, (off_t)in->rd_off);
		} else {
			r = read(in->fd, c->data + c->len, want);
		}
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return err_set(e, -errno, "read error: %s", strerror(errno));
		}
		if (r == 0) {
			in->eof = true;
			return 0;
		}
		c->len += (size_t)r;
		in->rd_off += (size_t)r;
		in->st.bytes_read += (size_t)r;
	}
	return 1;
}

/* Skip n bytes of the input (a payload nobody reads). */
static int chunk_skip(struct input *in, uint64_t n, struct err *e)
{
	uint64_t have = in->cur ? in->cur->len - in->cpos : 0;
	if (n <= have) {
		in->cpos += n;
		return 1;
	}
	n -= have;
	in->cpos += have;
	if (in->use_pread) {
		if (n > in->rd_end - in->rd_off)
			return 0;
		in->rd_off += n;
		in->cur_off += n;
		return 1;
	}
	while (n) {
		size_t k = n > PIPE_CHUNK ? PIPE_CHUNK : (size_t)n;
		int r = chunk_fill(in, k, e);
		if (r <= 0)
			return r;
		in->cpos += k;
		n -= k;
	}
	return 1;
}

/* ---- header ------------------------------------------------------------- */

static int read_file_header(struct input *in, struct err *e)
{
	const uint8_t *m = in->map;
	if (in->map_len < 16)
		return err_at(e, 0, "file too small for a perf.data header (%zu bytes)", in->map_len);
	uint64_t magic = load_u64(m), hsize = load_u64(m + 8);
	if (magic == PERF_MAGIC2_SWAPPED) {
		in->hdr.swap = in->el.swap = true;
		hsize = bswap_64(hsize);
	} else if (magic != PERF_MAGIC2) {
		return err_at(e, 0, "bad magic: not a perf.data file (PERFILE2)");
	}
	if (hsize == sizeof(struct perf_pipe_file_header)) {
		in->pipe = in->hdr.pipe = true;
		in->pos = in->rd_off = in->cur_off = 16;
		in->end = in->rd_end = in->map_len;
		return 0;
	}
	if (hsize < PERF_FILE_HEADER_SIZE || in->map_len < PERF_FILE_HEADER_SIZE)
		return err_at(e, 8, "header size %llu is not %d", (unsigned long long)hsize, PERF_FILE_HEADER_SIZE);
	struct perf_file_header fh;
	memcpy(&fh, m, sizeof(fh));
	if (in->hdr.swap)
		perf_u64s_swap((uint64_t *)&fh, sizeof(fh) / 8);
	memcpy(in->hdr.features, fh.adds_features, sizeof(fh.adds_features));
	in->hdr.attr_size = fh.attr_size;
	uint64_t flen = in->map_len;
	if (fh.data.offset > flen || fh.data.offset < hsize)
		return err_at(e, 40, "data section offset %llu is outside the file (%llu bytes)",
			      (unsigned long long)fh.data.offset, (unsigned long long)flen);
	uint64_t dsize = fh.data.size;
	/* A file whose recording was cut short has data.size 0 or too large:
	 * read what is there (perf and perfparser do the same). */
	if (dsize == 0 || dsize > flen - fh.data.offset)
		dsize = flen - fh.data.offset;
	in->hdr.data_offset = fh.data.offset;
	in->hdr.data_size = dsize;
	in->pos = in->rd_off = in->cur_off = fh.data.offset;
	in->end = in->rd_end = fh.data.offset + dsize;

	/* attrs */
	if (fh.attr_size < PERF_ATTR_SIZE_MIN + 16 || fh.attr_size > 4096)
		return err_at(e, 16, "attr size %llu is invalid", (unsigned long long)fh.attr_size);
	if (fh.attrs.offset > flen || fh.attrs.size > flen - fh.attrs.offset)
		return err_at(e, 24, "attrs section (offset %llu, size %llu) is outside the file",
			      (unsigned long long)fh.attrs.offset, (unsigned long long)fh.attrs.size);
	uint64_t nattr = fh.attrs.size / fh.attr_size;
	if (nattr == 0)
		return err_at(e, 24, "file has no event attrs");
	for (uint64_t i = 0; i < nattr; i++) {
		uint64_t ao = fh.attrs.offset + i * fh.attr_size;
		uint32_t asz = (uint32_t)(fh.attr_size - 16);
		uint8_t abuf[4096];
		memcpy(abuf, m + ao, asz);
		struct perf_file_section ids;
		memcpy(&ids, m + ao + asz, 16);
		if (in->hdr.swap) {
			perf_attr_swap(abuf, asz);
			perf_u64s_swap((uint64_t *)&ids, 2);
		}
		if (ids.offset > flen || ids.size > flen - ids.offset)
			return err_at(e, ao + asz, "attr %llu ids (offset %llu, size %llu) are outside the file",
				      (unsigned long long)i, (unsigned long long)ids.offset,
				      (unsigned long long)ids.size);
		size_t nids = ids.size / 8;
		uint64_t *idv = NULL;
		if (nids) {
			idv = xmalloc(nids * 8);
			memcpy(idv, m + ids.offset, nids * 8);
			if (in->hdr.swap)
				perf_u64s_swap(idv, nids);
		}
		int rc = perf_evlist_add(&in->el, abuf, asz, idv, nids, ao, e);
		free(idv);
		if (rc)
			return rc;
	}
	perf_evlist_finalize(&in->el);

	/* features: one section per set bit, after the data section */
	uint64_t fo = fh.data.offset + fh.data.size;
	in->hdr.feat_offset = fo;
	if (in->hdr.swap)
		return 0; /* feature payloads of opposite-endian files are not decoded */
	unsigned nfeat = 0;
	for (unsigned b = 0; b < PERF_FEAT_BITS; b++)
		if (perf_header_has(&in->hdr, b))
			nfeat++;
	/* A file cut short (a killed recording) loses its features, not its
	 * data: features that are not all there are skipped. */
	if (nfeat && (fo > flen || (uint64_t)nfeat * 16 > flen - fo)) {
		in->hdr.features_skipped = nfeat;
		return 0;
	}
	unsigned k = 0;
	for (unsigned b = 0; b < PERF_FEAT_BITS; b++) {
		if (!perf_header_has(&in->hdr, b))
			continue;
		struct perf_file_section s;
		memcpy(&s, m + fo + 16 * k, 16);
		k++;
		if (s.offset > flen || s.size > flen - s.offset) {
			in->hdr.features_skipped++;
			continue;
		}
		int rc = perf_header_parse_feature(&in->hdr, &in->el, b, m + s.offset, s.size, s.offset, e);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- open / close ------------------------------------------------------- */

static struct input *input_alloc(const char *name)
{
	struct input *in = xcalloc(1, sizeof(*in));
	in->name = xstrdup(name);
	in->fd = -1;
	in->fault_slot = -1;
	perf_header_init(&in->hdr);
	perf_evlist_init(&in->el);
	buf_init(&in->dbuf, DECOMP_LIMIT);
	buf_init(&in->scratch, 1 << 20);
	return in;
}

/* Where temporary files go: $TMPDIR, else /tmp. */
static const char *temp_dir(void)
{
	const char *dir = getenv("TMPDIR");
	return dir && *dir ? dir : "/tmp";
}

/* A temporary file, already unlinked, in dir; -1 when none can be made. */
static int temp_file(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	/* a file system without O_TMPFILE */
	char path[4096];
	if (snprintf(path, sizeof(path), "%s/scorch-input-XXXXXX", dir) >= (int)sizeof(path))
		return -1;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

/*
 * A file-format stream (from a pipe: its features come after the data, and
 * they say which files the samples ran in) is kept in an unlinked
 * temporary file, then read as any file: memory stays that of a file
 * however big the stream. The bytes read so far (in->cur) go first. 1: the
 * input is now that file; 0: no temporary file could be made (the caller
 * reads the stream into memory instead); negative: an error, in e.
 */
static int spill_stream(struct input *in, struct err *e)
{
	const char *dir = temp_dir();
	int fd = temp_file(dir);
	if (fd < 0)
		return 0;
	uint64_t total = in->cur->len;
	int rc = sys_write_all(fd, in->cur->data, in->cur->len, false);
	uint8_t *buf = NULL;
	bool use_splice = true;
	while (!rc) {
		ssize_t r;
		if (use_splice) {
			r = splice(in->fd, NULL, fd, NULL, (size_t)1 << 20, SPLICE_F_MOVE);
			if (r < 0 && errno == EINVAL) {
				use_splice = false; /* not a pipe: read and write */
				continue;
			}
			if (r < 0 && errno != EINTR) {
				rc = -errno; /* the file's side, mostly (ENOSPC) */
				break;
			}
		} else {
			if (!buf)
				buf = xmalloc(PIPE_CHUNK);
			r = read(in->fd, buf, PIPE_CHUNK);
			if (r > 0 && (rc = sys_write_all(fd, buf, (size_t)r, false)))
				break;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = err_at(e, total, "read error: %s", strerror(errno));
			break;
		}
		if (r == 0)
			break;
		total += (uint64_t)r;
	}
	free(buf);
	if (rc && !e->set)
		err_at(e, total, "cannot keep the input stream in %s: %s", dir, strerror(-rc));
	if (rc) {
		close(fd);
		return rc;
	}
	input_chunk_put(in->cur);
	in->cur = NULL;
	in->cpos = 0;
	in->cur_off = in->rd_off = 0;
	in->eof = false;
	in->st.bytes_read = 0;
	if (in->own_fd)
		close(in->fd);
	in->fd = fd;
	in->own_fd = true;
	return 1;
}

static struct input *open_common(struct input *in, struct err *e)
{
	struct stat st;
again:
	if (fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		/* the header, attrs and features are read through a mapping; the
		 * data section with pread into chunks: cheaper than faulting in
		 * every page of a multi-GB mapping, and records stay zero-copy */
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, in->fd, 0);
		if (m != MAP_FAILED) {
			in->map = m;
			in->map_len = (size_t)st.st_size;
			in->mapped = true;
			in->use_pread = true;
			/* the data with pread by default: read in place, it
			 * saves the copy but touches every page of the mapping,
			 * which cost more than the copy on some VMs
			 * (docs/input.md: 1.24-1.80x the CPU on one, 0.81x on
			 * another); SCORCH_INPUT_WINDOWS=1 reads in place */
			const char *w = getenv("SCORCH_INPUT_WINDOWS");
			if (w && *w && strcmp(w, "0"))
				in->fault_slot = fault_register(m, in->map_len);
			in->windows = in->fault_slot >= 0;
			const char *ws = getenv("SCORCH_INPUT_WINDOW");
			in->window = ws && atol(ws) >= 64 ? (size_t)atol(ws) : WINDOW;
			if (read_file_header(in, e)) {
				input_free(in);
				return NULL;
			}
			return in;
		}
	}
	/* a stream: pipe format is read incrementally; a file-format stream
	 * (needs seeking) is read whole first */
	in->from_stream = true;
	int r = chunk_fill(in, 16, e);
	if (r <= 0) {
		if (!e->set)
			err_at(e, in->cur ? in->cur->len : 0, "input too small for a perf.data header (%zu bytes)",
			       in->cur ? in->cur->len : 0);
		input_free(in);
		return NULL;
	}
	uint64_t magic = load_u64(in->cur->data), hsize = load_u64(in->cur->data + 8);
	if (magic == PERF_MAGIC2_SWAPPED)
		hsize = bswap_64(hsize);
	else if (magic != PERF_MAGIC2) {
		err_at(e, 0, "bad magic: not a perf.data file (PERFILE2)");
		input_free(in);
		return NULL;
	}
	if (hsize == 16) {
		in->pipe = in->hdr.pipe = true;
		in->hdr.swap = in->el.swap = magic == PERF_MAGIC2_SWAPPED;
		in->cpos = 16;
		return in;
	}
	if (!in->feed && !in->from_file_spill) {
		in->from_file_spill = true;
		r = spill_stream(in, e);
		if (r < 0) {
			input_free(in);
			return NULL;
		}
		if (r > 0) {
			in->from_stream = false;
			goto again;
		}
	}
	/* no temporary file: the stream is read whole into memory */
	while ((r = chunk_fill(in, in->cur->len + 1, e)) > 0)
		;
	if (r < 0) {
		input_free(in);
		return NULL;
	}
	in->from_stream = false;
	in->memwalk = true;
	in->whole = in->cur;
	in->cur = NULL;
	in->map = in->whole->data;
	in->map_len = in->whole->len;
	if (read_file_header(in, e)) {
		input_free(in);
		return NULL;
	}
	return in;
}

struct input *input_open(const char *path, struct err *e)
{
	struct input *in = input_alloc(path);
	if (!strcmp(path, "-")) {
		in->fd = 0;
	} else {
		in->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (in->fd < 0) {
			err_set(e, -errno, "cannot open: %s", strerror(errno));
			input_free(in);
			return NULL;
		}
		in->own_fd = true;
	}
	return open_common(in, e);
}

struct input *input_open_fd(int fd, const char *name, struct err *e)
{
	struct input *in = input_alloc(name);
	in->fd = fd;
	return open_common(in, e);
}

struct input *input_open_feed(const char *name, const uint8_t *head, size_t n, struct err *e)
{
	struct input *in = input_alloc(name);
	in->feed = true;
	in->fp = head;
	in->fn = n;
	in = open_common(in, e);
	if (in && !in->pipe) {
		err_at(e, 0, "a fed input must be a pipe-format stream");
		input_free(in);
		return NULL;
	}
	return in;
}

void input_feed(struct input *in, const uint8_t *p, size_t n)
{
	in->fp = p;
	in->fn = n;
}

void input_free(struct input *in)
{
	if (!in)
		return;
	/* the last window first: dropping its pages needs the mapping (no
	 * other chunk outlives its input: input_chunk_put) */
	input_chunk_put(in->cur);
	fault_unregister(in->fault_slot); /* before the addresses can be mapped again */
	if (in->mapped)
		munmap((void *)in->map, in->map_len);
	if (in->own_fd)
		close(in->fd);
	if (in->zd)
		ZSTD_freeDStream(in->zd);
	if (in->share)
		input_share_leave(in->share, in->share_reader);
	input_chunk_put(in->whole);
	pool_free(&in->pool);
	pool_free(&in->views);
	buf_release(&in->dbuf);
	buf_release(&in->scratch);
	perf_header_release(&in->hdr);
	perf_evlist_release(&in->el);
	free(in->name);
	free(in);
}

/* ---- records ------------------------------------------------------------ */

/* One ZSTD_decompressStream call from ib into the free end of dbuf (grown by
 * 128 KiB, capped); *full: it filled all the room it had (more output may
 * be pending). flushing only words the limit's message. */
static int decompress_step(struct input *in, ZSTD_inBuffer *ib, uint64_t off, struct err *e,
			   bool flushing, bool *full)
{
	if (buf_reserve(&in->dbuf, 128 * 1024))
		return err_at(e, off, "decompressed data exceeds %zu MiB%s", DECOMP_LIMIT >> 20,
			      flushing ? "" : " without a complete record");
	ZSTD_outBuffer ob = { in->dbuf.data + in->dbuf.len, in->dbuf.cap - in->dbuf.len, 0 };
	size_t r = ZSTD_decompressStream(in->zd, &ob, ib);
	if (ZSTD_isError(r))
		return err_at(e, off, "zstd: %s", ZSTD_getErrorName(r));
	in->dbuf.len += ob.pos;
	in->st.decompressed_bytes += ob.pos;
	*full = ob.pos == ob.size;
	return 0;
}

static int decompress(struct input *in, const uint8_t *p, size_t n, uint64_t off, struct err *e)
{
	if (!in->zd) {
		in->zd = ZSTD_createDStream();
		if (!in->zd || ZSTD_isError(ZSTD_initDStream(in->zd)))
			return err_set(e, -ENOMEM, "cannot create a zstd stream");
	}
	/* keep the partial tail of the previous output */
	if (in->dpos) {
		buf_consume(&in->dbuf, in->dpos);
		in->dpos = 0;
	}
	ZSTD_inBuffer ib = { p, n, 0 };
	bool full;
	int rc;
	while (ib.pos < ib.size)
		if ((rc = decompress_step(in, &ib, off, e, false, &full)))
			return rc;
	/* flush what zstd still holds for this frame */
	do {
		if ((rc = decompress_step(in, &ib, off, e, true, &full)))
			return rc;
	} while (full);
	in->comp_off = off;
	return 0;
}

/* Hand out p (size bytes) aligned and, for swapped inputs, swapped. */
static int finish_rec(struct input *in, const uint8_t *p, uint32_t size, uint64_t off, bool stable,
		      struct input_chunk *chunk, struct input_rec *rec, struct err *e)
{
	rec->decompressed = false;
	if ((in->hdr.swap && p != in->scratch.data) || ((uintptr_t)p & 7)) {
		in->scratch.len = 0;
		if (buf_append(&in->scratch, p, size))
			return err_set(e, -ENOMEM, "out of memory");
		if (in->hdr.swap)
			perf_record_swap(&in->el, in->scratch.data);
		p = in->scratch.data;
		stable = false;
		chunk = NULL;
	} else if (in->hdr.swap) {
		perf_record_swap(&in->el, in->scratch.data);
	}
	rec->chunk = chunk;
	rec->p = p;
	rec->size = size;
	rec->file_off = off;
	rec->stable = stable;
	return 1;
}

static uint32_t rec_size(const struct input *in, const uint8_t *p)
{
	uint16_t s;
	memcpy(&s, p + 6, 2);
	return in->hdr.swap ? bswap_16(s) : s;
}

/* Absorb what the input itself needs from a record (attrs, features, ...). */
static int absorb(struct input *in, const struct input_rec *rec, struct err *e)
{
	const uint8_t *p = rec->p;
	uint32_t type;
	memcpy(&type, p, 4);
	uint32_t size = rec->size;
	if (type <= PERF_RECORD_SCORCH_MAX)
		in->st.records_by_type[type]++;
	else
		in->st.records_unknown++;
	switch (type) {
	case PERF_RECORD_HEADER_ATTR: {
		if (size < 8 + PERF_ATTR_SIZE_MIN)
			return err_at(e, rec->file_off, "HEADER_ATTR record too small (%u bytes)", size);
		uint32_t asz;
		memcpy(&asz, p + 8 + 4, 4);
		if (asz == 0)
			asz = PERF_ATTR_SIZE_MIN;
		if (asz < PERF_ATTR_SIZE_MIN || asz > size - 8)
			return err_at(e, rec->file_off, "HEADER_ATTR attr size %u does not fit the record", asz);
		size_t nids = (size - 8 - asz) / 8;
		uint64_t ids[1024];
		size_t n = 0;
		int rc = 0;
		uint64_t *heap = nids > 1024 ? xmalloc(nids * 8) : NULL;
		uint64_t *idv = heap ? heap : ids;
		for (; n < nids; n++)
			memcpy(&idv[n], p + 8 + asz + 8 * n, 8);
		rc = perf_evlist_add(&in->el, p + 8, asz, idv, n, rec->file_off, e);
		free(heap);
		perf_evlist_finalize(&in->el);
		perf_header_name_tracepoints(&in->hdr, &in->el);
		return rc;
	}
	case PERF_RECORD_HEADER_FEATURE: {
		if (size < 16)
			return err_at(e, rec->file_off, "HEADER_FEATURE record too small (%u bytes)", size);
		uint64_t bit = load_u64(p + 8);
		if (bit < PERF_FEAT_BITS)
			return perf_header_parse_feature(&in->hdr, &in->el, (unsigned)bit, p + 16, size - 16,
							 rec->file_off + 16, e);
		return 0;
	}
	case PERF_RECORD_HEADER_BUILD_ID:
		return perf_header_parse_build_ids(&in->hdr, p, size, rec->file_off, e);
	case PERF_RECORD_ID_INDEX: {
		if (size < 16)
			return err_at(e, rec->file_off, "ID_INDEX record too small");
		uint64_t nr = load_u64(p + 8);
		if (nr > (size - 16) / 32)
			return err_at(e, rec->file_off + 8, "ID_INDEX nr %llu exceeds the record",
				      (unsigned long long)nr);
		for (uint64_t i = 0; i < nr; i++) {
			uint64_t id = load_u64(p + 16 + 32 * i), idx = load_u64(p + 16 + 32 * i + 8);
			if (idx < in->el.nr && !hmap_get(&in->el.by_id, id))
				perf_evlist_add_ids(&in->el, (size_t)idx, &id, 1);
		}
		return 0;
	}
	case PERF_RECORD_EVENT_UPDATE: {
		if (size < 24)
			return 0;
		uint64_t ut = load_u64(p + 8), id = load_u64(p + 16);
		uintptr_t v = (uintptr_t)hmap_get(&in->el.by_id, id);
		if (ut == 2 /* NAME */ && v && size > 24) {
			struct perf_attr *pa = &in->el.attrs[v - 1];
			free(pa->name);
			pa->name = xstrndup((const char *)p + 24, size - 24);
			pa->name_recorded = true;
		}
		return 0;
	}
	default:
		return 0;
	}
}

static int next_raw(struct input *in, struct input_rec *rec, struct err *e)
{
	for (;;) {
		/* 1. records decompressed from COMPRESSED ones come first */
		if (in->dpos < in->dbuf.len && in->dbuf.len - in->dpos >= 8) {
			const uint8_t *p = in->dbuf.data + in->dpos;
			size_t left = in->dbuf.len - in->dpos;
			uint32_t size = rec_size(in, p);
			if (size < 8)
				return err_at(e, in->comp_off, "decompressed record of size %u (< 8)", size);
			if (size <= left) {
				in->dpos += size;
				int r = finish_rec(in, p, size, in->comp_off, false, NULL, rec, e);
				if (r > 0)
					rec->decompressed = true;
				return r;
			}
			/* partial: the rest is in the next COMPRESSED record */
		}
		const uint8_t *p;
		uint64_t off;
		uint32_t size;
		struct input_chunk *chunk = NULL;
		if (in->memwalk) {
			if (in->pos >= in->end)
				return 0;
			if (in->end - in->pos < 8)
				return err_at(e, in->pos, "truncated record header (%llu bytes left)",
					      (unsigned long long)(in->end - in->pos));
			p = in->map + in->pos;
			size = rec_size(in, p);
			off = in->pos;
			if (size < 8)
				return err_at(e, off, "record size %u is smaller than its header", size);
			if (size > in->end - in->pos)
				return err_at(e, off, "record of %u bytes runs past the end of the data (%llu bytes left)",
					      size, (unsigned long long)(in->end - in->pos));
			in->pos += size;
		} else {
			int r = chunk_fill(in, 8, e);
			if (r < 0)
				return r;
			off = in->cur_off + in->cpos;
			if (r == 0) {
				if (in->cur && in->cur->len != in->cpos)
					return err_at(e, off, "truncated record header (%zu bytes left)",
						      in->cur->len - in->cpos);
				return 0;
			}
			size = rec_size(in, in->cur->data + in->cpos);
			if (size < 8)
				return err_at(e, off, "record size %u is smaller than its header", size);
			r = chunk_fill(in, size, e);
			if (r < 0)
				return r;
			if (r == 0)
				return err_at(e, off, "record of %u bytes runs past the end of the data (%zu bytes left)",
					      size, in->cur->len - in->cpos);
			p = in->cur->data + in->cpos;
			chunk = in->cur;
			in->cpos += size;
		}
		uint32_t type;
		memcpy(&type, p, 4);
		if (in->hdr.swap)
			type = bswap_32(type);
		/* payload after the record (not counted in its size) */
		uint64_t payload = 0;
		if (type == PERF_RECORD_HEADER_TRACING_DATA && size >= 12) {
			uint32_t ts;
			memcpy(&ts, p + 8, 4);
			payload = in->hdr.swap ? bswap_32(ts) : ts;
		} else if (type == PERF_RECORD_AUXTRACE && size >= 16) {
			payload = load_u64(p + 8);
			if (in->hdr.swap)
				payload = bswap_64(payload);
		}
		if (payload) {
			bool keep = type == PERF_RECORD_HEADER_TRACING_DATA && !in->hdr.tracing_data &&
				    payload < CHUNK_LIMIT / 2;
			if (keep && in->meta_fn)
				in->meta_fn(in->meta_ctx);
			/* the record itself is copied: filling may replace the chunk */
			in->scratch.len = 0;
			if (buf_append(&in->scratch, p, size))
				return err_set(e, -ENOMEM, "out of memory");
			if (in->memwalk) {
				if (payload > in->end - in->pos)
					return err_at(e, off, "%s payload of %llu bytes runs past the end of the data",
						      perf_record_name(type), (unsigned long long)payload);
				if (keep)
					perf_header_parse_feature(&in->hdr, &in->el, HEADER_TRACING_DATA,
								  in->map + in->pos, payload, in->pos, e);
				in->pos += payload;
			} else if (keep) {
				int r = chunk_fill(in, (size_t)payload, e);
				if (r < 0)
					return r;
				if (r == 0)
					return err_at(e, off, "%s payload truncated", perf_record_name(type));
				perf_header_parse_feature(&in->hdr, &in->el, HEADER_TRACING_DATA,
							  in->cur->data + in->cpos, payload, off + size, e);
				in->cpos += payload;
			} else {
				int r = chunk_skip(in, payload, e);
				if (r < 0)
					return r;
				if (r == 0)
					return err_at(e, off, "%s payload of %llu bytes runs past the end of the data",
						      perf_record_name(type), (unsigned long long)payload);
			}
			return finish_rec(in, in->scratch.data, size, off, false, NULL, rec, e);
		}
		if (type == PERF_RECORD_COMPRESSED) {
			in->st.compressed_records++;
			in->st.compressed_bytes += size - 8;
			in->st.records_by_type[PERF_RECORD_COMPRESSED]++;
			int rc = decompress(in, p + 8, size - 8, off, e);
			if (rc)
				return rc;
			continue;
		}
		return finish_rec(in, p, size, off, in->memwalk, chunk, rec, e);
	}
}

int input_absorb(struct input *in, const uint8_t *rec, uint32_t size, uint64_t off,
		 const uint8_t *tracing, uint32_t tracing_len, struct err *e)
{
	/* as next_raw keeps it (what parsing it says is not an error there) */
	if (tracing_len && !in->hdr.tracing_data)
		perf_header_parse_feature(&in->hdr, &in->el, HEADER_TRACING_DATA, tracing, tracing_len,
					  off + size, e);
	struct input_rec r = { .p = rec, .size = size, .file_off = off };
	return absorb(in, &r, e);
}

void input_set_meta_hook(struct input *in, void (*fn)(void *ctx), void *ctx)
{
	in->meta_fn = fn;
	in->meta_ctx = ctx;
}

int input_next(struct input *in, struct input_rec *rec, struct err *e)
{
	int r = next_raw(in, rec, e);
	if (r <= 0 && in->windows) {
		int f = input_fault(in, e);
		if (f)
			return f;
	}
	if (r <= 0) {
		if (r == 0 && in->dpos < in->dbuf.len)
			return err_at(e, in->comp_off, "compressed data ends inside a record (%zu bytes left over)",
				      in->dbuf.len - in->dpos);
		return r;
	}
	if (in->meta_fn) {
		uint32_t type;
		memcpy(&type, rec->p, 4);
		if (type == PERF_RECORD_HEADER_ATTR || type == PERF_RECORD_HEADER_FEATURE ||
		    type == PERF_RECORD_HEADER_BUILD_ID || type == PERF_RECORD_ID_INDEX ||
		    type == PERF_RECORD_EVENT_UPDATE)
			in->meta_fn(in->meta_ctx);
	}
	int rc = absorb(in, rec, e);
	return rc ? rc : 1;
}
