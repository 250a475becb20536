/* test_perfparser.c: the perfparser stream writer's exact bytes, interning,
 * task-event hold-back, tracepoint formats and the --print-stats model. */
#include "output/perfparser.h"
#include "output/perfparser_stats.h"
#include "output/perfparser_trace.h"
#include "output/qdatastream.h"
#include "test.h"

static struct perfparser *mem_writer(bool header)
{
	struct perfparser_opts o;
	perfparser_opts_init(&o);
	o.fd = -1;
	o.header = header;
	return perfparser_new(&o);
}

/* Check that b at *at holds one event of exactly these payload bytes. */
static void expect_event(const struct buf *b, size_t *at, const uint8_t *want, size_t n)
{
	CHECK(*at + 4 + n <= b->len);
	const uint8_t *p = b->data + *at;
	CHECK_EQ(p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24, n);
	if (memcmp(p + 4, want, n)) {
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, "%02x%s", p[4 + i], p[4 + i] != want[i] ? "*" : "");
		fprintf(stderr, "\n");
	}
	CHECK(!memcmp(p + 4, want, n));
	*at += 4 + n;
}

TEST(perfparser_header_magic_version)
{
	struct perfparser *pp = mem_writer(true);
	const struct buf *b = perfparser_buffer(pp);
	CHECK_EQ(b->len, 16);
	CHECK(!memcmp(b->data, "QPERFSTREAM\0\x13\0\0\0", 16));
	perfparser_free(pp);
}

TEST(perfparser_string_interning)
{
	struct perfparser *pp = mem_writer(false);
	CHECK_EQ(perfparser_string(pp, "abc"), 0);
	CHECK_EQ(perfparser_string(pp, "de"), 1);
	CHECK_EQ(perfparser_string(pp, "abc"), 0);
	CHECK_EQ(perfparser_string(pp, ""), -1);
	CHECK_EQ(perfparser_string(pp, NULL), -1);
	const struct buf *b = perfparser_buffer(pp);
	size_t at = 0;
	static const uint8_t s0[] = { 5, 0, 0, 0, 0, 0, 0, 0, 3, 'a', 'b', 'c' };
	static const uint8_t s1[] = { 5, 0, 0, 0, 1, 0, 0, 0, 2, 'd', 'e' };
	expect_event(b, &at, s0, sizeof(s0));
	expect_event(b, &at, s1, sizeof(s1));
	CHECK_EQ(at, b->len);
	perfparser_free(pp);
}

