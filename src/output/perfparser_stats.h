/*
 * perfparser_stats.h: `scorch perfparser --print-stats`, the figures
 * hotspot-perfparser prints about its event buffering.
 *
 * Those figures describe hotspot-perfparser's own ordering buffer (three
 * lists: samples, mmaps, task events; flushed by size or by FINISHED_ROUND,
 * half at a time), not scorch's, so this sink replays that model over the
 * records in file order: same rules for switching between size-bounded and
 * round-driven buffering, the same sizes (a record's header size; 32 bytes
 * per task event), the same stable time sort per flush. The result is the
 * same report, from a pass over the raw records (input only: no ordering,
 * session or resolving, which the figures do not depend on).
 */
#ifndef SCORCH_OUTPUT_PERFPARSER_STATS_H
#define SCORCH_OUTPUT_PERFPARSER_STATS_H

#include "analyze/input.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct perfparser_stats_result {
	uint64_t samples, mmaps, rounds, buffer_flushes;
	uint64_t samples_time_violations, mmaps_time_violations;
	uint64_t max_samples_per_round, max_mmaps_per_round, max_task_events_per_round;
	uint64_t max_samples_per_flush, max_mmaps_per_flush, max_task_events_per_flush;
	uint64_t max_buffer_size, max_total_event_size_per_round;
	uint64_t max_time, max_time_between_rounds, max_reorder_time;
};

struct perfparser_stats;
/* buffer sizes in bytes, as hotspot-perfparser's --buffer-size/--max-buffer-size * 1024 */
struct perfparser_stats *perfparser_stats_new(uint32_t buffer_size, uint32_t max_buffer_size);
void perfparser_stats_free(struct perfparser_stats *st);
/* Replay every record of an opened input in file order, then finish.
 * Returns 0 or a negative code with e filled (a read or decode error). */
int perfparser_stats_run(struct perfparser_stats *st, struct input *in, struct err *e);
const struct perfparser_stats_result *perfparser_stats_result(const struct perfparser_stats *st);
/* "samples: N\n..." exactly as hotspot-perfparser prints it. */
void perfparser_stats_print(const struct perfparser_stats *st, FILE *out);

/* The model's inputs, for tests and for callers without a pipeline. */
enum perfparser_stats_kind { PPS_SAMPLE, PPS_MMAP, PPS_TASK };
void perfparser_stats_attr(struct perfparser_stats *st, bool tracepoint);
void perfparser_stats_features(struct perfparser_stats *st, const char *perf_version);
void perfparser_stats_event(struct perfparser_stats *st, enum perfparser_stats_kind kind, uint64_t time, uint32_t size);
void perfparser_stats_round(struct perfparser_stats *st);
void perfparser_stats_finish(struct perfparser_stats *st);

#endif
