/*
 * stats.c: counts for `scorch stats` and the header dump for `scorch
 * header`. The stats sink decodes every record (the pipeline does) and sees
 * them after the ordering queue, so its numbers include the queue's.
 */
#include "output/stats.h"
#include "util/buf.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct stats {
	FILE *out;
	uint64_t samples, lost_events, lost_records, lost_samples, mmaps, comms, forks, exits;
	uint64_t first_time, last_time, max_time;
	uint64_t samples_with_callchain, callchain_frames, stack_user_bytes;
	uint64_t throttle, unthrottle, switches;
	uint64_t *per_attr;
	size_t nr_attr;
};

static int stats_event(void *ctx, struct pipeline *p, const struct perf_event *ev)
{
	struct stats *st = ctx;
	switch (ev->type) {
	case PERF_RECORD_SAMPLE:
		st->samples++;
		if (ev->s.attr_idx >= 0 && (size_t)ev->s.attr_idx < st->nr_attr)
			st->per_attr[ev->s.attr_idx]++;
		if (ev->s.callchain_nr) {
			st->samples_with_callchain++;
			st->callchain_frames += ev->s.callchain_nr;
		}
		st->stack_user_bytes += ev->s.stack_user_dyn_size;
		if (!st->first_time || ev->s.time < st->first_time)
			st->first_time = ev->s.time;
		if (ev->s.time > st->last_time)
			st->last_time = ev->s.time;
		break;
	case PERF_RECORD_LOST:
		st->lost_records++;
		st->lost_events += ev->lost.lost;
		break;
	case PERF_RECORD_LOST_SAMPLES:
		st->lost_samples += ev->lost_samples.lost;
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		st->mmaps++;
		break;
	case PERF_RECORD_COMM: st->comms++; break;
	case PERF_RECORD_FORK: st->forks++; break;
	case PERF_RECORD_EXIT: st->exits++; break;
	case PERF_RECORD_THROTTLE: st->throttle++; break;
	case PERF_RECORD_UNTHROTTLE: st->unthrottle++; break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE: st->switches++; break;
	default: break;
	}
	return 0;
}

static int stats_end(void *ctx, struct pipeline *p, int rc)
{
	struct stats *st = ctx;
	if (rc >= 0) {
		FILE *f = st->out;
		const struct order_stats *os = pipeline_order_stats(p);
		struct input *in = pipeline_input(p);
		const struct input_stats *is = input_stats(in);
		struct perf_evlist *el = input_evlist(in);
		fprintf(f, "samples: %" PRIu64 "\n", st->samples);
		fprintf(f, "mmaps: %" PRIu64 "\n", st->mmaps);
		fprintf(f, "comms: %" PRIu64 "\n", st->comms);
		fprintf(f, "forks: %" PRIu64 "\n", st->forks);
		fprintf(f, "exits: %" PRIu64 "\n", st->exits);
		fprintf(f, "rounds: %" PRIu64 "\n", os->rounds);
		fprintf(f, "lost events: %" PRIu64 "\n", st->lost_events);
		fprintf(f, "lost records: %" PRIu64 "\n", st->lost_records);
		fprintf(f, "lost samples: %" PRIu64 "\n", st->lost_samples);
		fprintf(f, "throttle: %" PRIu64 "\n", st->throttle);
		fprintf(f, "unthrottle: %" PRIu64 "\n", st->unthrottle);
		fprintf(f, "context switches: %" PRIu64 "\n", st->switches);
		fprintf(f, "buffer flushes: %" PRIu64 "\n", os->flushes);
		fprintf(f, "time violations: %" PRIu64 "\n", os->time_violations);
		fprintf(f, "mmaps time violations: %" PRIu64 "\n", os->mmap_violations);
		fprintf(f, "max events per round: %" PRIu64 "\n", os->max_events_per_round);
		fprintf(f, "max samples per round: %" PRIu64 "\n", os->max_samples_per_round);
		fprintf(f, "max buffer size: %" PRIu64 "\n", os->max_buffered_bytes);
		fprintf(f, "buffer growths: %" PRIu64 "\n", os->buffer_growths);
		fprintf(f, "max reorder time: %" PRIu64 "\n", os->max_reorder_time);
		fprintf(f, "first sample time: %" PRIu64 "\n", st->first_time);
		fprintf(f, "last sample time: %" PRIu64 "\n", st->last_time);
		fprintf(f, "samples with callchain: %" PRIu64 "\n", st->samples_with_callchain);
		fprintf(f, "callchain entries: %" PRIu64 "\n", st->callchain_frames);
		fprintf(f, "user stack bytes: %" PRIu64 "\n", st->stack_user_bytes);
		fprintf(f, "threads: %" PRIu64 "\n", session_stats(pipeline_session(p))->threads);
		fprintf(f, "compressed records: %" PRIu64 "\n", is->compressed_records);
		fprintf(f, "compressed bytes: %" PRIu64 "\n", is->compressed_bytes);
		fprintf(f, "decompressed bytes: %" PRIu64 "\n", is->decompressed_bytes);
		for (size_t i = 0; i < el->nr && i < st->nr_attr; i++)
			fprintf(f, "samples %s: %" PRIu64 "\n", el->attrs[i].name, st->per_attr[i]);
		for (uint32_t t = 0; t <= PERF_RECORD_SCORCH_MAX; t++)
			if (is->records_by_type[t])
				fprintf(f, "records %s: %" PRIu64 "\n", perf_record_name(t), is->records_by_type[t]);
		if (is->records_unknown)
			fprintf(f, "records UNKNOWN: %" PRIu64 "\n", is->records_unknown);
		fflush(f);
	}
	free(st->per_attr);
	free(st);
	return 0;
}

