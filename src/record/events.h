/*
 * events.h: building perf_event_attrs from the options and opening them.
 *
 * One fd per (event, CPU, target thread). The first fd opened on a CPU gets
 * the ring (ring.h); every other fd on that CPU is redirected into it with
 * PERF_EVENT_IOC_SET_OUTPUT, so there is exactly one ring per CPU to drain.
 * Each fd's sample id (PERF_EVENT_IOC_ID) is kept per event for the attrs
 * section. Only the first event carries the side-band bits (mmap, mmap2,
 * comm, task), as perf does, so side-band records are not duplicated.
 *
 * Every event has the same leading sample fields (IDENTIFIER IP TID TIME CPU
 * PERIOD, then CALLCHAIN etc.) so the recorder can read any sample's pid, ip,
 * time and callchain at fixed offsets without knowing its event.
 */
#ifndef SCORCH_RECORD_EVENTS_H
#define SCORCH_RECORD_EVENTS_H

#include "record/record_opts.h"
#include "record/ring.h"
#include "util/err.h"
#include <linux/perf_event.h>
#include <stdint.h>

/* Fixed sample layout (see above): u64 index after the record header. */
#define EVENTS_SAMPLE_BASE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
#define EVENTS_OFF_ID 8
#define EVENTS_OFF_IP 16
#define EVENTS_OFF_PID 24
#define EVENTS_OFF_TIME 32
#define EVENTS_OFF_CPU 40
#define EVENTS_OFF_CALLCHAIN 56
/* sample_id_all trailer: {pid,tid} time {cpu,res} identifier */
#define EVENTS_TRAILER_SIZE 32

struct events_ev {
	struct perf_event_attr attr;
	char name[96];
	uint64_t *ids;
	size_t nr_ids, cap_ids;
};

struct events {
	struct events_ev ev[RECORD_MAX_EVENTS];
	size_t nr_ev;
	int *fds;
	size_t nr_fds, cap_fds;
	struct ring *rings;
	size_t nr_rings;
};

/* Resolve an event name (cpu-clock, task-clock, page-faults, cycles, ...,
 * SUBSYS:NAME tracepoints) into ev. Returns 0 or -ENOENT with e filled. */
int record_event_parse(const char *name, struct record_event *ev, struct err *e);

/* The i-th event name record_event_parse knows (NULL past the last);
 * *hardware: it needs a hardware PMU. For `scorch list`. */
const char *events_named(size_t i, bool *hardware);

/* fn(ctx, "subsys:name") for each tracepoint in tracefs, sorted. Returns the
 * count, or -ENOENT when no tracefs is readable. */
int events_tracepoints(void (*fn)(void *ctx, const char *name), void *ctx);

/* Online CPUs into cpus (at most max); returns count or negative code. */
int events_online_cpus(int *cpus, size_t max);

/* Build the attrs (o's events, sampling, call graph), open them for the
 * given threads (pids; one entry -1 for system-wide) on the given CPUs,
 * map the rings. enable_on_exec for a launched command. On failure
 * everything is closed and e says why (paranoid level, unknown event). */
int events_open(struct events *ev, const struct record_opts *o, const pid_t *pids,
		size_t nr_pids, const int *cpus, size_t nr_cpus, bool enable_on_exec,
		struct err *e);
int events_enable(struct events *ev, bool on);
void events_close(struct events *ev);

#endif
