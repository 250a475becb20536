/* test_order.c: the ordering queue. */
#include "test.h"
#include "analyze/order.h"
#include <linux/perf_event.h>
#include <stdint.h>

struct rec {
	struct perf_event_header h;
	uint64_t t;
};

static uint64_t got[4096];
static int ngot;

static int collect(void *ctx, const uint8_t *r, uint64_t off)
{
	(void)ctx;
	(void)off;
	const struct rec *x = (const void *)r;
	got[ngot++] = x->t;
	return 0;
}

static void push(struct order *o, struct rec *r, uint64_t t, int stable)
{
	r->h.type = PERF_RECORD_SAMPLE;
	r->h.size = sizeof(*r);
	r->t = t;
	struct input_rec ir = { .p = (const uint8_t *)r, .size = sizeof(*r), .stable = stable };
	CHECK_EQ(order_push(o, &ir, true, t, true), 0);
}

TEST(order_rounds_flush_previous_max)
{
	struct order_config c = { .buffer_size = 1 << 20, .max_buffer_size = 1 << 30 };
	struct order *o = order_new(&c, collect, NULL);
	static struct rec r[16];
	ngot = 0;
	push(o, &r[0], 30, 1);
	push(o, &r[1], 10, 1);
	CHECK_EQ(order_round(o), 0); /* first round: flush up to 0 */
	CHECK_EQ(ngot, 0);
	push(o, &r[2], 20, 0);       /* unstable: copied */
	push(o, &r[3], 40, 1);
	CHECK_EQ(order_round(o), 0); /* flush up to 30 (the previous max) */
	CHECK_EQ(ngot, 3);
	CHECK_EQ(got[0], 10);
	CHECK_EQ(got[1], 20);
	CHECK_EQ(got[2], 30);
	CHECK_EQ(order_flush_all(o), 0);
	CHECK_EQ(ngot, 4);
	CHECK_EQ(got[3], 40);
	CHECK_EQ(order_stats(o)->time_violations, 0);
	CHECK_EQ(order_stats(o)->max_reorder_time, 20);
	order_free(o);
}

TEST(order_no_rounds_bounded_and_counts_violations)
{
	/* buffer of 4 records: flushes keep it bounded; a late record is a violation */
	struct order_config c = { .buffer_size = 4 * sizeof(struct rec), .max_buffer_size = 64 * sizeof(struct rec) };
	struct order *o = order_new(&c, collect, NULL);
	static struct rec r[64];
	ngot = 0;
	for (int i = 0; i < 40; i++)
		push(o, &r[i], 100 + i, 0);
	CHECK(ngot > 30);
	push(o, &r[40], 1, 0); /* older than what was delivered */
	CHECK_EQ(order_flush_all(o), 0);
	CHECK_EQ(ngot, 41);
	CHECK_EQ(order_stats(o)->time_violations, 1);
	CHECK(order_stats(o)->buffer_growths >= 1);
	for (int i = 1; i < 40; i++)
		CHECK(got[i] >= got[i - 1] || got[i] == 1);
	order_free(o);
}

TEST(order_sorts_large_interleaved_input)
{
	struct order_config c = { .buffer_size = 0 }; /* until rounds */
	struct order *o = order_new(&c, collect, NULL);
	static struct rec r[4000];
	ngot = 0;
	for (int i = 0; i < 4000; i++)
		push(o, &r[i], (uint64_t)((i * 7919) % 4000), i & 1);
	CHECK_EQ(order_flush_all(o), 0);
	CHECK_EQ(ngot, 4000);
	for (int i = 0; i < 4000; i++)
		CHECK_EQ(got[i], i);
	order_free(o);
}