static int stats_event_first(void *ctx, struct pipeline *p, const struct perf_event *ev)
{
	struct stats *st = ctx;
	struct perf_evlist *el = input_evlist(pipeline_input(p));
	if (el->nr > st->nr_attr) {
		st->per_attr = xrealloc(st->per_attr, el->nr * sizeof(uint64_t));
		memset(st->per_attr + st->nr_attr, 0, (el->nr - st->nr_attr) * sizeof(uint64_t));
		st->nr_attr = el->nr;
	}
	return stats_event(ctx, p, ev);
}

int stats_sink_init(struct sink *sink, FILE *out)
{
	struct stats *st = xcalloc(1, sizeof(*st));
	st->out = out;
	memset(sink, 0, sizeof(*sink));
	sink->ctx = st;
	sink->event = stats_event_first;
	sink->end = stats_end;
	return 0;
}

/* ---- header ------------------------------------------------------------- */

static void print_sample_type(FILE *f, uint64_t t)
{
	static const char *const n[] = { "IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU",
					 "PERIOD", "STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER",
					 "STACK_USER", "WEIGHT", "DATA_SRC", "IDENTIFIER", "TRANSACTION",
					 "REGS_INTR", "PHYS_ADDR", "AUX", "CGROUP", "DATA_PAGE_SIZE",
					 "CODE_PAGE_SIZE", "WEIGHT_STRUCT" };
	const char *sep = "";
	for (unsigned b = 0; b < sizeof(n) / sizeof(n[0]); b++)
		if (t & (1ull << b)) {
			fprintf(f, "%s%s", sep, n[b]);
			sep = "|";
		}
}

