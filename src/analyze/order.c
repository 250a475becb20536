/*
 * order.c: the time-ordering queue (see order.h for the rules).
 *
 * Pending records are kept in a vector of small entries (time, arrival
 * sequence, pointer). A flush sorts the vector by (time, seq) and delivers
 * the prefix up to the limit; what remains stays sorted, so the next sort
 * mostly merges a sorted run with one round of new entries (the sort below
 * detects an already sorted prefix and merges). Copies of unstable records
 * live in refcounted chunks freed when their last record is delivered.
 */
#include "analyze/order.h"
#include "util/buf.h"
#include "util/xalloc.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_SIZE (1u << 20)
#define ORDER_MAX_PENDING ((size_t)1 << 31)

struct chunk {
	size_t used, cap;
	uint64_t refs;
	uint8_t data[];
};

struct entry {
	uint64_t time;
	uint64_t seq;
	const uint8_t *rec;
	uint64_t file_off;
	struct chunk *chunk;
	struct input_chunk *ichunk;
	uint32_t size;
	uint32_t is_sample;
};

struct order {
	struct order_config cfg;
	order_deliver_fn fn;
	void *ctx;
	struct entry *q, *tmp;
	size_t n, cap, tmp_cap;
	size_t sorted;          /* q[0..sorted) is sorted */
	uint64_t seq;
	uint64_t next_flush;    /* previous round's max time */
	uint64_t max_time;      /* max time seen */
	uint64_t last_delivered;
	bool delivered_any;
	uint64_t buffered;      /* bytes pending */
	uint64_t limit;         /* current byte limit without rounds */
	uint64_t round_events, round_samples;
	struct chunk *cur;
	struct order_stats st;
	/* the record in the deliver callback: kept without a copy? */
	bool keep_ok;
	struct input_chunk *keep_chunk;
};

struct order *order_new(const struct order_config *cfg, order_deliver_fn fn, void *ctx)
{
	struct order *o = xcalloc(1, sizeof(*o));
	if (cfg)
		o->cfg = *cfg;
	if (!o->cfg.max_buffer_size)
		o->cfg.max_buffer_size = 1ull << 30;
	if (o->cfg.max_buffer_size < o->cfg.buffer_size)
		o->cfg.max_buffer_size = o->cfg.buffer_size;
	/* buffer_size 0: buffer until FINISHED_ROUND, unbounded */
	o->limit = o->cfg.buffer_size ? o->cfg.buffer_size : UINT64_MAX;
	o->fn = fn;
	o->ctx = ctx;
	return o;
}

static void chunk_put(struct order *o, struct chunk *c)
{
	if (c && --c->refs == 0 && c != o->cur)
		free(c);
}

void order_free(struct order *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->n; i++) {
		if (o->q[i].chunk && --o->q[i].chunk->refs == 0 && o->q[i].chunk != o->cur)
			free(o->q[i].chunk);
		input_chunk_put(o->q[i].ichunk);
	}
	free(o->cur);
	free(o->q);
	free(o->tmp);
	free(o);
}

bool order_keepable(const struct order *o, struct input_chunk **chunk)
{
	*chunk = o->keep_chunk;
	return o->keep_ok;
}

const struct order_stats *order_stats(const struct order *o)
{
	return &o->st;
}

