/*
 * speedscope.h: speedscope's JSON file format
 * (https://www.speedscope.app/file-format-schema.json): shared frames and
 * one "sampled" profile per thread, its samples in time order (consecutive
 * equal stacks merged into one weighted sample), stacks root first. Weights
 * are nanoseconds for cpu-clock/task-clock (the period), else sample counts.
 * Threads are ordered by weight, the heaviest first (the one shown).
 */
#ifndef SCORCH_SPEEDSCOPE_H
#define SCORCH_SPEEDSCOPE_H

#include "output/profile.h"
#include "util/hash.h"
#include <stdio.h>

struct speedscope_run {
	uint32_t leaf;
	uint64_t weight;
};

struct speedscope_thread {
	uint32_t pid, tid;
	const char *comm;        /* the latest seen */
	struct speedscope_run *runs;
	size_t nr, cap;
	uint64_t total;
};

struct speedscope {
	struct speedscope_thread *threads;
	size_t nr, cap;
	struct hmap by_tid;      /* pid << 32 | tid -> index + 1 */
	bool ns;                 /* weights are the period in ns */
	bool ns_known;
	const char *name;        /* profile name (the input file) */
};

void speedscope_init(struct speedscope *sp);
void speedscope_release(struct speedscope *sp);
void speedscope_sink_config(struct speedscope *sp, struct profile_sink_config *c);
int speedscope_write(struct speedscope *sp, const struct profile_sink *s, FILE *out);

#endif