void header_print(FILE *f, struct input *in)
{
	struct perf_header *h = input_header(in);
	struct perf_evlist *el = input_evlist(in);
	fprintf(f, "# ========\n");
	fprintf(f, "# file: %s%s%s\n", input_name(in), h->pipe ? " (pipe format)" : "",
		h->swap ? " (opposite endian)" : "");
	if (!h->pipe) {
		fprintf(f, "# data offset    : %" PRIu64 "\n", h->data_offset);
		fprintf(f, "# data size      : %" PRIu64 "\n", h->data_size);
		fprintf(f, "# feat offset    : %" PRIu64 "\n", h->feat_offset);
	}
	if (h->hostname) fprintf(f, "# hostname : %s\n", h->hostname);
	if (h->osrelease) fprintf(f, "# os release : %s\n", h->osrelease);
	if (h->version) fprintf(f, "# perf version : %s\n", h->version);
	if (h->arch) fprintf(f, "# arch : %s\n", h->arch);
	if (perf_header_has(h, HEADER_NRCPUS)) {
		fprintf(f, "# nrcpus online : %u\n", h->nr_cpus_online);
		fprintf(f, "# nrcpus avail : %u\n", h->nr_cpus_avail);
	}
	if (h->cpudesc) fprintf(f, "# cpudesc : %s\n", h->cpudesc);
	if (h->cpuid) fprintf(f, "# cpuid : %s\n", h->cpuid);
	if (perf_header_has(h, HEADER_TOTAL_MEM))
		fprintf(f, "# total memory : %" PRIu64 " kB\n", h->total_mem);
	if (h->cmdline.nr) {
		fprintf(f, "# cmdline :");
		for (uint32_t i = 0; i < h->cmdline.nr; i++)
			fprintf(f, " %s", h->cmdline.s[i]);
		fprintf(f, "\n");
	}
	for (size_t i = 0; i < el->nr; i++) {
		const struct perf_attr *pa = &el->attrs[i];
		fprintf(f, "# event : name = %s, id = {", pa->name);
		for (size_t k = 0; k < pa->nr_ids && k < 64; k++)
			fprintf(f, "%s %" PRIu64, k ? "," : "", pa->ids[k]);
		if (pa->nr_ids > 64)
			fprintf(f, ", ...");
		fprintf(f, " }, type = %u, size = %u, config = %#llx, { sample_period, sample_freq } = %llu, sample_type = ",
			pa->attr.type, pa->attr.size, (unsigned long long)pa->attr.config,
			(unsigned long long)pa->attr.sample_period);
		print_sample_type(f, pa->attr.sample_type);
		fprintf(f, ", read_format = %#llx, freq = %u, inherit = %u, sample_id_all = %u",
			(unsigned long long)pa->attr.read_format, pa->attr.freq, pa->attr.inherit,
			pa->attr.sample_id_all);
		if (pa->attr.sample_type & PERF_SAMPLE_REGS_USER)
			fprintf(f, ", sample_regs_user = %#llx", (unsigned long long)pa->attr.sample_regs_user);
		if (pa->attr.sample_type & PERF_SAMPLE_STACK_USER)
			fprintf(f, ", sample_stack_user = %u", pa->attr.sample_stack_user);
		if (pa->attr.sample_type & PERF_SAMPLE_BRANCH_STACK)
			fprintf(f, ", branch_sample_type = %#llx", (unsigned long long)pa->attr.branch_sample_type);
		if (pa->attr.use_clockid)
			fprintf(f, ", clockid = %d", pa->attr.clockid);
		fprintf(f, "\n");
	}
	const struct perf_cpu_topo *t = &h->cpu_topo;
	if (t->core_siblings.nr) {
		fprintf(f, "# sibling sockets :");
		for (uint32_t i = 0; i < t->core_siblings.nr; i++)
			fprintf(f, " %s", t->core_siblings.s[i]);
		fprintf(f, "\n# sibling threads :");
		for (uint32_t i = 0; i < t->thread_siblings.nr; i++)
			fprintf(f, " %s", t->thread_siblings.s[i]);
		fprintf(f, "\n");
		for (uint32_t i = 0; i < t->nr_cpus && t->core_id; i++)
			fprintf(f, "# CPU %u: Core ID %u, Socket ID %u\n", i, t->core_id[i], t->socket_id[i]);
	}
	for (uint32_t i = 0; i < h->nr_numa; i++)
		fprintf(f, "# node%u meminfo  : total = %" PRIu64 " kB, free = %" PRIu64 " kB\n# node%u cpu list : %s\n",
			h->numa[i].node, h->numa[i].mem_total, h->numa[i].mem_free, h->numa[i].node,
			h->numa[i].cpus);
	if (h->nr_pmu) {
		fprintf(f, "# pmu mappings:");
		for (uint32_t i = 0; i < h->nr_pmu; i++)
			fprintf(f, "%s %s = %u", i ? "," : "", h->pmu[i].name, h->pmu[i].type);
		fprintf(f, "\n");
	}
	for (uint32_t i = 0; i < h->nr_groups; i++)
		fprintf(f, "# group: %s{leader %u, %u members}\n", h->groups[i].name, h->groups[i].leader_idx,
			h->groups[i].nr_members);
	for (uint32_t i = 0; i < h->nr_caches; i++)
		fprintf(f, "# cache L%u %-5s %8s %3u-way line %u sets %u: %s\n", h->caches[i].level,
			h->caches[i].type, h->caches[i].size, h->caches[i].ways, h->caches[i].line_size,
			h->caches[i].sets, h->caches[i].map);
	if (perf_header_has(h, HEADER_BRANCH_STACK))
		fprintf(f, "# contains samples with branch stack\n");
	if (perf_header_has(h, HEADER_CLOCKID))
		fprintf(f, "# clockid frequency: %" PRIu64 " MHz\n",
			h->clockid_res_ns ? 1000 / h->clockid_res_ns : 0);
	if (h->has_clock_data)
		fprintf(f, "# clock data: clockid %u, wall clock %" PRIu64 " ns, clock %" PRIu64 " ns\n",
			h->clock_data_clockid, h->clock_wall_ns, h->clock_clk_ns);
	if (perf_header_has(h, HEADER_SAMPLE_TIME)) {
		fprintf(f, "# time of first sample : %" PRIu64 ".%06" PRIu64 "\n", h->sample_time_first / 1000000000u,
			(h->sample_time_first % 1000000000u) / 1000);
		fprintf(f, "# time of last sample : %" PRIu64 ".%06" PRIu64 "\n", h->sample_time_last / 1000000000u,
			(h->sample_time_last % 1000000000u) / 1000);
	}
	if (perf_header_has(h, HEADER_COMPRESSED))
		fprintf(f, "# compressed : %s, level = %u, ratio = %u\n", h->comp_type == PERF_COMP_ZSTD ? "Zstd" : "Unknown",
			h->comp_level, h->comp_ratio);
	for (uint32_t i = 0; i < h->nr_build_ids; i++) {
		fprintf(f, "# build id: ");
		for (uint8_t k = 0; k < h->build_ids[i].size; k++)
			fprintf(f, "%02x", h->build_ids[i].id[k]);
		fprintf(f, " %s\n", h->build_ids[i].filename);
	}
	if (h->tracing_data_size)
		fprintf(f, "# tracing data: %" PRIu64 " bytes\n", h->tracing_data_size);
	if (h->features_skipped)
		fprintf(f, "# features skipped (outside the file): %u\n", h->features_skipped);
	fprintf(f, "# features:");
	for (unsigned b = 1; b < PERF_FEAT_BITS; b++)
		if (perf_header_has(h, b))
			fprintf(f, " %s", perf_feature_name(b) ? perf_feature_name(b) : "unknown");
	fprintf(f, "\n# ========\n");
}