static inline bool before(const struct entry *a, const struct entry *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void msort(struct entry *a, struct entry *t, size_t n)
{
	if (n < 24) {
		for (size_t i = 1; i < n; i++) {
			struct entry x = a[i];
			size_t j = i;
			while (j && before(&x, &a[j - 1])) {
				a[j] = a[j - 1];
				j--;
			}
			a[j] = x;
		}
		return;
	}
	size_t h = n / 2;
	msort(a, t, h);
	msort(a + h, t, n - h);
	if (!before(&a[h], &a[h - 1]))
		return;
	memcpy(t, a, h * sizeof(*a));
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		a[k++] = before(&a[j], &t[i]) ? a[j++] : t[i++];
	while (i < h)
		a[k++] = t[i++];
}

static int sort_pending(struct order *o)
{
	if (o->sorted == o->n)
		return 0;
	if (ARRAY_GROW(o->tmp, o->tmp_cap, o->n, ORDER_MAX_PENDING))
		return -ENOMEM;
	/* sort the new tail, then merge it with the sorted head */
	size_t h = o->sorted, n = o->n;
	msort(o->q + h, o->tmp, n - h);
	if (h && before(&o->q[h], &o->q[h - 1])) {
		memcpy(o->tmp, o->q, h * sizeof(*o->q));
		size_t i = 0, j = h, k = 0;
		while (i < h && j < n)
			o->q[k++] = before(&o->q[j], &o->tmp[i]) ? o->q[j++] : o->tmp[i++];
		while (i < h)
			o->q[k++] = o->tmp[i++];
	}
	o->sorted = n;
	return 0;
}

/* The deliver callback, telling order_keepable how rec may be kept. */
static int call(struct order *o, const uint8_t *rec, uint64_t file_off, bool keep_ok,
		struct input_chunk *keep_chunk)
{
	o->keep_ok = keep_ok;
	o->keep_chunk = keep_chunk;
	int rc = o->fn(o->ctx, rec, file_off);
	o->keep_ok = false;
	o->keep_chunk = NULL;
	return rc;
}

static int deliver(struct order *o, struct entry *en)
{
	o->last_delivered = en->time;
	o->delivered_any = true;
	o->buffered -= en->size;
	o->st.delivered++;
	int rc = call(o, en->rec, en->file_off, !en->chunk, en->ichunk);
	chunk_put(o, en->chunk);
	input_chunk_put(en->ichunk);
	return rc;
}

/* Deliver sorted entries while time <= limit (all: UINT64_MAX) or, by
 * bytes, until buffered <= target. */
static int flush(struct order *o, uint64_t tlimit, uint64_t byte_target)
{
	int rc = sort_pending(o);
	if (rc)
		return rc;
	size_t i = 0;
	while (i < o->n && o->q[i].time <= tlimit && o->buffered > byte_target) {
		rc = deliver(o, &o->q[i]);
		i++;
		if (rc)
			break;
	}
	if (i) {
		o->st.flushes++;
		memmove(o->q, o->q + i, (o->n - i) * sizeof(*o->q));
		o->n -= i;
		o->sorted -= i;
	}
	return rc;
}

int order_push(struct order *o, const struct input_rec *r, bool has_time, uint64_t time, bool is_sample)
{
	const uint8_t *rec = r->p;
	uint32_t size = r->size;
	uint64_t file_off = r->file_off;
	o->round_events++;
	o->round_samples += is_sample;
	if (!has_time) {
		o->st.delivered++;
		return call(o, rec, file_off, r->chunk || r->stable, r->chunk);
	}
	if (time < o->max_time) {
		uint64_t d = o->max_time - time;
		if (d > o->st.max_reorder_time)
			o->st.max_reorder_time = d;
	} else {
		o->max_time = time;
	}
	if (o->delivered_any && time < o->last_delivered) {
		o->st.time_violations++;
		uint32_t type;
		memcpy(&type, rec, 4);
		if (type == 1 /* MMAP */ || type == 10 /* MMAP2 */)
			o->st.mmap_violations++;
		if (!o->st.rounds && o->cfg.buffer_size && o->limit < o->cfg.max_buffer_size) {
			o->limit *= 2;
			if (o->limit > o->cfg.max_buffer_size)
				o->limit = o->cfg.max_buffer_size;
			o->st.buffer_growths++;
		}
	}
	struct chunk *ch = NULL;
	if (r->chunk) {
		input_chunk_get(r->chunk);
	} else if (!r->stable) {
		size_t need = (size + 7) & ~(size_t)7;
		if (!o->cur || o->cur->cap - o->cur->used < need) {
			if (o->cur && o->cur->refs == 0)
				free(o->cur);
			size_t cap = need > CHUNK_SIZE ? need : CHUNK_SIZE;
			o->cur = xmalloc(sizeof(struct chunk) + cap);
			o->cur->used = 0;
			o->cur->cap = cap;
			o->cur->refs = 0;
		}
		ch = o->cur;
		uint8_t *dst = ch->data + ch->used;
		memcpy(dst, rec, size);
		ch->used += need;
		ch->refs++;
		rec = dst;
	}
	if (ARRAY_GROW(o->q, o->cap, o->n + 1, ORDER_MAX_PENDING))
		return -ENOMEM;
	struct entry *en = &o->q[o->n++];
	*en = (struct entry){ time, o->seq++, rec, file_off, ch, r->chunk, size, is_sample };
	if (o->sorted == o->n - 1 && (o->n == 1 || !before(en, &o->q[o->n - 2])))
		o->sorted = o->n;
	o->buffered += size;
	if (o->buffered > o->st.max_buffered_bytes)
		o->st.max_buffered_bytes = o->buffered;
	/* without rounds: keep the buffer bounded */
	if (!o->st.rounds && o->buffered > o->limit)
		return flush(o, UINT64_MAX, o->limit / 2);
	return 0;
}

int order_round(struct order *o)
{
	o->st.rounds++;
	if (o->round_events > o->st.max_events_per_round)
		o->st.max_events_per_round = o->round_events;
	if (o->round_samples > o->st.max_samples_per_round)
		o->st.max_samples_per_round = o->round_samples;
	o->round_events = o->round_samples = 0;
	int rc = flush(o, o->next_flush, 0);
	o->next_flush = o->max_time;
	return rc;
}

int order_flush_all(struct order *o)
{
	if (o->round_events > o->st.max_events_per_round)
		o->st.max_events_per_round = o->round_events;
	if (o->round_samples > o->st.max_samples_per_round)
		o->st.max_samples_per_round = o->round_samples;
	return flush(o, UINT64_MAX, 0);
}
