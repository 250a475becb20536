/*
 * perfparser_stats.c: replay of hotspot-perfparser's buffering model for
 * --print-stats (see perfparser_stats.h). Sizes are 32-bit as in the model.
 */
#include "output/perfparser_stats.h"
#include "analyze/input.h"
#include "perf/header.h"
#include "util/buf.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define TASK_EVENT_SIZE 32 /* sizeof(PerfUnwind::TaskEvent) */

struct item {
	uint64_t time;
	uint64_t seq;
	uint32_t size;
};

struct list {
	struct item *v;
	size_t head, len, cap;
};

struct perfparser_stats {
	struct perfparser_stats_result r;
	uint32_t target, last, max, size;
	uint64_t violations, last_flush_max_time;
	bool tracepoints;
	struct list l[3];
	uint64_t seq;
	uint64_t in_round[3];
	uint64_t total_in_round, last_round_time;
	size_t attrs_seen;
	bool began;
	int err;
};

static void set_max(struct perfparser_stats *st, uint32_t size);

static void set_target(struct perfparser_stats *st, uint32_t size)
{
	st->last = st->target;
	st->target = size;
	if (size > st->max)
		set_max(st, size);
}

static void set_max(struct perfparser_stats *st, uint32_t size)
{
	st->max = size;
	if (size < st->target)
		set_target(st, size);
}

struct perfparser_stats *perfparser_stats_new(uint32_t buffer_size, uint32_t max_buffer_size)
{
	struct perfparser_stats *st = xcalloc(1, sizeof(*st));
	st->last = 1u << 20;
	st->max = 1u << 30;
	st->target = 1u << 25;
	set_target(st, buffer_size);
	set_max(st, max_buffer_size);
	return st;
}

void perfparser_stats_free(struct perfparser_stats *st)
{
	if (!st)
		return;
	for (int i = 0; i < 3; i++)
		free(st->l[i].v);
	free(st);
}

const struct perfparser_stats_result *perfparser_stats_result(const struct perfparser_stats *st)
{
	return &st->r;
}

void perfparser_stats_attr(struct perfparser_stats *st, bool tracepoint)
{
	if (tracepoint && st->target == 0)
		set_target(st, st->last); /* back to dynamic buffering */
	if (tracepoint)
		st->tracepoints = true;
}

/* QVersionNumber::fromString(v) >= 3.17 */
static bool version_at_least_3_17(const char *v)
{
	if (!v || *v < '0' || *v > '9')
		return false;
	char *end;
	unsigned long major = strtoul(v, &end, 10);
	unsigned long minor = 0;
	if (*end == '.' && end[1] >= '0' && end[1] <= '9')
		minor = strtoul(end + 1, NULL, 10);
	return major > 3 || (major == 3 && minor >= 17);
}

void perfparser_stats_features(struct perfparser_stats *st, const char *perf_version)
{
	if (version_at_least_3_17(perf_version) && st->violations == 0 && !st->tracepoints)
		set_target(st, 0);
}

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void add_time(struct perfparser_stats *st, uint64_t time)
{
	if (time && time < st->r.max_time) {
		if (st->r.max_time - time > st->r.max_reorder_time)
			st->r.max_reorder_time = st->r.max_time - time;
	} else {
		st->r.max_time = time;
	}
}

#define MAXU(a, b) ((a) = (a) > (b) ? (a) : (b))

