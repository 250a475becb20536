/*
 * evlist.c: the attrs of a file and the lookup of a record's attr.
 *
 * Positions (in u64 units) of the sample ID, computed once per attr:
 *   sample:  IDENTIFIER first; else ID after IP, TID, TIME, ADDR (id_pos)
 *   trailer: { TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER } at the record's
 *            end; is_pos counts from the end (1 = last u64).
 * When every attr agrees on a position, lookups read one u64 and a hash.
 */
#include "perf/event.h"
#include "util/buf.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EVLIST_MAX_ATTRS 65536
#define EVLIST_MAX_IDS (1u << 24)

void perf_evlist_init(struct perf_evlist *el)
{
	memset(el, 0, sizeof(*el));
	hmap_init(&el->by_id);
	el->id_pos = el->is_pos = -1;
}

void perf_evlist_release(struct perf_evlist *el)
{
	for (size_t i = 0; i < el->nr; i++) {
		free(el->attrs[i].ids);
		free(el->attrs[i].name);
	}
	free(el->attrs);
	hmap_release(&el->by_id);
	memset(el, 0, sizeof(*el));
}

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses", "branches",
	"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
	"ref-cycles",
};
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
	"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
	"bpf-output", "cgroup-switches",
};

const char *perf_hw_name(uint64_t config)
{
	return config < sizeof(hw_names) / sizeof(hw_names[0]) ? hw_names[config] : NULL;
}

const char *perf_sw_name(uint64_t config)
{
	return config < sizeof(sw_names) / sizeof(sw_names[0]) ? sw_names[config] : NULL;
}

void perf_attr_default_name(const struct perf_event_attr *a, char *out, size_t n)
{
	if (a->type == PERF_TYPE_HARDWARE && a->config < sizeof(hw_names) / sizeof(hw_names[0]))
		snprintf(out, n, "%s", hw_names[a->config]);
	else if (a->type == PERF_TYPE_SOFTWARE && a->config < sizeof(sw_names) / sizeof(sw_names[0]))
		snprintf(out, n, "%s", sw_names[a->config]);
	else if (a->type == PERF_TYPE_TRACEPOINT)
		snprintf(out, n, "tracepoint:%llu", (unsigned long long)a->config);
	else
		snprintf(out, n, "raw:%u:0x%llx", a->type, (unsigned long long)a->config);
}

static void attr_positions(struct perf_attr *pa)
{
	uint64_t t = pa->attr.sample_type;
	if (t & PERF_SAMPLE_IDENTIFIER)
		pa->id_pos = 0;
	else if (!(t & PERF_SAMPLE_ID))
		pa->id_pos = -1;
	else
		pa->id_pos = !!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID) +
			     !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ADDR);
	if (t & PERF_SAMPLE_IDENTIFIER)
		pa->is_pos = 1;
	else if (!(t & PERF_SAMPLE_ID))
		pa->is_pos = -1;
	else
		pa->is_pos = 1 + !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_STREAM_ID);
	pa->trailer_size = 0;
	if (pa->attr.sample_id_all) {
		uint64_t m = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			     PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
		pa->trailer_size = 8 * __builtin_popcountll(t & m);
	}
	pa->time_pos = (t & PERF_SAMPLE_TIME)
		? (uint32_t)(!!(t & PERF_SAMPLE_IDENTIFIER) + !!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID))
		: UINT32_MAX;
	pa->regs_user_nr = __builtin_popcountll(pa->attr.sample_regs_user);
	pa->regs_intr_nr = __builtin_popcountll(pa->attr.sample_regs_intr);
}

int perf_evlist_add(struct perf_evlist *el, const void *p, uint32_t attr_size,
		    const uint64_t *ids, size_t nr_ids, uint64_t off, struct err *e)
{
	if (attr_size < PERF_ATTR_SIZE_MIN)
		return err_at(e, off, "attr size %u is smaller than the minimum %d", attr_size,
			      PERF_ATTR_SIZE_MIN);
	if (nr_ids > EVLIST_MAX_IDS)
		return err_at(e, off, "attr has %zu ids, more than %u", nr_ids, EVLIST_MAX_IDS);
	if (ARRAY_GROW(el->attrs, el->cap, el->nr + 1, EVLIST_MAX_ATTRS))
		return err_at(e, off, "too many attrs (more than %d)", EVLIST_MAX_ATTRS);
	struct perf_attr *pa = &el->attrs[el->nr];
	memset(pa, 0, sizeof(*pa));
	size_t n = attr_size < sizeof(pa->attr) ? attr_size : sizeof(pa->attr);
	memcpy(&pa->attr, p, n);
	pa->file_attr_size = attr_size;
	attr_positions(pa);
	char name[64];
	perf_attr_default_name(&pa->attr, name, sizeof(name));
	pa->name = xstrdup(name);
	el->nr++;
	perf_evlist_add_ids(el, el->nr - 1, ids, nr_ids);
	return 0;
}

void perf_evlist_add_ids(struct perf_evlist *el, size_t idx, const uint64_t *ids, size_t n)
{
	if (idx >= el->nr || !n)
		return;
	struct perf_attr *pa = &el->attrs[idx];
	if (pa->nr_ids + n > EVLIST_MAX_IDS)
		return;
	pa->ids = xrealloc(pa->ids, (pa->nr_ids + n) * sizeof(uint64_t));
	for (size_t i = 0; i < n; i++) {
		uint64_t id;
		memcpy(&id, &ids[i], 8);
		pa->ids[pa->nr_ids++] = id;
		hmap_put(&el->by_id, id, (void *)(uintptr_t)(idx + 1));
	}
}

void perf_evlist_finalize(struct perf_evlist *el)
{
	el->id_pos = el->nr ? el->attrs[0].id_pos : -1;
	el->is_pos = el->nr ? el->attrs[0].is_pos : -1;
	el->sample_id_all = el->nr > 0;
	for (size_t i = 0; i < el->nr; i++) {
		if (el->attrs[i].id_pos != el->id_pos)
			el->id_pos = -1;
		if (el->attrs[i].is_pos != el->is_pos)
			el->is_pos = -1;
		if (!el->attrs[i].attr.sample_id_all)
			el->sample_id_all = false;
	}
}
