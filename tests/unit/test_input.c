/* test_input.c: the input front end on synthetic streams: pipe format,
 * HEADER_ATTR, COMPRESSED records whose decompressed records span record
 * boundaries, a truncated stream, a hostile record size; shared reading;
 * a mapped file read in windows, and one that shrinks while read. */
#include "test.h"
#include "analyze/input.h"
#include "util/hash.h"
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

static uint8_t out[1 << 20];
static size_t outn;

static void put(const void *p, size_t n)
{
	memcpy(out + outn, p, n);
	outn += n;
}

static void put_hdr(uint32_t type, uint16_t size)
{
	struct perf_event_header h = { type, 0, size };
	put(&h, 8);
}

static void pipe_head_and_attr(void)
{
	outn = 0;
	uint64_t magic = PERF_MAGIC2, sz = 16;
	put(&magic, 8);
	put(&sz, 8);
	struct perf_event_attr a = { 0 };
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	put_hdr(PERF_RECORD_HEADER_ATTR, (uint16_t)(8 + sizeof(a) + 8));
	put(&a, sizeof(a));
	uint64_t id = 42;
	put(&id, 8);
}

/* n sample records, times 1..n, into buf */
static size_t samples(uint8_t *buf, int n)
{
	size_t k = 0;
	for (int i = 1; i <= n; i++) {
		struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, 32 };
		uint64_t ip = 0x1000 + i, tid = (7ull << 32) | 7, t = (uint64_t)i;
		memcpy(buf + k, &h, 8);
		memcpy(buf + k + 8, &ip, 8);
		memcpy(buf + k + 16, &tid, 8);
		memcpy(buf + k + 24, &t, 8);
		k += 32;
	}
	return k;
}

static int open_mem(void)
{
	int fd = memfd_create("t", 0);
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, out, outn), (long long)outn);
	lseek(fd, 0, SEEK_SET);
	return fd;
}

static int count(int fd, struct err *e, uint64_t *last_ip)
{
	struct input *in = input_open_fd(fd, "t", e);
	if (!in)
		return -1;
	int n = 0, r;
	struct input_rec rec;
	while ((r = input_next(in, &rec, e)) > 0) {
		const struct perf_event_header *h = (const void *)rec.p;
		if (h->type == PERF_RECORD_SAMPLE) {
			n++;
			memcpy(last_ip, rec.p + 8, 8);
		}
	}
	input_free(in);
	return r < 0 ? -1 : n;
}

TEST(input_pipe_compressed_records_span_boundaries)
{
	pipe_head_and_attr();
	static uint8_t raw[64 * 32];
	size_t rn = samples(raw, 64);
	static uint8_t z[1 << 16];
	size_t zn = ZSTD_compress(z, sizeof(z), raw, rn, 1);
	CHECK(!ZSTD_isError(zn));
	/* split the frame into three COMPRESSED records at odd places */
	size_t cut[4] = { 0, zn / 3 + 1, 2 * zn / 3 + 5, zn };
	/* (record sizes need not be multiples of 8 here: the records after
	 * them are misaligned, which the reader must handle too) */
	for (int i = 0; i < 3; i++) {
		size_t len = cut[i + 1] - cut[i];
		put_hdr(PERF_RECORD_COMPRESSED, (uint16_t)(8 + len));
		put(z + cut[i], len);
	}
	struct err e = { 0 };
	uint64_t ip = 0;
	int fd = open_mem();
	int n = count(fd, &e, &ip);
	close(fd);
	if (n != 64)
		fprintf(stderr, "err: %s\n", e.msg);
	CHECK_EQ(n, 64);
	CHECK_EQ(ip, 0x1000 + 64);
}

TEST(input_pipe_truncated_and_hostile_sizes)
{
	pipe_head_and_attr();
	static uint8_t raw[4 * 32];
	samples(raw, 4);
	put(raw, sizeof(raw) - 5); /* last record cut short */
	struct err e = { 0 };
	uint64_t ip;
	int p[2];
	CHECK_EQ(pipe(p), 0);
	CHECK_EQ(write(p[1], out, outn), (long long)outn);
	close(p[1]);
	CHECK_EQ(count(p[0], &e, &ip), -1);
	close(p[0]);
	CHECK(e.set && e.has_offset);
	CHECK(strstr(e.msg, "runs past the end") != NULL);

	pipe_head_and_attr();
	put_hdr(PERF_RECORD_SAMPLE, 4); /* size below the header */
	struct err e2 = { 0 };
	int fd = open_mem();
	CHECK_EQ(count(fd, &e2, &ip), -1);
	close(fd);
	CHECK(strstr(e2.msg, "smaller than its header") != NULL);
}

