/*
 * header.h: the perf.data file header and its feature sections, parsed into
 * plain structs (their writer: encode.h). Used by the reader (the file's
 * header; pipe HEADER_FEATURE records) and by `scorch header`. Unknown
 * features are skipped by their size. Every offset and size read from the
 * file is checked against its length before it is used: a malformed
 * header is an error at its offset, never a read outside the bytes
 * given (tests/fuzz/fuzz_header.c).
 *
 * Feature payload encoding: strings are { u32 len; char s[len] } with len
 * including NUL padding to 4/64 bytes; string lists are { u32 nr; strings }.
 */
#ifndef SCORCH_PERF_HEADER_H
#define SCORCH_PERF_HEADER_H

#include "perf/event.h"
#include "perf/perf_format.h"
#include "perf/tracing.h"
#include "util/err.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perf_build_id {
	int32_t pid;
	uint16_t misc;
	uint8_t id[20];
	uint8_t size;
	char *filename;
};

struct perf_strlist {
	char **s;
	uint32_t nr;
};

struct perf_cpu_topo {
	struct perf_strlist core_siblings, thread_siblings, die_siblings;
	uint32_t nr_cpus;
	uint32_t *core_id, *socket_id, *die_id; /* nr_cpus each, or NULL */
};

struct perf_numa_node {
	uint32_t node;
	uint64_t mem_total, mem_free;
	char *cpus;
};

struct perf_pmu_mapping {
	uint32_t type;
	char *name;
};

struct perf_group_desc {
	char *name;
	uint32_t leader_idx, nr_members;
};

struct perf_cache_level {
	uint32_t level, line_size, sets, ways;
	char *type, *size, *map;
};

#define PERF_HEADER_MAX_WARNINGS 32

struct perf_header {
	bool swap;
	bool pipe;
	unsigned features_skipped; /* feature sections outside the file */
	uint64_t data_offset, data_size, feat_offset, attr_size;
	uint64_t features[PERF_FEAT_BITS / 64];  /* bits present */
	char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid;
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint64_t total_mem; /* kB */
	struct perf_strlist cmdline;
	struct perf_cpu_topo cpu_topo;
	struct perf_numa_node *numa;
	uint32_t nr_numa;
	struct perf_pmu_mapping *pmu;
	uint32_t nr_pmu;
	struct perf_group_desc *groups;
	uint32_t nr_groups;
	struct perf_cache_level *caches;
	uint32_t nr_caches;
	uint64_t clockid_res_ns;
	bool has_clock_data;
	uint32_t clock_data_clockid;
	uint64_t clock_wall_ns, clock_clk_ns;
	uint64_t sample_time_first, sample_time_last;
	uint32_t comp_ver, comp_type, comp_level, comp_ratio, comp_mmap_len;
	uint64_t dir_format_version;
	struct perf_build_id *build_ids;
	uint32_t nr_build_ids;
	struct perf_strlist cpu_pmu_caps;
	uint8_t *tracing_data;   /* HEADER_TRACING_DATA payload, copied */
	uint64_t tracing_data_size;
	struct tracing_info tracing; /* parsed from tracing_data */
	/* damaged optional features, dropped: one message each (capped) */
	char *warnings[PERF_HEADER_MAX_WARNINGS];
	unsigned nr_warnings;
};

void perf_header_init(struct perf_header *h);
void perf_header_release(struct perf_header *h);

static inline bool perf_header_has(const struct perf_header *h, unsigned bit)
{
	return bit < PERF_FEAT_BITS && (h->features[bit / 64] >> (bit % 64)) & 1;
}

/* The header of a perf.data file whose bytes are m..m+len (mapped or read
 * whole): magic and byte order (h->swap, el->swap), the attrs with their
 * ids (into el, finalized) and the feature sections (into h). A
 * pipe-format header (16 bytes) only sets h->pipe: its attrs and features
 * come as records. Else h->data_offset and h->data_size say where the
 * records are (a file cut short: data.size 0 or past the end means to the
 * end of the file); feature sections outside the file are counted in
 * h->features_skipped; those of an opposite-endian file are not decoded.
 * h and el are initialized by the caller and released by it, also after
 * an error. Returns 0, or a negative code with e filled (offset: where
 * the header is wrong). */
int perf_file_header_parse(struct perf_header *h, struct perf_evlist *el, const uint8_t *m, size_t len,
			   struct err *e);

/* Parse one feature's payload (bytes p..p+size, at file offset off).
 * event_desc fills the names of el's attrs. Unknown bits are ignored. A
 * damaged feature is dropped (its bit cleared) with a message in
 * h->warnings. Returns 0, or -ENOMEM with e filled. */
int perf_header_parse_feature(struct perf_header *h, struct perf_evlist *el, unsigned bit,
			      const uint8_t *p, uint64_t size, uint64_t off, struct err *e);

/* Name tracepoint attrs still named "tracepoint:ID" from the tracing data. */
void perf_header_name_tracepoints(const struct perf_header *h, struct perf_evlist *el);

/* Parse the build-id records of HEADER_BUILD_ID (also the pipe record's body). */
int perf_header_parse_build_ids(struct perf_header *h, const uint8_t *p, uint64_t size,
				uint64_t off, struct err *e);

#endif
