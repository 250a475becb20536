/* test_script.c: perf script's pieces that need no recording: the data
 * source decoding, event names of unnamed attrs, the tracing data parser. */
#include "test.h"
#include "output/script.h"
#include "output/tpformat.h"
#include "perf/tracing.h"

TEST(script_data_src_as_perf)
{
	char b[256];
	/* perf 6.1 on a PEBS load-latency sample (quipper weight_struct) */
	script_data_src(0x11868100242ull, b, sizeof b);
	CHECK_STR(b, "|OP LOAD|LVL LFB/MAB or LFB/MAB hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A");
	script_data_src(0x10268100142ull, b, sizeof b);
	CHECK_STR(b, "|OP LOAD|LVL L1 or L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A");
	script_data_src(0, b, sizeof b);
	CHECK_STR(b, "|OP No|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A");
}

TEST(script_event_names_as_perf)
{
	struct perf_event_attr a = { 0 };
	char b[128];
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.precise_ip = 2;
	a.exclude_guest = 1;
	script_event_name(&a, b, sizeof b);
	CHECK_STR(b, "cycles:ppH");
	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	script_event_name(&a, b, sizeof b);
	CHECK_STR(b, "cpu-clock:u");
	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_HW_CACHE;
	a.config = 0 | (0 << 8) | (1 << 16);
	a.exclude_guest = 1; /* perf record's default: no modifier */
	script_event_name(&a, b, sizeof b);
	CHECK_STR(b, "L1-dcache-load-misses");
	a.type = PERF_TYPE_RAW;
	a.config = 0x1cd;
	script_event_name(&a, b, sizeof b);
	CHECK_STR(b, "raw 0x1cd");
	a.exclude_guest = 0; /* host and guest both counted: perf says so */
	script_event_name(&a, b, sizeof b);
	CHECK_STR(b, "raw 0x1cd:HG");
}

static size_t put(uint8_t *p, const void *s, size_t n)
{
	memcpy(p, s, n);
	return n;
}

/* Tracing data with one event, sched:sched_switch (id 316), whose text is
 * "a=" and the int at offset 8 of its raw data (its type, 316, at 0). */
static size_t one_event_tracing(uint8_t *b)
{
	static const char fmt[] = "name: sched_switch\nID: 316\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n\nprint fmt: \"a=%d\", REC->a\n";
	size_t n = 0;
	n += put(b + n, "\027\bDtracing0.6", 14); /* magic, version and its NUL */
	b[n++] = 0;      /* little endian */
	b[n++] = 8;      /* long size */
	n += put(b + n, "\0\020\0\0", 4); /* page size 4096 */
	uint64_t z = 0, fl = sizeof fmt - 1;
	uint32_t one = 1, zero = 0;
	n += put(b + n, "header_page", 12);
	n += put(b + n, &z, 8);
	n += put(b + n, "header_event", 13);
	n += put(b + n, &z, 8);
	n += put(b + n, &zero, 4);       /* no ftrace formats */
	n += put(b + n, &one, 4);        /* one system */
	n += put(b + n, "sched", 6);
	n += put(b + n, &one, 4);
	n += put(b + n, &fl, 8);
	n += put(b + n, fmt, sizeof fmt - 1);
	n += put(b + n, &zero, 4);       /* kallsyms */
	n += put(b + n, &zero, 4);       /* printk */
	return n;
}

TEST(tracing_parse_keeps_what_it_read)
{
	uint8_t b[1024];
	size_t n = one_event_tracing(b);
	struct tracing_info ti;
	struct err e = { 0 };
	CHECK_EQ(tracing_parse(b, n, &ti, &e), 0);
	CHECK(ti.complete && ti.nr == 1 && ti.long_size == 8 && ti.page_size == 4096);
	const struct tracing_event *ev = tracing_find(&ti, 316);
	CHECK(ev && !strcmp(ev->system, "sched") && !strcmp(ev->name, "sched_switch"));
	tracing_release(&ti);
	/* cut inside the printk size: the event is kept, the error located */
	CHECK(tracing_parse(b, n - 2, &ti, &e) < 0);
	CHECK(ti.header_ok && !ti.complete && ti.nr == 1 && e.has_offset);
	tracing_release(&ti);
	/* cut inside the format: nothing but the header */
	CHECK(tracing_parse(b, n - 30, &ti, &e) < 0);
	CHECK(ti.header_ok && ti.nr == 0);
	tracing_release(&ti);
}

/* The helper's answers are remembered by (id, cpu, raw bytes): a repeat
 * prints what the first one did, a sample that differs in one byte or in
 * its CPU is asked for again, and so is one too large to remember. */