/* ---- shared reading: inputs of one file on one share read what a lone
 * input reads, in any interleaving, when one falls far behind (its
 * chunks dropped and read again) and when one leaves early ---- */

/* A pipe-format file of records of many sizes (so chunks are cut inside
 * records at many places), about mb MB, the last record cut short when
 * truncate is set. */
static int share_file(int mb, bool truncate)
{
	int fd = memfd_create("share", 0);
	CHECK(fd >= 0);
	pipe_head_and_attr();
	CHECK_EQ(write(fd, out, outn), (long long)outn);
	static uint8_t rec[65528];
	uint64_t total = 0, i = 0;
	while (total < (uint64_t)mb << 20) {
		uint16_t size = (uint16_t)(16 + (i * 7919) % 65000) & ~7u;
		struct perf_event_header h = { PERF_RECORD_SAMPLE + 1000, 0, size }; /* a type nobody parses */
		memcpy(rec, &h, 8);
		memcpy(rec + 8, &i, 8);
		for (size_t k = 16; k < size; k++)
			rec[k] = (uint8_t)(i + k);
		size_t n = truncate && total + size >= (uint64_t)mb << 20 ? size / 2 : size;
		CHECK_EQ(write(fd, rec, n), (long long)n);
		total += size;
		i++;
	}
	return fd;
}

struct share_reader {
	struct input *in;
	uint64_t h;       /* records' bytes and places, hashed */
	long n;
	int r;            /* input_next's last result */
	char err[600];
};

static void share_open(struct share_reader *r, int fd, struct input_share *s, int index)
{
	struct err e = { 0 };
	memset(r, 0, sizeof(*r));
	r->in = input_open_fd(fd, "share", &e);
	CHECK(r->in);
	r->r = 1;
	if (s)
		input_share_attach(r->in, s, index);
}

/* up to k more records */
static void share_step(struct share_reader *r, long k)
{
	struct input_rec rec;
	struct err e = { 0 };
	while (k-- > 0 && r->r > 0) {
		r->r = input_next(r->in, &rec, &e);
		if (r->r > 0) {
			r->h = r->h * 31 + hash_mem(rec.p, rec.size) + rec.file_off;
			r->n++;
		} else if (r->r < 0) {
			snprintf(r->err, sizeof(r->err), "%s @%llu", e.msg, (unsigned long long)e.offset);
		}
	}
}

static void share_case(int mb, bool truncate)
{
	int fd = share_file(mb, truncate);
	struct share_reader ref, a, b, c;
	share_open(&ref, fd, NULL, 0);
	share_step(&ref, LONG_MAX);
	CHECK(truncate ? ref.r < 0 : ref.r == 0);
	if (ref.n <= 50)
		fprintf(stderr, "ref: %ld records, %d, %s\n", ref.n, ref.r, ref.err);
	CHECK(ref.n > 50);
	uint64_t bytes = input_stats(ref.in)->bytes_read;

	/* one reader alone: what reading once takes (a shared chunk is
	 * read whole, the tail of the one before with it) */
	struct input_share *s = input_share_new(1);
	share_open(&a, fd, s, 0);
	share_step(&a, LONG_MAX);
	CHECK_EQ(a.h, ref.h);
	input_free(a.in);
	uint64_t once = input_share_bytes(s);
	CHECK(once >= bytes);
	input_share_free(s);

	/* three readers, one after the other in steps of many sizes */
	s = input_share_new(3);
	share_open(&a, fd, s, 0);
	share_open(&b, fd, s, 1);
	share_open(&c, fd, s, 2);
	for (long k = 1; a.r > 0 || b.r > 0 || c.r > 0; k = k * 3 % 101 + 1) {
		share_step(&a, k);
		share_step(&b, 2 * k);
		share_step(&c, 100 - k);
	}
	struct share_reader *all[] = { &a, &b, &c };
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(all[i]->n, ref.n);
		CHECK_EQ(all[i]->h, ref.h);
		CHECK_EQ(all[i]->r, ref.r);
		CHECK(!strcmp(all[i]->err, ref.err));
		CHECK_EQ(input_stats(all[i]->in)->bytes_read, bytes);
		input_free(all[i]->in);
	}
	CHECK_EQ(input_share_bytes(s), once);
	input_share_free(s);

	/* one reader goes through it all before the other starts: the
	 * table cannot hold that much, the chunks it dropped are read again;
	 * a third leaves half way */
	s = input_share_new(3);
	share_open(&a, fd, s, 0);
	share_open(&b, fd, s, 1);
	share_open(&c, fd, s, 2);
	share_step(&c, ref.n / 2);
	input_free(c.in);
	share_step(&a, LONG_MAX);
	share_step(&b, LONG_MAX);
	CHECK_EQ(a.h, ref.h);
	CHECK_EQ(b.h, ref.h);
	CHECK(!strcmp(b.err, ref.err));
	CHECK(input_share_bytes(s) >= once);
	if (mb > 32) /* more than the table holds */
		CHECK(input_share_bytes(s) > once);
	input_free(a.in);
	input_free(b.in);
	input_share_free(s);

	/* a reader that never comes (its open failed) */
	s = input_share_new(2);
	share_open(&a, fd, s, 0);
	input_share_leave(s, 1);
	share_step(&a, LONG_MAX);
	CHECK_EQ(a.h, ref.h);
	input_free(a.in);
	input_share_free(s);

	input_free(ref.in);
	close(fd);
}

