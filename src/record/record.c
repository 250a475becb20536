/*
 * record.c: the record loop (see record.h for the flow).
 *
 * Buffers: a pool of struct wbuf, each at least two rings big. A pass over
 * the rings appends each ring's new records to the current buffer (copying
 * them out releases the kernel's space at once), then a FINISHED_ROUND; the
 * buffer goes to the writer when half full, when the rings are idle, or
 * every 250 ms. File offsets are assigned at submission, in order, so the
 * data section is the concatenation of the buffers whatever order the
 * writes complete in. The pool has a cap: when every buffer is in flight the
 * loop waits for the writer, the rings fill up, and the kernel reports what
 * it dropped as LOST records; the loss is counted and stays in the file.
 *
 * Rounds: every FINISHED_ROUND's end offset is remembered. When a write fails
 * (ENOSPC, EFBIG, EIO) the file is cut at the last round end below the first
 * byte not written, and the header and features are written for that prefix,
 * so what was recorded stays readable.
 *
 * Everything the recorder sees passes through scan(): it counts samples and
 * lost records, keeps first/last sample times and feeds the build-id tracker.
 *
 * With a consumer (record.h) the loop is the same as in pipe mode; the
 * writer is one that calls the consumer (writer_call below), the pipe head
 * goes to its begin callback, no file is opened, and neither build ids nor
 * round offsets are tracked (they only serve a file's header), so memory
 * stays flat over a recording of hours. Rotation by time ends one stream
 * and begins the next with the processes synthesized again, so every
 * interval is a complete stream on its own.
 */
#include "record/record.h"
#include "perf/encode.h"
#include "record/host.h"
#include "util/load.h"
#include "record/buildid.h"
#include "record/events.h"
#include "record/synth.h"
#include "record/tpinfo.h"
#include "record/writer.h"
#include "util/buf.h"
#include "util/sys.h"
#include "util/xalloc.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#define REC_MAX_THREADS 65536
#define REC_ZSTD_MAX_REC 0xffff

struct rec {
	const struct record_opts *o;
	struct record_result *res;
	struct err *e;
	struct events ev;
	struct perf_wattr wattrs[RECORD_MAX_EVENTS];
	struct perf_feats feats;
	struct host_info host;
	char exe[4096];
	struct buildid bid;
	struct bidcache_kallsyms *ksyms; /* kallsyms read while the workload runs */
	uint64_t synth_id;
	/* output */
	bool pipe;
	const struct record_consumer *cons; /* instead of fd */
	int fd;
	char path[4096];
	struct writer *w;
	uint64_t data_off, off;
	uint64_t *rounds;
	size_t nr_rounds, cap_rounds;
	bool failed;
	uint64_t fail_off;
	int werr;
	/* buffers */
	struct wbuf *free;
	size_t nbufs, max_bufs, buf_size;
	unsigned depth;
	struct wbuf *cur;
	uint64_t last_flush_ns, file_start_ns;
	/* per file */
	uint64_t file_bytes, first_time, last_time;
	/* compression */
	ZSTD_CCtx *zc;
	uint8_t *scratch;
	size_t scratch_size;
	/* targets */
	pid_t child;
	bool child_done;
	pid_t *pids;
	size_t nr_pids;
	struct pollfd *pfds;
	bool spin;          /* rings too small to sleep on: poll them busily */
	bool child_execd;   /* the command started (its status is worth reporting) */
	bool round_open;    /* data drained since the last FINISHED_ROUND */
	uint64_t header_ns; /* last refresh of the provisional header */
	uint64_t idle_since;
};

