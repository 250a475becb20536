/*
 * input.c: perf.data and pipe streams in, raw records out (see input.h).
 *
 * File mode maps the file for its header, attrs and features, and preads
 * the data section into chunks (reading the data in place from the
 * mapping saves the copy but touches every page of it, which cost more
 * than the copy on some virtual machines: docs/input.md). Pipe mode
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define PIPE_CHUNK (256 * 1024)
#define READ_CHUNK ((size_t)256 << 10)
#define CHUNK_LIMIT ((size_t)512 << 20)
#define DECOMP_LIMIT ((size_t)256 << 20)

struct input {
	char *name;
	int fd;
	bool own_fd;
	bool pipe;          /* pipe format (records only) */
	bool from_stream;   /* size unknown (a pipe) */
	bool from_file_spill; /* a file-format stream, put in a temporary file (spill_stream) */
	const char *tmpdir;   /* where (NULL: /tmp) */
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
	uint64_t rd_off, rd_end;
	struct input_chunk *whole; /* memwalk: the chunk holding the whole input */
	struct input_chunk *pool;  /* free chunks */
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

void input_chunk_get(struct input_chunk *c)
{
	c->refs++;
}

/* Chunks return to the input's free list (the pages stay mapped and warm:
 * a fresh multi-MB malloc is fresh page faults); the list is freed with the
 * input, which must therefore outlive every holder of a chunk. */
void input_chunk_put(struct input_chunk *c)
{
	if (!c || --c->refs)
		return;
	if (c->pool) {
		c->next = *c->pool;
		*c->pool = c;
	} else {
		free(c);
	}
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
		c->cap = cap;
		c->pool = &in->pool;
	}
	c->refs = 1;
	c->len = 0;
	c->next = NULL;
	return c;
}
const char *input_name(const struct input *in) { return in->name; }

/* The size of a chunk for a record of n bytes: base, doubled
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

/* ---- reading a stream ---------------------------------------------------- */

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
		if (!in->cur || in->cur->cap - in->cpos < n ||
		    in->cur->cap - in->cur->len < PIPE_CHUNK / 4) {
			size_t tail = in->cur ? in->cur->len - in->cpos : 0;
			size_t cap;
			int r = chunk_cap(READ_CHUNK, n, &cap, e);
			if (r)
				return r;
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
	int rc = perf_file_header_parse(&in->hdr, &in->el, in->map, in->map_len, e);
	if (rc)
		return rc;
	if (in->hdr.pipe) {
		in->pipe = true;
		in->pos = in->rd_off = in->cur_off = sizeof(struct perf_pipe_file_header);
		in->end = in->rd_end = in->map_len;
	} else {
		in->pos = in->rd_off = in->cur_off = in->hdr.data_offset;
		in->end = in->rd_end = in->hdr.data_offset + in->hdr.data_size;
	}
	return 0;
}

/* ---- open / close ------------------------------------------------------- */

static struct input *input_alloc(const char *name)
{
	struct input *in = xcalloc(1, sizeof(*in));
	in->name = xstrdup(name);
	in->fd = -1;
	perf_header_init(&in->hdr);
	perf_evlist_init(&in->el);
	buf_init(&in->dbuf, DECOMP_LIMIT);
	buf_init(&in->scratch, 1 << 20);
	return in;
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
	const char *dir = in->tmpdir ? in->tmpdir : "/tmp";
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

struct input *input_open(const char *path, const char *tmpdir, struct err *e)
{
	return input_open_named(path, path, tmpdir, e);
}

struct input *input_open_named(const char *path, const char *name, const char *tmpdir, struct err *e)
{
	struct input *in = input_alloc(name);
	in->tmpdir = tmpdir;
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

struct input *input_open_fd(int fd, const char *name, const char *tmpdir, struct err *e)
{
	struct input *in = input_alloc(name);
	in->tmpdir = tmpdir;
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
	input_chunk_put(in->cur);
	if (in->mapped)
		munmap((void *)in->map, in->map_len);
	if (in->own_fd)
		close(in->fd);
	if (in->zd)
		ZSTD_freeDStream(in->zd);
	input_chunk_put(in->whole);
	pool_free(&in->pool);
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
