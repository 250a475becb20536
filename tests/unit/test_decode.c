/* test_decode.c: sample decoding per sample_type, hostile counts. */
#include "test.h"
#include "perf/event.h"

static void one_attr(struct perf_evlist *el, uint64_t st)
{
	struct perf_event_attr a = { 0 };
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.sample_type = st;
	a.sample_id_all = 1;
	perf_evlist_init(el);
	struct err e = { 0 };
	CHECK_EQ(perf_evlist_add(el, &a, sizeof(a), NULL, 0, 0, &e), 0);
	perf_evlist_finalize(el);
}

TEST(decode_sample_fields)
{
	struct perf_evlist el;
	one_attr(&el, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			      PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN);
	uint64_t r[16] = { 0 };
	struct perf_event_header *h = (void *)r;
	h->type = PERF_RECORD_SAMPLE;
	r[1] = 0x401000;
	r[2] = (7ull << 32) | 5; /* pid 5, tid 7 */
	r[3] = 123456789;
	r[4] = 1; /* cpu 1 */
	r[5] = 1000;
	r[6] = 3;
	r[7] = PERF_CONTEXT_USER;
	r[8] = 0x401000;
	r[9] = 0x402000;
	h->size = 10 * 8;
	struct perf_event ev;
	struct err e = { 0 };
	CHECK_EQ(perf_event_decode(&el, (const uint8_t *)r, 0, &ev, &e), 0);
	CHECK_EQ(ev.s.ip, 0x401000);
	CHECK_EQ(ev.s.pid, 5);
	CHECK_EQ(ev.s.tid, 7);
	CHECK_EQ(ev.s.time, 123456789);
	CHECK_EQ(ev.s.cpu, 1);
	CHECK_EQ(ev.s.period, 1000);
	CHECK_EQ(ev.s.callchain_nr, 3);
	CHECK_EQ(ev.s.callchain[2], 0x402000);
	uint64_t t;
	CHECK(perf_record_time(&el, (const uint8_t *)r, &t) && t == 123456789);
	/* a callchain count beyond the record is an error with an offset */
	r[6] = 1ull << 60;
	CHECK(perf_event_decode(&el, (const uint8_t *)r, 4096, &ev, &e) < 0);
	CHECK(e.set && e.has_offset && e.offset == 4096 + 48);
	perf_evlist_release(&el);
}

TEST(decode_comm_trailer_and_unterminated_string)
{
	struct perf_evlist el;
	one_attr(&el, PERF_SAMPLE_TID | PERF_SAMPLE_TIME);
	uint64_t r[8] = { 0 };
	struct perf_event_header *h = (void *)r;
	h->type = PERF_RECORD_COMM;
	h->size = 6 * 8;
	r[1] = (9ull << 32) | 9;
	memcpy(&r[2], "workload", 8); /* 16 bytes of name incl. NUL in r[3] */
	r[4] = (9ull << 32) | 9;
	r[5] = 777;
	struct perf_event ev;
	struct err e = { 0 };
	CHECK_EQ(perf_event_decode(&el, (const uint8_t *)r, 0, &ev, &e), 0);
	CHECK_STR(ev.comm.comm, "workload");
	CHECK_EQ(ev.s.time, 777);
	memset(&r[2], 'x', 16);
	CHECK(perf_event_decode(&el, (const uint8_t *)r, 0, &ev, &e) < 0);
	perf_evlist_release(&el);
}