static void rec_log(struct rec *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rec_log(struct rec *r, const char *fmt, ...)
{
	if (r->o->quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	sys_vlog(r->o->log, r->o->log_ctx, 512, fmt, ap);
	va_end(ap);
}

void record_opts_init(struct record_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->output = "perf.data";
	o->freq = 4000;
	o->mmap_pages = 128;
	o->dwarf_size = RECORD_DWARF_SIZE;
	o->aio_n = 2;
	o->io = RECORD_IO_AUTO;
	o->rt_prio = 1;
}

/* ---- buffers and the writer ---- */

static void rec_done(void *ctx, struct wbuf *b, int err)
{
	struct rec *r = ctx;
	if (err) {
		uint64_t fo = b->off + b->done;
		if (!r->failed || fo < r->fail_off)
			r->fail_off = fo;
		r->failed = true;
		if (!r->werr)
			r->werr = err;
	}
	b->len = 0;
	b->next = r->free;
	r->free = b;
}

static struct wbuf *buf_take(struct rec *r)
{
	while (!r->free) {
		if (r->nbufs < r->max_bufs) {
			struct wbuf *b = xcalloc(1, sizeof(*b));
			b->data = xmalloc(r->buf_size);
			b->cap = r->buf_size;
			r->nbufs++;
			return b;
		}
		writer_reap(r->w, true);
	}
	struct wbuf *b = r->free;
	r->free = b->next;
	b->next = NULL;
	b->len = 0;
	return b;
}

static void buf_free_all(struct rec *r)
{
	if (r->cur) {
		r->cur->next = r->free;
		r->free = r->cur;
		r->cur = NULL;
	}
	while (r->free) {
		struct wbuf *b = r->free;
		r->free = b->next;
		free(b->data);
		free(b);
	}
	r->nbufs = 0;
}

static int flush_cur(struct rec *r)
{
	r->last_flush_ns = sys_mono_ns();
	if (!r->cur || !r->cur->len)
		return r->werr;
	struct wbuf *b = r->cur;
	r->cur = NULL;
	b->off = r->off;
	r->off += b->len;
	r->file_bytes += b->len;
	r->res->bytes += b->len;
	writer_submit(r->w, b);
	return r->werr;
}

/* Make room for need bytes in the current buffer. */
static int ensure(struct rec *r, size_t need)
{
	if (r->cur && r->cur->cap - r->cur->len >= need)
		return 0;
	flush_cur(r);
	if (r->werr)
		return r->werr;
	if (need > r->buf_size)
		return -E2BIG;
	r->cur = buf_take(r);
	return r->cur ? 0 : -ENOMEM;
}

/* ---- what passes through ---- */

static void scan_sample(struct rec *r, const uint8_t *p, uint16_t size, uint16_t misc)
{
	r->res->samples++;
	uint64_t ip = load_u64(p + EVENTS_OFF_IP), time = load_u64(p + EVENTS_OFF_TIME);
	uint32_t pid = load_u32(p + EVENTS_OFF_PID);
	if (!r->first_time || time < r->first_time)
		r->first_time = time;
	if (time > r->last_time)
		r->last_time = time;
	uint16_t mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	bool kernel = mode == PERF_RECORD_MISC_KERNEL;
	if (r->cons)
		return; /* no build ids for a consumer */
	buildid_hit(&r->bid, pid, ip, kernel);
	if (r->o->cg == RECORD_CG_NONE || size < EVENTS_OFF_CALLCHAIN + 8)
		return;
	uint64_t nr = load_u64(p + EVENTS_OFF_CALLCHAIN);
	if (nr > (uint64_t)(size - EVENTS_OFF_CALLCHAIN - 8) / 8)
		return;
	const uint8_t *c = p + EVENTS_OFF_CALLCHAIN + 8;
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t a = load_u64(c + i * 8);
		if (a >= PERF_CONTEXT_MAX) {
			kernel = a == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		if (a != ip)
			buildid_hit(&r->bid, pid, a, kernel);
	}
}

static void scan(struct rec *r, const uint8_t *p, size_t n)
{
	size_t off = 0;
	while (off + sizeof(struct perf_event_header) <= n) {
		const struct perf_event_header *h = (const void *)(p + off);
		if (h->size < sizeof(*h) || off + h->size > n)
			break;
		const uint8_t *q = p + off;
		switch (h->type) {
		case PERF_RECORD_SAMPLE:
			if (h->size >= EVENTS_OFF_CALLCHAIN)
				scan_sample(r, q, h->size, h->misc);
			break;
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2: {
			if (r->cons)
				break;
			size_t name_off = h->type == PERF_RECORD_MMAP ? 40 : 72;
			if (h->size <= name_off)
				break;
			size_t max = h->size - name_off;
			if (strnlen((const char *)q + name_off, max) >= max)
				break;
			if (h->misc & PERF_RECORD_MISC_MMAP_DATA)
				break; /* data maps hold no code */
			bool kernel = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
			buildid_mmap(&r->bid, load_u32(q + 8), load_u64(q + 16), load_u64(q + 24),
				     (const char *)q + name_off, kernel);
			break;
		}
		case PERF_RECORD_COMM:
			if (!r->cons && (h->misc & PERF_RECORD_MISC_COMM_EXEC) && h->size >= 16)
				buildid_exec(&r->bid, load_u32(q + 8));
			break;
		case PERF_RECORD_FORK:
			if (!r->cons && h->size >= 24)
				buildid_fork(&r->bid, load_u32(q + 8), load_u32(q + 12));
			break;
		case PERF_RECORD_EXIT:
			if (!r->cons && h->size >= 24)
				buildid_exit(&r->bid, load_u32(q + 8), load_u32(q + 16));
			break;
		case PERF_RECORD_LOST:
			if (h->size >= 24)
				r->res->lost += load_u64(q + 16);
			break;
		case PERF_RECORD_LOST_SAMPLES:
			if (h->size >= 16)
				r->res->lost += load_u64(q + 8);
			break;
		}
		off += h->size;
	}
}

/* Compress n bytes of whole records into COMPRESSED records, each at most
 * 64 KiB and each decompressing to at most the ring size (HEADER_COMPRESSED
 * mmap_len), as perf's reader requires. */
static int compress_emit(struct rec *r, const uint8_t *src, size_t n)
{
	ZSTD_inBuffer in = { src, n, 0 };
	for (;;) {
		int rc = ensure(r, REC_ZSTD_MAX_REC);
		if (rc)
			return rc;
		struct wbuf *b = r->cur;
		size_t room = b->cap - b->len;
		if (room > REC_ZSTD_MAX_REC)
			room = REC_ZSTD_MAX_REC;
		ZSTD_outBuffer out = { b->data + b->len + 8, room - 8, 0 };
		size_t rem = ZSTD_compressStream2(r->zc, &out, &in, ZSTD_e_end);
		if (ZSTD_isError(rem))
			return err_set(r->e, -EIO, "zstd: %s", ZSTD_getErrorName(rem));
		if (out.pos) {
			struct perf_event_header h = { PERF_RECORD_COMPRESSED, 0, (uint16_t)(8 + out.pos) };
			memcpy(b->data + b->len, &h, 8);
			b->len += 8 + out.pos;
			r->res->comp_out += 8 + out.pos;
		}
		if (rem == 0)
			break;
	}
	r->res->comp_in += n;
	return 0;
}

/* Append whole records (synthesized ones) to the output. */
static int emit_records(struct rec *r, const uint8_t *p, size_t n)
{
	scan(r, p, n);
	if (r->zc) {
		/* in ring-sized pieces of whole records */
		size_t off = 0;
		while (off < n) {
			size_t end = off;
			while (end < n) {
				const struct perf_event_header *h = (const void *)(p + end);
				if (end + h->size - off > r->scratch_size && end > off)
					break;
				end += h->size;
			}
			int rc = compress_emit(r, p + off, end - off);
			if (rc)
				return rc;
			off = end;
		}
		return 0;
	}
	size_t off = 0;
	while (off < n) {
		const struct perf_event_header *h = (const void *)(p + off);
		int rc = ensure(r, h->size);
		if (rc)
			return rc;
		memcpy(r->cur->data + r->cur->len, p + off, h->size);
		r->cur->len += h->size;
		off += h->size;
	}
	return 0;
}

static int add_round(struct rec *r)
{
	struct perf_event_header h = { PERF_RECORD_FINISHED_ROUND, 0, 8 };
	int rc = ensure(r, 8);
	if (rc)
		return rc;
	memcpy(r->cur->data + r->cur->len, &h, 8);
	r->cur->len += 8;
	if (!r->cons && !ARRAY_GROW(r->rounds, r->cap_rounds, r->nr_rounds + 1, (size_t)1 << 26))
		r->rounds[r->nr_rounds++] = r->off + r->cur->len;
	return 0;
}

/* One pass over every ring. */
static int drain(struct rec *r, bool *any)
{
	*any = false;
	for (size_t i = 0; i < r->ev.nr_rings; i++) {
		struct ring *ring = &r->ev.rings[i];
		uint64_t pend = ring_pending(ring);
		if (!pend)
			continue;
		int rc;
		if (r->zc) {
			size_t n = ring_read(ring, r->scratch, r->scratch_size);
			scan(r, r->scratch, n);
			rc = compress_emit(r, r->scratch, n);
		} else {
			rc = ensure(r, pend > ring->size ? ring->size : pend);
			if (!rc) {
				struct wbuf *b = r->cur;
				size_t n = ring_read(ring, b->data + b->len, b->cap - b->len);
				scan(r, b->data + b->len, n);
				b->len += n;
			}
		}
		if (rc)
			return rc;
		*any = true;
	}
	if (*any)
		r->round_open = true;
	return 0;
}

/* Close the round (FINISHED_ROUND) if a pass since the last one found data. */
static int end_round(struct rec *r)
{
	if (!r->round_open)
		return 0;
	r->round_open = false;
	return add_round(r);
}

/* ---- files ---- */

static int open_output(struct rec *r, const char *path)
{
	if (!strcmp(path, "-")) {
		r->pipe = true;
		r->fd = STDOUT_FILENO;
		snprintf(r->path, sizeof(r->path), "-");
		return 0;
	}
	snprintf(r->path, sizeof(r->path), "%s", path);
	struct stat st;
	if (stat(path, &st) == 0 && S_ISFIFO(st.st_mode)) {
		/* a named pipe gets the pipe format, as with perf */
		int fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return err_set(r->e, -errno, "%s: %s", path, strerror(errno));
		r->pipe = true;
		r->fd = fd;
		return 0;
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return err_set(r->e, -errno, "%s: %s", path, strerror(errno));
	fchmod(fd, 0600);
	r->fd = fd;
	return 0;
}

static int begin_file(struct rec *r)
{
	r->nr_rounds = 0;
	r->failed = false;
	r->werr = 0;
	r->file_bytes = 0;
	r->first_time = r->last_time = 0;
	r->file_start_ns = sys_mono_ns();
	buildid_reset_hits(&r->bid);
	if (r->pipe) {
		struct buf b;
		buf_init(&b, 0);
		int rc = perf_pipe_head(&b, r->wattrs, r->ev.nr_ev, &r->feats);
		if (!rc && r->cons) {
			rc = r->cons->begin ? r->cons->begin(r->cons->ctx, b.data, b.len) : 0;
			r->res->bytes += b.len;
			buf_release(&b);
			r->off = r->data_off = 0;
			return rc < 0 ? err_set(r->e, rc, "starting the analysis: %s", strerror(-rc)) : 0;
		}
		if (!rc)
			rc = sys_write_all(r->fd, b.data, b.len, true);
		r->res->bytes += b.len;
		buf_release(&b);
		r->off = r->data_off = 0;
		return rc ? err_set(r->e, rc, "%s: %s", r->path, strerror(-rc)) : 0;
	}
	r->data_off = r->off = perf_file_data_offset(r->wattrs, r->ev.nr_ev);
	/* a provisional header: an interrupted file is recognisably perf.data */
	int rc = perf_file_write_header(r->fd, r->wattrs, r->ev.nr_ev, 0, NULL);
	if (rc)
		return err_set(r->e, rc, "%s: %s", r->path, strerror(-rc));
	r->res->bytes += r->data_off;
	return 0;
}

static int synthesize(struct rec *r, bool initial)
{
	struct buf b;
	buf_init(&b, 0);
	int rc = synth_kernel(&b, r->synth_id);
	if (!rc)
		rc = synth_modules(&b, r->synth_id);
	const struct record_opts *o = r->o;
	bool dwarf = o->cg == RECORD_CG_DWARF;
	if (!rc && o->system_wide) {
		rc = synth_all(&b, dwarf, r->synth_id);
	} else if (!rc && o->nr_targets) {
		for (size_t i = 0; i < o->nr_targets && !rc; i++) {
			pid_t pid = o->targets[i], tid = 0;
			if (o->targets_are_tids) {
				char path[64], line[256];
				snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
				FILE *fp = fopen(path, "r");
				tid = pid;
				if (fp) {
					while (fgets(line, sizeof(line), fp))
						if (sscanf(line, "Tgid: %d", &pid) == 1)
							break;
					fclose(fp);
				}
			}
			rc = synth_process(&b, pid, tid, true, dwarf, r->synth_id);
		}
	} else if (!rc && r->child > 0) {
		if (initial)
			rc = synth_comm(&b, r->child, r->child, "scorch", r->synth_id);
		else if (!r->child_done)
			rc = synth_process(&b, r->child, 0, true, dwarf, r->synth_id);
	}
	if (rc)
		rc = err_set(r->e, rc, "synthesizing records: %s", strerror(-rc));
	else
		rc = emit_records(r, b.data, b.len);
	buf_release(&b);
	return rc;
}

/* The DSOs of bids[0..nb) into the build-id cache, then the cache kept
 * under its limit (pruned only when something was added). A cache that
 * cannot be written is told once; the recording is whole either way. */
static void add_to_cache(struct rec *r, const struct perf_build_id *bids, size_t nb)
{
	const struct record_opts *o = r->o;
	if (!o->buildid_dir || !nb)
		return;
	uint64_t t0 = sys_mono_ns();
	struct bidcache_stats *st = &r->res->cache;
	unsigned added = st->added;
	int rc = bidcache_add(o->buildid_dir, bids, nb, r->ksyms, st);
	if (!rc && st->added > added && o->buildid_cache_max)
		rc = bidcache_prune(o->buildid_dir, o->buildid_cache_max, st);
	if (rc && !o->quiet)
		rec_log(r, "build-id cache %s: %s", o->buildid_dir, strerror(-rc));
	r->res->cache_ns += sys_mono_ns() - t0;
}

static int end_features(struct rec *r)
{
	struct perf_build_id *bids = NULL;
	size_t nb = 0;
	buildid_collect(&r->bid, &bids, &nb);
	int rc = perf_feats_add_build_ids(&r->feats, bids, nb);
	if (!r->pipe)
		add_to_cache(r, bids, nb);
	if (!rc && r->first_time)
		rc = perf_feats_add_sample_time(&r->feats, r->first_time, r->last_time);
	if (!rc && r->zc) {
		uint32_t ratio = r->res->comp_out ? (uint32_t)(r->res->comp_in / r->res->comp_out) : 1;
		rc = perf_feats_add_compressed(&r->feats, (uint32_t)r->o->comp_level, ratio,
					       (uint32_t)(r->ev.rings[0].map_len));
	}
	/* Pipe mode writes no build ids, as perf does: HEADER_BUILD_ID records
	 * after the samples are of no use to a streaming reader, and
	 * hotspot-perfparser warns about them. */
	buildid_free_list(bids, nb);
	return rc;
}

/* Close the current output: wait for the writer, write features and the
 * header (cut at the last whole round when a write failed). */
static int finish_file(struct rec *r)
{
	if (!r->werr)
		end_round(r);
	flush_cur(r);
	writer_barrier(r->w);
	int werr = r->werr;
	if (r->cons) {
		int crc = r->cons->end ? r->cons->end(r->cons->ctx, werr) : 0;
		return werr ? werr : crc < 0 ? crc : 0;
	}
	int rc = end_features(r);
	if (r->pipe)
		return werr ? werr : rc;
	uint64_t end = r->off;
	if (werr) {
		uint64_t valid = r->failed ? r->fail_off : r->off;
		end = r->data_off;
		for (size_t i = r->nr_rounds; i-- > 0;)
			if (r->rounds[i] <= valid) {
				end = r->rounds[i];
				break;
			}
		if (ftruncate(r->fd, (off_t)end) < 0) {
			/* keep going: the header still bounds the data */
		}
	}
	int frc = perf_file_write_features(r->fd, end, &r->feats);
	if (frc && ftruncate(r->fd, (off_t)end) == 0)
		frc = perf_file_write_header(r->fd, r->wattrs, r->ev.nr_ev, end - r->data_off, NULL);
	else
		frc = perf_file_write_header(r->fd, r->wattrs, r->ev.nr_ev, end - r->data_off,
					     r->feats.bits);
	if (!werr && frc)
		werr = frc;
	perf_feats_clear(&r->feats, HEADER_BUILD_ID);
	perf_feats_clear(&r->feats, HEADER_SAMPLE_TIME);
	return werr ? werr : rc;
}

static void switch_name(const char *base, char *out, size_t n)
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	char stamp[32];
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	snprintf(out, n, "%s.%s%02ld", base, stamp, ts.tv_nsec / 10000000);
}

/* Rotate: finish the file under its timestamped name, start a new one. */
static int rotate(struct rec *r, bool last)
{
	int rc = finish_file(r);
	if (r->cons) {
		/* an interval ends: the next stream starts complete */
		r->res->files++;
		if (rc || last)
			return rc;
		if ((rc = begin_file(r)))
			return rc;
		return synthesize(r, false);
	}
	char name[4200];
	switch_name(r->o->output, name, sizeof(name));
	if (!last || r->o->switch_mode != RECORD_SWITCH_NONE) {
		if (rename(r->path, name) == 0 && strlen(name) < sizeof(r->res->last_file))
			memcpy(r->res->last_file, name, strlen(name) + 1);
		rec_log(r, "dump data: %s", name);
	}
	r->res->files++;
	if (rc || last)
		return rc;
	close(r->fd);
	writer_free(r->w);
	r->w = NULL;
	if ((rc = open_output(r, r->o->output)))
		return rc;
	r->w = writer_open(r->o->io, r->fd, false, r->depth, rec_done, r);
	if ((rc = begin_file(r)))
		return rc;
	if (r->zc)
		ZSTD_CCtx_reset(r->zc, ZSTD_reset_session_only);
	return synthesize(r, false);
}

/*
 * Once a second, at the first moment no write is in flight, point the
 * provisional header's data size at the last round end written: a recorder
 * killed outright (SIGKILL, OOM) still leaves a file perf reads up to there.
 * Returns whether it did (else the caller tries again on its next pass: a
 * busy recorder rarely has nothing in flight at one given moment).
 */
static bool refresh_header(struct rec *r)
{
	if (r->pipe || r->w->inflight || r->werr || !r->nr_rounds)
		return false;
	uint64_t end = r->data_off;
	for (size_t i = r->nr_rounds; i-- > 0;)
		if (r->rounds[i] <= r->off) {
			end = r->rounds[i];
			break;
		}
	uint64_t size = end - r->data_off;
	perf_pwrite_all(r->fd, &size, 8, offsetof(struct perf_file_header, data.size));
	return true;
}

/* ---- targets ---- */

static int add_pid(struct rec *r, pid_t p, size_t *cap)
{
	for (size_t i = 0; i < r->nr_pids; i++)
		if (r->pids[i] == p)
			return 0;
	int rc = ARRAY_GROW(r->pids, *cap, r->nr_pids + 1, REC_MAX_THREADS);
	if (rc)
		return rc;
	r->pids[r->nr_pids++] = p;
	return 0;
}

static int resolve_targets(struct rec *r)
{
	const struct record_opts *o = r->o;
	size_t cap = 0;
	if (o->system_wide)
		return add_pid(r, -1, &cap);
	for (size_t i = 0; i < o->nr_targets; i++) {
		pid_t p = o->targets[i];
		if (kill(p, 0) < 0 && errno == ESRCH)
			return err_set(r->e, -ESRCH, "no such process or thread %d", (int)p);
		if (o->targets_are_tids) {
			int rc = add_pid(r, p, &cap);
			if (rc)
				return rc;
			continue;
		}
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/task", (int)p);
		DIR *d = opendir(path);
		if (!d)
			return err_set(r->e, -ESRCH, "no such process %d", (int)p);
		struct dirent *de;
		int rc = 0;
		while (!rc && (de = readdir(d)))
			if (atoi(de->d_name) > 0)
				rc = add_pid(r, (pid_t)atoi(de->d_name), &cap);
		closedir(d);
		if (rc)
			return rc;
	}
	return 0;
}

/* Fork the command, stopped before exec until go_fd is written. */
static int start_child(struct rec *r, int *go_fd, int *exec_fd)
{
	int go[2], ef[2];
	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(ef, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	pid_t pid = fork();
	if (pid < 0) {
		int er = -errno;
		close(go[0]), close(go[1]), close(ef[0]), close(ef[1]);
		return er;
	}
	if (pid == 0) {
		static const int sigs[] = { SIGINT, SIGTERM, SIGUSR2, SIGPIPE, SIGXFSZ, SIGCHLD };
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			signal(sigs[i], SIG_DFL);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(go[1]);
		close(ef[0]);
		char c = 0;
		if (read(go[0], &c, 1) != 1 || c != 'g')
			_exit(127);
		if (r->o->cmd_quiet) {
			int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
			if (nul >= 0) {
				dup2(nul, STDOUT_FILENO);
				dup2(nul, STDERR_FILENO);
			}
		} else if (r->pipe && !r->cons) { /* the workload must not write into the trace */
			dup2(STDERR_FILENO, STDOUT_FILENO);
		}
		execvp(r->o->cmd[0], r->o->cmd);
		int er = errno;
		if (write(ef[1], &er, sizeof(er)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ef[1]);
	r->child = pid;
	*go_fd = go[1];
	*exec_fd = ef[0];
	return 0;
}

static void reap_child(struct rec *r, bool kill_it)
{
	if (r->child <= 0 || r->child_done)
		return;
	int st;
	if (kill_it)
		kill(r->child, SIGTERM);
	for (int i = 0; i < 300; i++) {
		pid_t w = waitpid(r->child, &st, kill_it ? WNOHANG : 0);
		if (w == r->child) {
			r->child_done = true;
			r->res->child_ran = r->child_execd;
			r->res->child_status = st;
			return;
		}
		if (w < 0 && errno != EINTR)
			return;
		if (kill_it) {
			struct timespec ts = { 0, 10000000 };
			nanosleep(&ts, NULL);
		}
	}
	kill(r->child, SIGKILL);
	if (waitpid(r->child, &st, 0) == r->child) {
		r->child_done = true;
		r->res->child_ran = r->child_execd;
		r->res->child_status = st;
	}
}

static bool targets_alive(struct rec *r)
{
	for (size_t i = 0; i < r->o->nr_targets; i++)
		if (kill(r->o->targets[i], 0) == 0 || errno != ESRCH)
			return true;
	return false;
}

/* ---- the run ---- */

/* The workload (a command started stopped) and the tasks to record: its
 * pid, or -p/-t/-a's. */
static int setup_targets(struct rec *r, int *go_fd, int *exec_fd)
{
	const struct record_opts *o = r->o;
	int rc;
	if (o->cmd && o->cmd[0]) {
		if ((rc = start_child(r, go_fd, exec_fd)))
			return err_set(r->e, rc, "cannot start '%s': %s", o->cmd[0], strerror(-rc));
	}
	if (o->system_wide || o->nr_targets)
		return resolve_targets(r);
	if (r->child <= 0)
		return err_set(r->e, -EINVAL, "nothing to record: give a command, -p PID, -t TID or -a");
	r->pids = xcalloc(1, sizeof(pid_t));
	r->pids[0] = r->child;
	r->nr_pids = 1;
	return 0;
}

/* The CPUs to record on (-C's, else every online one) into cpus (1024);
 * how many. */
static size_t record_cpus(const struct record_opts *o, int *cpus)
{
	if (o->nr_cpus) {
		memcpy(cpus, o->cpus, o->nr_cpus * sizeof(int));
		return o->nr_cpus;
	}
	int n = events_online_cpus(cpus, 1024);
	return n > 0 ? (size_t)n : 0;
}

/* The events opened on the CPUs, and what the header says of them. */
static int setup_events(struct rec *r, const int *cpus, size_t ncpu)
{
	const struct record_opts *o = r->o;
	bool on_exec = r->child > 0 && !o->system_wide && !o->nr_targets;
	int rc = events_open(&r->ev, o, r->pids, r->nr_pids, cpus, ncpu, on_exec, r->e);
	if (rc)
		return rc;
	snprintf(r->res->event, sizeof(r->res->event), "%s", r->ev.ev[0].name);
	for (size_t i = 0; i < r->ev.nr_ev; i++)
		r->wattrs[i] = (struct perf_wattr){ r->ev.ev[i].attr, r->ev.ev[i].name, r->ev.ev[i].ids,
						    r->ev.ev[i].nr_ids };
	r->synth_id = r->ev.ev[0].nr_ids ? r->ev.ev[0].ids[0] : 0;
	return 0;
}

/* The output file and the header's features: the host, the events'
 * descriptions, the tracepoints' formats. */
static int setup_header(struct rec *r)
{
	const struct record_opts *o = r->o;
	int rc;
	if (!r->cons && (rc = open_output(r, o->output)))
		return rc;
	if (readlink("/proc/self/exe", r->exe, sizeof(r->exe) - 1) < 0)
		snprintf(r->exe, sizeof(r->exe), "scorch");
	r->host = (struct host_info){ "scorch-0.1", r->exe, o->argc, o->argv,
				      o->use_clockid ? o->clockid : -1 };
	if ((rc = host_add_features(&r->feats, &r->host)) ||
	    (rc = perf_feats_add_event_desc(&r->feats, r->wattrs, r->ev.nr_ev)))
		return err_set(r->e, rc, "building header features: %s", strerror(-rc));
	const char *tps[RECORD_MAX_EVENTS];
	size_t ntp = 0;
	for (size_t i = 0; i < o->nr_events; i++)
		if (o->events[i].is_tracepoint)
			tps[ntp++] = o->events[i].name;
	if (ntp && (rc = tpinfo_build(perf_feats_begin(&r->feats, HEADER_TRACING_DATA), tps, ntp,
				      r->e)))
		return rc;
	return 0;
}

/* The write buffers (twice a ring, at least 4 MiB; as many as the writes
 * in flight + the one being filled + one spare, within 256 MiB), zstd's
 * context with -z, and the writer. */
static int setup_writer(struct rec *r)
{
	const struct record_opts *o = r->o;
	uint64_t ring = r->ev.rings[0].size;
	int rc;
	r->buf_size = (size_t)(2 * ring + 128 * 1024);
	if (r->buf_size < (4u << 20))
		r->buf_size = 4u << 20;
	if (o->comp_level) {
		r->zc = ZSTD_createCCtx();
		if (!r->zc)
			return err_set(r->e, -ENOMEM, "zstd: cannot create a context");
		ZSTD_CCtx_setParameter(r->zc, ZSTD_c_compressionLevel, o->comp_level);
		r->scratch_size = (size_t)ring;
		r->scratch = xmalloc(r->scratch_size);
	}
	if (r->zc && (rc = perf_feats_add_compressed(&r->feats, (uint32_t)o->comp_level, 0,
						       (uint32_t)r->ev.rings[0].map_len)))
		return err_set(r->e, rc, "building header features: %s", strerror(-rc));
	unsigned aio_n = o->aio_n ? o->aio_n : 2;
	r->depth = o->io == RECORD_IO_AIO ? aio_n * (unsigned)r->ev.nr_rings : 8;
	r->max_bufs = r->depth + 2;
	size_t cap_bufs = ((size_t)256 << 20) / r->buf_size;
	if (r->max_bufs > cap_bufs)
		r->max_bufs = cap_bufs < 2 ? 2 : cap_bufs;
	r->w = r->cons ? writer_call_new(r->cons, rec_done, r)
		       : writer_open(o->io, r->fd, r->pipe, r->depth, rec_done, r);
	r->res->io_used = r->w->ops->name;
	return 0;
}

/*
 * The reader's priority and way of waiting, and its poll set.
 *
 * When a ring holds fewer than 4 samples (the stress case: -m 8 with
 * 16 KiB stack copies holds one), a sample is lost unless the ring is
 * emptied before the next one, within one sampling period; a poll
 * wakeup takes longer than that on a loaded machine. Then the reader
 * polls the rings busily at the lowest real-time priority, so it is on
 * a CPU when the data arrives (measured here: at normal priority a busy
 * reader shares a CPU with the workload and loses nearly everything;
 * real-time + poll() still loses ~40%; real-time + busy ~5-15%, the
 * rest mostly the kernel's RT throttling, 50 ms a second). Children
 * never inherit it (SCHED_RESET_ON_FORK). Without the privilege, with
 * -r 0, or on one CPU, it stays with poll(). The real-time priority
 * itself (perf's -r) is taken whenever allowed: a sleeping reader costs
 * nothing at it, and its wakeups are then not delayed behind other
 * work (default setting on a loaded VM: 0.4% lost at normal priority).
 */
static void setup_reader(struct rec *r)
{
	const struct record_opts *o = r->o;
	uint64_t ring = r->ev.rings[0].size;
	/* a sample's size at most: fixed fields, callchain, regs, stack copy */
	uint64_t sample_max = 64 + 8 * 130;
	if (o->cg == RECORD_CG_DWARF)
		sample_max += 8 * 20 + 16 + (o->dwarf_size ? o->dwarf_size : RECORD_DWARF_SIZE);
	r->spin = false;
	bool rt = false;
	if (o->rt_prio > 0) {
		/* the reader is bound by latency, not CPU: on a loaded machine a
		 * wakeup at normal priority can come after the ring filled */
		struct sched_param sp = { .sched_priority = o->rt_prio };
		rt = sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) == 0;
	}
	if (rt && ring < 4 * sample_max && sysconf(_SC_NPROCESSORS_ONLN) > 1) {
		r->spin = true;
		rec_log(r, "rings hold under 4 samples: busy reader at real-time priority");
	}
	r->idle_since = sys_mono_ns();
	if (r->spin) {
		/* fault the buffers in now, not while a sample waits */
		struct wbuf *pre[64];
		size_t np = 0;
		while (np < r->max_bufs && np < 64 && (pre[np] = buf_take(r)))
			memset(pre[np++]->data, 0, r->buf_size);
		while (np)
			rec_done(r, pre[--np], 0);
	}
	r->pfds = xcalloc(r->ev.nr_rings, sizeof(*r->pfds));
	for (size_t i = 0; i < r->ev.nr_rings; i++)
		r->pfds[i] = (struct pollfd){ .fd = r->ev.rings[i].fd, .events = POLLIN };
}

static int setup(struct rec *r, int *go_fd, int *exec_fd)
{
	const struct record_opts *o = r->o;
	int cpus[1024], rc;
	size_t ncpu = record_cpus(o, cpus);
	if (!ncpu)
		return err_set(r->e, -EINVAL, "no CPUs to record on");
	r->cons = o->consumer;
	r->pipe = r->cons || !strcmp(o->output, "-");
	if ((rc = setup_targets(r, go_fd, exec_fd)) || (rc = setup_events(r, cpus, ncpu)) ||
	    (rc = setup_header(r)) || (rc = setup_writer(r)) || (rc = begin_file(r)))
		return rc;
	setup_reader(r);
	return synthesize(r, true);
}

static int start_workload(struct rec *r, int go_fd, int exec_fd)
{
	/* enable first: with -a the exec itself must be seen */
	if (r->o->system_wide || r->o->nr_targets || r->child <= 0) {
		int rc = events_enable(&r->ev, true);
		if (rc)
			return err_set(r->e, rc, "enabling events: %s", strerror(-rc));
	}
	if (r->child > 0) {
		if (write(go_fd, "g", 1) != 1)
			return err_set(r->e, -errno, "cannot start the command: %s", strerror(errno));
		int er = 0;
		ssize_t n;
		while ((n = read(exec_fd, &er, sizeof(er))) < 0 && errno == EINTR)
			;
		if (n == (ssize_t)sizeof(er)) {
			reap_child(r, false);
			return err_set(r->e, -ENOENT, "cannot run '%s': %s", r->o->cmd[0], strerror(er));
		}
		r->child_execd = true;
	}
	return 0;
}

static int loop(struct rec *r)
{
	const struct record_opts *o = r->o;
	uint64_t switch_deadline = o->switch_mode == RECORD_SWITCH_TIME
					   ? sys_mono_ns() + o->switch_ms * 1000000ULL
					   : 0;
	uint64_t last_house = 0;
	bool hung_up = false;
	for (;;) {
		if (o->stop && *o->stop) {
			r->res->interrupted = true;
			break;
		}
		/* Busy mode: when a ring holds only a few samples, the next one
		 * is lost unless the ring is emptied within a sampling period,
		 * shorter than a wakeup takes on a loaded machine; so check the
		 * rings again at once while data flows (no system call on that
		 * path), and sleep in poll only after 20 ms without any. The
		 * housekeeping below runs at most every millisecond then. */
		uint64_t t = sys_mono_ns();
		bool busy = r->spin && t - r->idle_since < 20000000ULL;
		bool house = !busy || t - last_house >= 1000000ULL;
		bool all_hup = false;
		if (house) {
			/* every ring hung up: the command is exiting; its SIGCHLD
			 * may have come before this poll, so do not sleep long */
			int n = poll(r->pfds, r->ev.nr_rings, busy ? 0 : hung_up ? 5 : 100);
			all_hup = r->ev.nr_rings > 0;
			if (n > 0) {
				if (!busy)
					r->res->wakeups++;
				/* a hung-up ring (its task exited) stays readable but
				 * would make every poll return at once: stop polling it */
				for (size_t i = 0; i < r->ev.nr_rings; i++)
					if (r->pfds[i].revents & (POLLHUP | POLLERR))
						r->pfds[i].fd = -1;
			}
			for (size_t i = 0; i < r->ev.nr_rings; i++)
				if (r->pfds[i].fd >= 0)
					all_hup = false;
			hung_up = all_hup;
		}
		bool any;
		int rc = drain(r, &any);
		if (rc)
			return rc;
		buildid_pass_end(&r->bid);
		if (any) {
			t = sys_mono_ns();
			r->idle_since = t;
			if (busy)
				r->res->wakeups++;
		}
		/* one round per pass; in busy mode one per millisecond */
		if ((!busy || house) && (rc = end_round(r)))
			return rc;
		if (r->cur && r->cur->len >= r->buf_size / 2)
			flush_cur(r);
		if (!house)
			continue;
		last_house = t;
		if (t - r->header_ns > 1000000000ULL) {
			writer_reap(r->w, false);
			if (refresh_header(r))
				r->header_ns = t;
		}
		if ((!any && !busy) || t - r->last_flush_ns > 250000000ULL)
			flush_cur(r);
		writer_reap(r->w, false);
		if (r->werr)
			return r->werr;
		if (r->cons && r->cons->tick) {
			rc = r->cons->tick(r->cons->ctx, t);
			if (rc < 0)
				return err_set(r->e, rc, "%s", strerror(-rc));
			if (rc > 0) {
				r->res->interrupted = true;
				break;
			}
		}
		if (r->child > 0 && !r->child_done) {
			int st;
			if (waitpid(r->child, &st, WNOHANG) == r->child) {
				r->child_done = true;
				r->res->child_ran = true;
				r->res->child_status = st;
				break;
			}
		} else if (o->nr_targets && !o->system_wide && (all_hup || !targets_alive(r))) {
			break;
		}
		bool sw = false;
		if (o->switch_mode == RECORD_SWITCH_SIGNAL && o->switch_req && *o->switch_req) {
			sw = true;
		} else if (o->switch_mode == RECORD_SWITCH_SIZE && r->off - r->data_off >= o->switch_size) {
			sw = true;
		} else if (switch_deadline && t >= switch_deadline) {
			sw = true;
			switch_deadline = t + o->switch_ms * 1000000ULL;
		}
		if (sw && r->pipe && !r->cons) { /* a named pipe cannot be rotated */
			sw = false;
			if (o->switch_req)
				*(volatile sig_atomic_t *)o->switch_req = 0;
		}
		if (sw) {
			if (o->switch_req)
				*(volatile sig_atomic_t *)o->switch_req = 0;
			if ((rc = rotate(r, false)))
				return rc;
		}
	}
	return 0;
}

int record_run(const struct record_opts *o, struct record_result *res, struct err *e)
{
	struct rec r;
	memset(&r, 0, sizeof(r));
	memset(res, 0, sizeof(*res));
	r.o = o;
	r.res = res;
	r.e = e;
	r.fd = -1;
	perf_feats_init(&r.feats);
	buildid_init(&r.bid);
	int go_fd = -1, exec_fd = -1;
	int rc = setup(&r, &go_fd, &exec_fd);
	bool started = false;
	if (!rc) {
		rc = start_workload(&r, go_fd, exec_fd);
		started = !rc;
	}
	if (go_fd >= 0)
		close(go_fd);
	if (exec_fd >= 0)
		close(exec_fd);
	if (!rc && o->buildid_dir && !r.pipe && !r.cons) {
		/* after the workload's fork: the thread is not in its child */
		uint8_t kid[20];
		int kn = buildid_kernel(kid);
		if (kn > 0)
			r.ksyms = bidcache_kallsyms_start(o->buildid_dir, kid, (size_t)kn);
	}
	if (!rc)
		rc = loop(&r);
	if (r.w && !started) {
		/* nothing was recorded: leave no half-made file behind */
		writer_free(r.w);
		r.w = NULL;
		if (!r.pipe && r.path[0])
			unlink(r.path);
	}
	if (r.w) {
		/* stop the events, take what is left, close the file */
		events_enable(&r.ev, false);
		bool any = true;
		for (int i = 0; i < 4 && any && !r.werr; i++)
			if (drain(&r, &any) || end_round(&r))
				break;
		if (!r.werr)
			end_round(&r);
		int frc = o->switch_mode != RECORD_SWITCH_NONE && (!r.pipe || r.cons) ? rotate(&r, true)
									     : finish_file(&r);
		if (!frc)
			res->files = res->files ? res->files : 1;
		if (!rc && frc)
			rc = frc;
		if (rc == r.werr && rc) {
			err_set(e, rc, "%s: %s", r.path, strerror(-rc));
		}
		writer_free(r.w);
	}
	if (!res->last_file[0])
		snprintf(res->last_file, sizeof(res->last_file), "%s", r.path[0] ? r.path : o->output);
	reap_child(&r, true);
	if (r.fd >= 0 && r.fd != STDOUT_FILENO)
		close(r.fd);
	if (r.fd < 0 && r.child > 0 && !r.child_done) {
		kill(r.child, SIGKILL);
		waitpid(r.child, NULL, 0);
	}
	events_close(&r.ev);
	bidcache_kallsyms_free(r.ksyms);
	buf_free_all(&r);
	free(r.rounds);
	free(r.pids);
	free(r.pfds);
	free(r.scratch);
	if (r.zc)
		ZSTD_freeCCtx(r.zc);
	buildid_release(&r.bid);
	perf_feats_release(&r.feats);
	if (rc && !e->set)
		err_set(e, rc, "%s", strerror(-rc));
	return rc;
}

void record_summary(FILE *f, const struct record_opts *o, const struct record_result *res)
{
	if (o->quiet)
		return;
	if (res->files) {
		double mb = (double)res->bytes / (1024.0 * 1024.0);
		double pct = res->samples + res->lost
				     ? 100.0 * (double)res->lost / (double)(res->samples + res->lost)
				     : 0.0;
		fprintf(f, "[ scorch record: Woken up %llu times to write data (%s writer) ]\n",
			(unsigned long long)res->wakeups, res->io_used ? res->io_used : "?");
		if (o->comp_level && res->comp_out)
			fprintf(f,
				"[ scorch record: Captured and wrote %.3f MB %s (%llu samples), compressed (original %.3f MB, ratio is %.3f) ]\n",
				mb, res->last_file, (unsigned long long)res->samples,
				(double)res->comp_in / (1024.0 * 1024.0),
				(double)res->comp_in / (double)res->comp_out);
		else
			fprintf(f, "[ scorch record: Captured and wrote %.3f MB %s (%llu samples) ]\n",
				mb, res->last_file, (unsigned long long)res->samples);
		if (res->lost)
			fprintf(f, "[ scorch record: Lost %llu samples (%.2f%%), recorded as LOST records ]\n",
				(unsigned long long)res->lost, pct);
	}
	if (res->child_ran) {
		int st = res->child_status;
		if (WIFSIGNALED(st))
			fprintf(f, "[ scorch record: command terminated by signal %d (%s) ]\n",
				WTERMSIG(st), strsignal(WTERMSIG(st)));
		else if (WIFEXITED(st) && WEXITSTATUS(st))
			fprintf(f, "[ scorch record: command exited with status %d ]\n",
				WEXITSTATUS(st));
	}
}
