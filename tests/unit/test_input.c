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
	struct input *in = input_open_fd(fd, "t", NULL, e);
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

/* ---- a file's data read into chunks: every record once, in order, with
 * its bytes and place, however many records are held (a held chunk is not
 * read into again: its unread tail goes to a new one) ---- */

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

static void share_open(struct share_reader *r, int fd)
{
	struct err e = { 0 };
	memset(r, 0, sizeof(*r));
	r->in = input_open_fd(fd, "share", NULL, &e);
	CHECK(r->in);
	r->r = 1;
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

static void chunks_case(int mb, bool truncate)
{
	int fd = share_file(mb, truncate);
	struct share_reader ref, a;
	share_open(&ref, fd);
	share_step(&ref, LONG_MAX);
	CHECK(truncate ? ref.r < 0 : ref.r == 0);
	CHECK(ref.n > 50);
	/* again, holding the chunks of some records for a while */
	share_open(&a, fd);
	struct input_chunk *held[16] = { 0 };
	struct input_rec rec;
	struct err e = { 0 };
	for (long i = 0; a.r > 0; i++) {
		a.r = input_next(a.in, &rec, &e);
		if (a.r <= 0)
			break;
		a.h = a.h * 31 + hash_mem(rec.p, rec.size) + rec.file_off;
		a.n++;
		CHECK(rec.chunk != NULL);
		if (i % 7 == 0) {
			input_chunk_put(held[i % 16]);
			input_chunk_get(rec.chunk);
			held[i % 16] = rec.chunk;
		}
	}
	for (int i = 0; i < 16; i++)
		input_chunk_put(held[i]);
	CHECK_EQ(a.n, ref.n);
	CHECK_EQ(a.h, ref.h);
	CHECK_EQ(a.r, ref.r);
	CHECK_EQ(input_stats(a.in)->bytes_read, input_stats(ref.in)->bytes_read);
	input_free(a.in);
	input_free(ref.in);
	close(fd);
}

TEST(input_chunks)
{
	chunks_case(6, false);
	chunks_case(3, true);
}