TEST(input_shared_reading)
{
	/* shared reading is pread's: a mapped file is read in place */
	setenv("SCORCH_INPUT_WINDOWS", "0", 1);
	share_case(6, false);
	share_case(40, false); /* more than the table holds */
	share_case(3, true);
	unsetenv("SCORCH_INPUT_WINDOWS");
}

/* A reader's records hold references to its own view of a shared chunk
 * (share_view), never to the shared chunk, whose count both readers would
 * otherwise move at every record: however many records a reader holds,
 * the shared chunk has one reference from it. The bytes are the shared
 * chunk's (no copy), and what the views hold is let go with them. */
TEST(input_shared_reading_views)
{
	setenv("SCORCH_INPUT_WINDOWS", "0", 1);
	int fd = share_file(4, false);
	struct input_share *s = input_share_new(2);
	struct share_reader a, b;
	share_open(&a, fd, s, 0);
	share_open(&b, fd, s, 1);
	struct input_chunk *held[64];
	int nh = 0, views = 0;
	struct input_rec rec;
	struct err e = { 0 };
	while (input_next(a.in, &rec, &e) > 0) {
		CHECK(rec.chunk != NULL);
		struct input_chunk *u = rec.chunk->under;
		CHECK(u != NULL && rec.chunk->share == NULL && u->share == s);
		CHECK(rec.p >= u->data && rec.p + rec.size <= u->data + u->len);
		/* b comes for the same chunk: it gets a view of its own */
		share_step(&b, 1);
		if (nh < 64) {
			input_chunk_get(rec.chunk);
			held[nh++] = rec.chunk;
		}
		/* a's records, held or not, count once on the shared chunk;
		 * b's view, a's view and the table hold at most one each */
		CHECK(__atomic_load_n(&u->refs, __ATOMIC_RELAXED) <= 3);
		views += nh > 1 && held[nh - 1] != held[nh - 2];
	}
	CHECK(views > 0); /* the held records span chunks */
	share_step(&b, LONG_MAX);
	CHECK_EQ(b.r, 0);
	for (int i = 0; i < nh; i++)
		input_chunk_put(held[i]);
	input_free(a.in);
	input_free(b.in);
	input_share_free(s);
	unsetenv("SCORCH_INPUT_WINDOWS");
	close(fd);
}

/* ---- a mapped file read in place, in windows (input.c, window_next) ---- */

/* Every record and error as pread gives them, whatever the windows' size
 * (records cut at window ends at many places), the last record cut short
 * or not; a lone -j 2 reader never joins a share. */