struct hdr_sink {
	FILE *out;
	bool printed;
};

static int header_event(void *ctx, struct pipeline *p, const struct perf_event *ev)
{
	/* pipe files carry their features as records: print once the first
	 * non-header record arrives */
	struct hdr_sink *hs = ctx;
	if (!hs->printed && ev->type < PERF_RECORD_USER_TYPE_START) {
		header_print(hs->out, pipeline_input(p));
		hs->printed = true;
		return 1; /* stop */
	}
	return 0;
}

static int header_end(void *ctx, struct pipeline *p, int rc)
{
	struct hdr_sink *hs = ctx;
	if (!hs->printed && rc >= 0)
		header_print(hs->out, pipeline_input(p));
	free(hs);
	return 0;
}

static int header_begin(void *ctx, struct pipeline *p)
{
	struct hdr_sink *hs = ctx;
	if (!input_header(pipeline_input(p))->pipe) {
		header_print(hs->out, pipeline_input(p));
		hs->printed = true;
		return 1;
	}
	return 0;
}

int header_sink_init(struct sink *sink, FILE *out)
{
	struct hdr_sink *hs = xcalloc(1, sizeof(*hs));
	hs->out = out;
	memset(sink, 0, sizeof(*sink));
	sink->ctx = hs;
	sink->begin = header_begin;
	sink->event = header_event;
	sink->end = header_end;
	return 0;
}