static void flush(struct perfparser_stats *st, uint32_t desired)
{
	struct list *smp = &st->l[PPS_SAMPLE], *mm = &st->l[PPS_MMAP], *tk = &st->l[PPS_TASK];
	for (int i = 0; i < 3; i++)
		if (st->l[i].len > st->l[i].head) /* v is NULL while nothing was queued */
			qsort(st->l[i].v + st->l[i].head, st->l[i].len - st->l[i].head,
			      sizeof(struct item), cmp_item);
	for (size_t i = smp->head; i < smp->len && smp->v[i].time < st->last_flush_max_time; i++)
		st->r.samples_time_violations++;
	for (size_t i = mm->head; i < mm->len && mm->v[i].time < st->last_flush_max_time; i++)
		st->r.mmaps_time_violations++;

	bool violates = mm->head < mm->len && mm->v[mm->head].time < st->last_flush_max_time;
	size_t mi = mm->head, si = smp->head, ti = tk->head;
	uint32_t buffer_size = st->size;
	for (; st->size > desired && si < smp->len; si++) {
		uint64_t ts = smp->v[si].time;
		if (ts < st->last_flush_max_time) {
			violates = true;
		} else {
			if (violates) {
				for (; mi < mm->len && mm->v[mi].time <= st->last_flush_max_time; mi++)
					st->size -= mm->v[mi].size;
				break;
			}
			st->last_flush_max_time = ts;
		}
		for (; ti < tk->len && tk->v[ti].time <= ts; ti++)
			st->size -= tk->v[ti].size;
		for (; mi < mm->len && mm->v[mi].time <= ts; mi++)
			st->size -= mm->v[mi].size;
		st->size -= smp->v[si].size;
	}
	for (; st->size > desired && ti < tk->len; ti++)
		st->size -= tk->v[ti].size;

	st->r.buffer_flushes++;
	MAXU(st->r.max_samples_per_flush, si - smp->head);
	MAXU(st->r.max_mmaps_per_flush, mi - mm->head);
	MAXU(st->r.max_task_events_per_flush, ti - tk->head);
	smp->head = si;
	mm->head = mi;
	tk->head = ti;
	for (int i = 0; i < 3; i++) {
		struct list *l = &st->l[i];
		if (l->head == l->len) {
			l->head = l->len = 0;
		} else if (l->head > 4096 && l->head * 2 > l->len) {
			memmove(l->v, l->v + l->head, (l->len - l->head) * sizeof(*l->v));
			l->len -= l->head;
			l->head = 0;
		}
	}
	if (!violates)
		return;
	st->violations++;
	if (buffer_size < st->last)
		buffer_size = st->last;
	buffer_size = buffer_size > UINT32_MAX / 2 ? UINT32_MAX : buffer_size * 2;
	if (buffer_size > st->max)
		buffer_size = st->max;
	set_target(st, buffer_size);
}

void perfparser_stats_event(struct perfparser_stats *st, enum perfparser_stats_kind kind, uint64_t time, uint32_t size)
{
	struct list *l = &st->l[kind];
	if (l->len == l->cap && ARRAY_GROW(l->v, l->cap, l->len + 1, (size_t)1 << 32)) {
		st->err = -ENOMEM;
		return;
	}
	l->v[l->len++] = (struct item){ time, st->seq++, size };
	st->size += size;
	st->in_round[kind]++;
	MAXU(st->r.max_buffer_size, st->size);
	st->total_in_round += size;
	add_time(st, time);
	if (st->target && st->size > st->target)
		flush(st, st->target / 2);
}

void perfparser_stats_round(struct perfparser_stats *st)
{
	st->r.samples += st->in_round[PPS_SAMPLE];
	st->r.mmaps += st->in_round[PPS_MMAP];
	MAXU(st->r.max_samples_per_round, st->in_round[PPS_SAMPLE]);
	MAXU(st->r.max_mmaps_per_round, st->in_round[PPS_MMAP]);
	MAXU(st->r.max_task_events_per_round, st->in_round[PPS_TASK]);
	memset(st->in_round, 0, sizeof(st->in_round));
	st->r.rounds++;
	MAXU(st->r.max_total_event_size_per_round, st->total_in_round);
	st->total_in_round = 0;
	if (st->last_round_time > 0)
		MAXU(st->r.max_time_between_rounds, st->r.max_time - st->last_round_time);
	st->last_round_time = st->r.max_time;

	if (!st->target)
		flush(st, st->size / 2);
	else if (st->violations == 0 && !st->tracepoints)
		set_target(st, 0);
}

void perfparser_stats_finish(struct perfparser_stats *st)
{
	perfparser_stats_round(st);
	flush(st, 0);
}