static void windows_case(int mb, bool truncate)
{
	int fd = share_file(mb, truncate);
	struct share_reader ref, w;
	setenv("SCORCH_INPUT_WINDOWS", "0", 1);
	share_open(&ref, fd, NULL, 0);
	share_step(&ref, LONG_MAX);
	setenv("SCORCH_INPUT_WINDOWS", "1", 1); /* in place (pread is the default) */
	CHECK(!input_in_place(ref.in)); /* the pipeline asks for no prefetches */
	CHECK(ref.n > 50);
	CHECK(truncate ? ref.r < 0 : ref.r == 0);
	static const char *sizes[] = { "64", "4096", "65544", "1000000", NULL };
	for (int i = 0; i < 5; i++) {
		if (sizes[i])
			setenv("SCORCH_INPUT_WINDOW", sizes[i], 1);
		else
			unsetenv("SCORCH_INPUT_WINDOW");
		struct input_share *s = input_share_new(1);
		share_open(&w, fd, s, 0);
		CHECK(input_in_place(w.in)); /* and for them here */
		share_step(&w, LONG_MAX);
		CHECK_EQ(w.n, ref.n);
		CHECK_EQ(w.h, ref.h);
		CHECK_EQ(w.r, ref.r);
		CHECK(!strcmp(w.err, ref.err));
		CHECK_EQ(input_stats(w.in)->bytes_read, input_stats(ref.in)->bytes_read);
		CHECK_EQ(input_share_bytes(s), 0); /* nothing pread */
		struct err e = { 0 };
		CHECK_EQ(input_fault(w.in, &e), 0);
		input_free(w.in);
		input_share_free(s);
	}
	unsetenv("SCORCH_INPUT_WINDOW");
	unsetenv("SCORCH_INPUT_WINDOWS");
	input_free(ref.in);
	close(fd);
}

TEST(input_windows)
{
	windows_case(6, false);
	windows_case(3, true);
}

/* The file shrinks while it is read in place: SIGBUS, where pread would
 * have come back short. The reading ends with one error at the first
 * place that is gone, not a crash, and what was read before is the
 * file's. A SIGBUS elsewhere still ends the process. */
TEST(input_windows_file_shrinks)
{
	int fd = share_file(6, false);
	struct share_reader ref, w;
	setenv("SCORCH_INPUT_WINDOWS", "0", 1);
	share_open(&ref, fd, NULL, 0);
	share_step(&ref, 60);
	setenv("SCORCH_INPUT_WINDOWS", "1", 1);
	CHECK_EQ(ref.n, 60);
	setenv("SCORCH_INPUT_WINDOW", "1000000", 1);
	share_open(&w, fd, NULL, 0);
	share_step(&w, 60);
	CHECK_EQ(w.h, ref.h);
	/* cut the file 5000 bytes past where reading is, inside the window */
	uint64_t at = input_pos(w.in), cut = at + 5000;
	CHECK_EQ(ftruncate(fd, (off_t)cut), 0);
	share_step(&w, LONG_MAX);
	CHECK(w.r < 0);
	CHECK(strstr(w.err, "could not be read here: it is shorter than when it was opened") != NULL);
	/* the fault is at the first page past the cut */
	uint64_t off = strtoull(strrchr(w.err, '@') + 1, NULL, 10);
	CHECK(off >= (cut & ~(uint64_t)4095) && off < cut + 4096 + 65536);
	struct err e = { 0 };
	CHECK(input_fault(w.in, &e) != 0);
	CHECK_EQ(e.offset, off);
	input_free(w.in);
	input_free(ref.in);
	close(fd);

	/* the slot is free again: a new input reads in place, no fault */
	fd = share_file(1, false);
	share_open(&w, fd, NULL, 0);
	share_step(&w, LONG_MAX);
	CHECK_EQ(w.r, 0);
	CHECK_EQ(input_fault(w.in, &e), 0);
	input_free(w.in);
	unsetenv("SCORCH_INPUT_WINDOW");
	unsetenv("SCORCH_INPUT_WINDOWS");

	/* a SIGBUS outside any input's mapping is not ours */
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		int dn = open("/dev/null", O_WRONLY);
		if (dn >= 0)
			dup2(dn, 2); /* a sanitizer's report of it */
		int mf = memfd_create("bus", 0);
		if (mf < 0 || ftruncate(mf, 8192))
			_exit(3);
		volatile uint8_t *p = mmap(NULL, 8192, PROT_READ, MAP_SHARED, mf, 0);
		if (p == MAP_FAILED || ftruncate(mf, 0))
			_exit(4);
		(void)p[4096];
		_exit(5);
	}
	int st = 0;
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	/* killed by it (a sanitizer's handler, put back, exits instead) */
	CHECK(WIFSIGNALED(st) ? WTERMSIG(st) == SIGBUS
			      : WIFEXITED(st) && WEXITSTATUS(st) != 0 && WEXITSTATUS(st) < 3);
	close(fd);
}