TEST(perfparser_location_and_symbol_bytes)
{
	struct perfparser *pp = mem_writer(false);
	struct perfparser_location l = { 0x1122334455667788ull, -1, 0xffffffffu, 7, 0, -1 };
	CHECK_EQ(perfparser_location(pp, &l), 0);
	CHECK_EQ(perfparser_location(pp, &l), 0);
	l.parent = 0;
	CHECK_EQ(perfparser_location(pp, &l), 1);
	perfparser_symbol(pp, 0, 2, -1, 3, true);
	const struct buf *b = perfparser_buffer(pp);
	size_t at = 0;
	static const uint8_t l0[] = { 3, 0, 0, 0, 0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
				      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 7,
				      0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t l1[] = { 3, 0, 0, 0, 1, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
				      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 7,
				      0, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t s[] = { 4, 0, 0, 0, 0, 0, 0, 0, 2, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 3, 1 };
	expect_event(b, &at, l0, sizeof(l0));
	expect_event(b, &at, l1, sizeof(l1));
	expect_event(b, &at, s, sizeof(s));
	CHECK_EQ(at, b->len);
	perfparser_free(pp);
}

TEST(perfparser_sample_bytes_and_task_holdback)
{
	struct perfparser *pp = mem_writer(false);
	/* a thread end at time 20 is held back until a sample at >= 20 */
	perfparser_thread_end(pp, 5, 6, 20, 1);
	int32_t frames[2] = { 1, 2 };
	struct perfparser_cost c = { 0, 0x100 };
	perfparser_sample(pp, false, 5, 6, 10, 1, frames, 2, 1, &c, 1, NULL, 0);
	perfparser_sample(pp, false, 5, 6, 20, 1, frames, 0, 0, &c, 1, NULL, 0);
	const struct buf *b = perfparser_buffer(pp);
	size_t at = 0;
	static const uint8_t s1[] = { 13, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 1,
				      0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 1,
				      0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0 };
	static const uint8_t te[] = { 1, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 1 };
	static const uint8_t s2[] = { 13, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 1,
				      0, 0, 0, 0, 0,
				      0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0 };
	expect_event(b, &at, s1, sizeof(s1));
	expect_event(b, &at, te, sizeof(te));
	expect_event(b, &at, s2, sizeof(s2));
	CHECK_EQ(at, b->len);
	/* the end releases everything still held */
	perfparser_command(pp, 5, 6, 99, 0, "x");
	size_t before = b->len;
	perfparser_flush(pp, true);
	CHECK(b->len > before);
	perfparser_free(pp);
}

TEST(perfparser_qstring_utf16)
{
	struct buf b;
	buf_init(&b, 0);
	qds_put_qstring(&b, "a\xc3\xa9\xf0\x9f\x98\x80"); /* a, é, 😀 */
	static const uint8_t want[] = { 0, 0, 0, 8, 0, 'a', 0, 0xe9, 0xd8, 0x3d, 0xde, 0x00 };
	CHECK_EQ(b.len, sizeof(want));
	CHECK(!memcmp(b.data, want, sizeof(want)));
	buf_release(&b);
}

TEST(perfparser_progress_and_error_bytes)
{
	struct perfparser *pp = mem_writer(false);
	perfparser_progress(pp, 0.5);
	perfparser_error(pp, 2, "x");
	const struct buf *b = perfparser_buffer(pp);
	size_t at = 0;
	static const uint8_t p[] = { 9, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t e[] = { 8, 0, 0, 0, 2, 0, 0, 0, 2, 0, 'x' };
	expect_event(b, &at, p, sizeof(p));
	expect_event(b, &at, e, sizeof(e));
	perfparser_free(pp);
}

static void put_le32(struct buf *b, uint32_t v)
{
	uint8_t x[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	buf_append(b, x, 4);
}

static void put_le64(struct buf *b, uint64_t v)
{
	put_le32(b, (uint32_t)v);
	put_le32(b, (uint32_t)(v >> 32));
}

TEST(perfparser_trace_formats_and_fields)
{
	static const char fmt[] =
		"name: main\nID: 1329\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		"\n"
		"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:char comm[4];\toffset:16;\tsize:4;\tsigned:1;\n"
		"\tfield:s16 v[2];\toffset:20;\tsize:4;\tsigned:1;\n"
		"\n"
		"print fmt: \"x\"\n";
	struct buf t;
	buf_init(&t, 0);
	buf_append(&t, "\027\bDtracing0.6", 13);
	uint8_t misc[] = { 0, 0, 8 };
	buf_append(&t, misc, 3); /* version NUL, little endian, long size 8 */
	put_le32(&t, 4096);
	buf_append(&t, "header_page", 12);
	put_le64(&t, 0);
	buf_append(&t, "header_event", 13);
	put_le64(&t, 0);
	put_le32(&t, 0); /* no ftrace formats */
	put_le32(&t, 1); /* one system */
	buf_append(&t, "probe", 6);
	put_le32(&t, 1);
	put_le64(&t, sizeof(fmt) - 1);
	buf_append(&t, fmt, sizeof(fmt) - 1);

	struct perfparser_trace *tr = perfparser_trace_parse(t.data, t.len);
	CHECK(tr);
	CHECK_EQ(tr->nr, 1);
	struct perfparser_trace_format *f = perfparser_trace_find(tr, 1329);
	CHECK(f);
	CHECK_STR(f->system, "probe");
	CHECK_STR(f->name, "main");
	CHECK_EQ(f->nr_common, 2);
	CHECK_EQ(f->nr_fields, 3);
	CHECK_STR(f->fields[0].name, "__probe_ip");
	CHECK(f->fields[0].flags & PPT_FIELD_IS_LONG);
	CHECK_STR(f->fields[1].name, "comm");
	CHECK(f->fields[1].flags & PPT_FIELD_IS_STRING);
	CHECK_EQ(f->fields[2].elementsize, 2);
	for (uint32_t i = 0; i < f->nr_fields; i++)
		f->fields[i].name_id = (int32_t)i;

	uint8_t raw[24] = { 0 };
	raw[8] = 0x10; /* __probe_ip = 0x10 */
	memcpy(raw + 16, "ab\0\0", 4);
	raw[20] = 0xff, raw[21] = 0xff; /* v[0] = -1 */
	raw[22] = 2;                    /* v[1] = 2 */
	struct buf out;
	buf_init(&out, 0);
	perfparser_trace_encode_fields(tr, f, raw, sizeof(raw), &out);
	static const uint8_t want[] = {
		0, 0, 0, 3,
		0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,          /* ULongLong */
		0, 0, 0, 1, 0, 0, 0, 12, 0, 0, 0, 0, 4, 'a', 'b', 0, 0,        /* QByteArray */
		0, 0, 0, 2, 0, 0, 0, 9, 0, 0, 0, 0, 2,                         /* QVariantList */
		0, 0, 0, 2, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 2, 0, 0, 0, 0, 2,
	};
	CHECK_EQ(out.len, sizeof(want));
	CHECK(!memcmp(out.data, want, sizeof(want)));
	/* a raw record too short for a field: an invalid QVariant, no overread */
	out.len = 0;
	perfparser_trace_encode_fields(tr, f, raw, 10, &out);
	CHECK_EQ(out.len, 4 + 3 * (4 + 5));
	buf_release(&out);
	perfparser_trace_free(tr);
	/* truncated tracing data: no crash, what was read is kept */
	for (size_t n = 0; n < t.len; n += 7)
		perfparser_trace_free(perfparser_trace_parse(t.data, n));
	buf_release(&t);
}

TEST(perfparser_stats_round_model)
{
	/* file recorded by perf >= 3.17: buffering by rounds, half flushed per round */
	struct perfparser_stats *st = perfparser_stats_new(32768 * 1024u, 1048576 * 1024u);
	perfparser_stats_attr(st, false);
	perfparser_stats_features(st, "6.1.0");
	perfparser_stats_event(st, PPS_MMAP, 0, 100);
	perfparser_stats_event(st, PPS_TASK, 5, 32);
	perfparser_stats_event(st, PPS_SAMPLE, 10, 200);
	perfparser_stats_event(st, PPS_SAMPLE, 30, 200);
	perfparser_stats_round(st);
	perfparser_stats_event(st, PPS_SAMPLE, 5, 200); /* older than what was flushed */
	perfparser_stats_finish(st);
	const struct perfparser_stats_result *r = perfparser_stats_result(st);
	CHECK_EQ(r->samples, 3);
	CHECK_EQ(r->mmaps, 1);
	CHECK_EQ(r->rounds, 2);
	CHECK_EQ(r->max_time, 30);
	CHECK_EQ(r->max_reorder_time, 25);
	CHECK_EQ(r->max_buffer_size, 532);
	CHECK(r->buffer_flushes >= 2);
	CHECK_EQ(r->samples_time_violations, 1);
	perfparser_stats_free(st);
}

TEST(perfparser_trace_format_with_nul)
{
	/* a NUL inside a field line (fuzzer finding): no read past the value */
	static const char fmt[] = "name: x\nID: 7\nformat:\n\tfield:int a\0b;\toffset:\0;\tsize:4;\n\n"
				  "\tfield:int c;\toffset:0;\tsize:4;\tsigned:1;\n\n";
	struct buf t;
	buf_init(&t, 0);
	buf_append(&t, "\027\bDtracing0.6\0\0\x08", 16);
	put_le32(&t, 4096);
	buf_append(&t, "header_page", 12);
	put_le64(&t, 0);
	buf_append(&t, "header_event", 13);
	put_le64(&t, 0);
	put_le32(&t, 0);
	put_le32(&t, 1);
	buf_append(&t, "s", 2);
	put_le32(&t, 1);
	put_le64(&t, sizeof(fmt) - 1);
	buf_append(&t, fmt, sizeof(fmt) - 1);
	struct perfparser_trace *tr = perfparser_trace_parse(t.data, t.len);
	CHECK(tr);
	struct perfparser_trace_format *f = perfparser_trace_find(tr, 7);
	CHECK(f);
	CHECK_EQ(f->nr_fields, 1);
	CHECK_STR(f->fields[0].name, "c");
	perfparser_trace_free(tr);
	buf_release(&t);
}