TEST(tpformat_repeats_print_as_the_first)
{
	uint8_t b[1024];
	size_t n = one_event_tracing(b);
	struct tracing_info ti;
	struct err e = { 0 };
	CHECK_EQ(tracing_parse(b, n, &ti, &e), 0);
	struct tpformat *tf = tpformat_new(&ti);
	CHECK(tf != NULL);
	struct buf out;
	buf_init(&out, 1 << 20);
	uint8_t raw[512] = { 0 };
	uint16_t type = 316;
	memcpy(raw, &type, 2);
	char want[32];
	/* more distinct samples than the table has slots, each twice: every
	 * text is the one of its own raw data */
	for (int round = 0; round < 2; round++)
		for (int32_t a = 0; a < 6000; a += 1) {
			memcpy(raw + 8, &a, 4);
			out.len = 0;
			CHECK_EQ(tpformat_print(tf, 316, (uint32_t)a % 3, raw, 16, &out), 0);
			snprintf(want, sizeof want, "a=%d", a);
			if (out.len != strlen(want) || memcmp(out.data, want, out.len)) {
				CHECK(!"text of its own raw data");
				break;
			}
		}
	/* the same bytes past the table's reach */
	int32_t a = 4242;
	memcpy(raw + 8, &a, 4);
	for (int i = 0; i < 2; i++) {
		out.len = 0;
		CHECK_EQ(tpformat_print(tf, 316, 0, raw, sizeof raw, &out), 0);
		CHECK(out.len == 6 && !memcmp(out.data, "a=4242", 6));
	}
	/* an id without a format prints nothing, remembered or not */
	for (int i = 0; i < 2; i++) {
		out.len = 0;
		CHECK_EQ(tpformat_print(tf, 317, 0, raw, 16, &out), 0);
		CHECK_EQ(out.len, 0);
	}
	buf_release(&out);
	tpformat_free(tf);
	tracing_release(&ti);
}

/* The sample header made by hand (a big buffer) is the snprintf one (a
 * buffer just big enough, which takes snprintf), for every field set,
 * comm length, sign and width */
TEST(script_header_by_hand_as_snprintf)
{
	const char *comms[] = { NULL, "", "cc1", "fifteen-chars-x", "sixteen-chars-xy",
				"seventeen-chars-z", "a-comm-name-much-longer-than-sixteen" };
	uint32_t tids[] = { 0, 7, 12345, 4294967295u, 99999999 };
	uint64_t times[] = { 0, 999, 1234567890123ull, 18446744073709551615ull };
	uint64_t sts[] = { PERF_SAMPLE_TID, PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
			   PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
			   PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
			   PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD };
	int widths[] = { 0, 5, 9, 10, 30 };
	int checked = 0, bad = 0;
	for (size_t c = 0; c < sizeof comms / sizeof *comms; c++)
	for (size_t t = 0; t < sizeof tids / sizeof *tids; t++)
	for (size_t m = 0; m < sizeof times / sizeof *times; m++)
	for (size_t k = 0; k < sizeof sts / sizeof *sts; k++)
	for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
	for (int cc = 0; cc < 2; cc++) {
		struct perf_attr pa;
		memset(&pa, 0, sizeof pa);
		pa.attr.type = PERF_TYPE_SOFTWARE;
		pa.attr.config = PERF_COUNT_SW_CPU_CLOCK;
		pa.attr.sample_type = sts[k];
		pa.name = (char *)"cpu-clock";
		pa.name_recorded = true;
		struct perf_event ev;
		memset(&ev, 0, sizeof ev);
		ev.type = PERF_RECORD_SAMPLE;
		ev.s.tid = ev.s.pid = tids[t];
		ev.s.cpu = (uint32_t)(t * 517);
		ev.s.time = times[m];
		ev.s.period = times[m] / 7 + t;
		struct resolved_sample rs;
		memset(&rs, 0, sizeof rs);
		rs.ev = &ev;
		rs.comm = comms[c];
		char big[4096], small[4096];
		int n1 = script_format_header(big, sizeof big, &rs, &pa, cc, widths[w]);
		int n2 = script_format_header(small, (size_t)n1 + 1, &rs, &pa, cc, widths[w]);
		checked++;
		if (n1 != n2 || strcmp(big, small)) {
			if (!bad)
				fprintf(stderr, "by hand '%s'\nsnprintf '%s'\n", big, small);
			bad++;
		}
	}
	CHECK_EQ(bad, 0);
	CHECK(checked > 1000);
}