void perfparser_stats_print(const struct perfparser_stats *st, FILE *out)
{
	const struct perfparser_stats_result *r = &st->r;
	fprintf(out, "samples: %llu\n", (unsigned long long)r->samples);
	fprintf(out, "mmaps: %llu\n", (unsigned long long)r->mmaps);
	fprintf(out, "rounds: %llu\n", (unsigned long long)r->rounds);
	fprintf(out, "buffer flushes: %llu\n", (unsigned long long)r->buffer_flushes);
	fprintf(out, "samples time violations: %llu\n", (unsigned long long)r->samples_time_violations);
	fprintf(out, "mmaps time violations: %llu\n", (unsigned long long)r->mmaps_time_violations);
	fprintf(out, "max samples per round: %llu\n", (unsigned long long)r->max_samples_per_round);
	fprintf(out, "max mmaps per round: %llu\n", (unsigned long long)r->max_mmaps_per_round);
	fprintf(out, "max task events per round: %llu\n",
		(unsigned long long)r->max_task_events_per_round);
	fprintf(out, "max samples per flush: %llu\n", (unsigned long long)r->max_samples_per_flush);
	fprintf(out, "max mmaps per flush: %llu\n", (unsigned long long)r->max_mmaps_per_flush);
	fprintf(out, "max task events per flush: %llu\n",
		(unsigned long long)r->max_task_events_per_flush);
	fprintf(out, "max buffer size: %llu\n", (unsigned long long)r->max_buffer_size);
	fprintf(out, "max total event size per round: %llu\n",
		(unsigned long long)r->max_total_event_size_per_round);
	fprintf(out, "max time: %llu\n", (unsigned long long)r->max_time);
	fprintf(out, "max time between rounds: %llu\n", (unsigned long long)r->max_time_between_rounds);
	fprintf(out, "max reorder time: %llu\n", (unsigned long long)r->max_reorder_time);
}

/* ---- the replay over an input ---- */

static void sync_attrs(struct perfparser_stats *st, struct perf_evlist *el)
{
	for (; st->attrs_seen < el->nr; st->attrs_seen++)
		perfparser_stats_attr(st, el->attrs[st->attrs_seen].attr.type == PERF_TYPE_TRACEPOINT);
}

int perfparser_stats_run(struct perfparser_stats *st, struct input *in, struct err *e)
{
	struct perf_header *h = input_header(in);
	struct perf_evlist *el = input_evlist(in);
	if (!h->pipe) {
		/* file: event_desc attrs, then the version switch, then the attrs section */
		if (perf_header_has(h, HEADER_EVENT_DESC))
			sync_attrs(st, el);
		perfparser_stats_features(st, h->version);
		for (size_t i = 0; i < el->nr; i++)
			perfparser_stats_attr(st, el->attrs[i].attr.type == PERF_TYPE_TRACEPOINT);
		st->attrs_seen = el->nr;
	}
	int rc;
	struct input_rec r;
	while ((rc = input_next(in, &r, e)) > 0) {
		const struct perf_event_header *eh = (const void *)r.p;
		uint64_t t = 0;
		switch (eh->type) {
		case PERF_RECORD_HEADER_ATTR:
			sync_attrs(st, el);
			break;
		case PERF_RECORD_SAMPLE:
			perf_record_time(el, r.p, &t);
			perfparser_stats_event(st, PPS_SAMPLE, t, eh->size);
			break;
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
			perf_record_time(el, r.p, &t);
			perfparser_stats_event(st, PPS_MMAP, t, eh->size);
			break;
		case PERF_RECORD_COMM:
		case PERF_RECORD_LOST:
		case PERF_RECORD_FORK:
		case PERF_RECORD_EXIT:
		case PERF_RECORD_SWITCH:
			perf_record_time(el, r.p, &t);
			perfparser_stats_event(st, PPS_TASK, t, TASK_EVENT_SIZE);
			break;
		case PERF_RECORD_FINISHED_ROUND:
			perfparser_stats_round(st);
			break;
		default:
			break;
		}
		if (st->err)
			return err_set(e, st->err, "out of memory");
	}
	if (rc < 0)
		return rc;
	perfparser_stats_finish(st);
	return 0;
}
