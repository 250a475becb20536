/* test_input.c: the input front end on synthetic streams: pipe format,
 * HEADER_ATTR, COMPRESSED records whose decompressed records span record
 * boundaries, a truncated stream, a hostile record size. */
#include "test.h"
#include "analyze/input.h"
#include <fcntl.h>
#include <sys/mman.h>
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
