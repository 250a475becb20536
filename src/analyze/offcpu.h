/*
 * offcpu.h: off-CPU and wall-clock time, a stage between the resolver and a
 * sink: each switch-out stack weighted by the time to its switch-in
 * (docs/offcpu.md).
 *
 * A thread's off-CPU interval starts at a switch-out sample (the
 * sched:sched_switch tracepoint or the context-switches software event,
 * taken in the thread's context with its stack) and ends at its next
 * switch-in: a PERF_RECORD_SWITCH[_CPU_WIDE] "in" record for the thread, a
 * sched_switch sample whose next_pid is the thread, or, when the recording
 * has no switch records, the thread's next sample (an upper bound; a
 * warning says so). The switch-out stack is weighted with that interval and
 * handed on as a sample with time_ns and off_cpu (the state the thread left
 * the CPU in: prev_state of sched_switch, or the preempt flag of the switch
 * record) set. A thread still off-CPU at the end of the recording is counted
 * up to the last timestamp of the recording and marked open.
 *
 * The stage wraps a struct sink: event() sees every record in time order
 * and computes the intervals; sample() sees resolved samples in sample
 * order. The k-th switch-out sample through event() is the k-th through sample(), so
 * the stage matches them by a FIFO; a stack whose interval is not closed yet
 * is copied and held (at most one per thread that is switched out) and
 * emitted when the switch-in arrives. Off-CPU stacks therefore reach the
 * inner sink in switch-in order, not sample order.
 *
 * Modes: OFFCPU_MODE_OFF_CPU hands on off-CPU stacks only; OFFCPU_MODE_WALL
 * also the on-CPU samples of one event, with their period as time_ns
 * (nanoseconds for cpu-clock/task-clock, 1/F per sample for other events in
 * frequency mode). Per-thread totals (on-CPU, off-CPU by state) are kept for
 * reports. The stage knows nothing of profiles or outputs.
 */
#ifndef SCORCH_OFFCPU_H
#define SCORCH_OFFCPU_H

#include "analyze/pipeline.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum offcpu_mode { OFFCPU_MODE_NONE, OFFCPU_MODE_OFF_CPU, OFFCPU_MODE_WALL };

/* Why a thread was off-CPU (resolved_sample.off_cpu; 0 is on-CPU). */
enum offcpu_state {
	OFFCPU_ON = 0,
	OFFCPU_SLEEPING,  /* S: interruptible sleep (sleep, poll, pipe read, futex) */
	OFFCPU_BLOCKED,   /* D: uninterruptible (disk I/O, some locks) */
	OFFCPU_PREEMPTED, /* R: runnable, switched out by the scheduler */
	OFFCPU_OTHER,     /* stopped, traced, dead, parked, idle */
	OFFCPU_WAITING,   /* not preempted, sleep kind unknown (context-switches event) */
	OFFCPU_NR_STATES
};

/* Whether an attr is a switch-out event (sched:sched_switch, or the
 * context-switches software event). */
bool offcpu_is_switch_attr(const struct perf_attr *a);

/* "sleeping", "blocked", ... ; "on-cpu" for 0. */
const char *offcpu_state_name(unsigned st);

struct offcpu_config {
	enum offcpu_mode mode;
	const char *event;  /* the on-CPU event ("cpu-clock"), NULL: the first sampled */
};

struct offcpu_thread {
	uint32_t pid, tid;
	const char *comm;                     /* as of its last sample */
	uint64_t on_ns;                       /* on-CPU samples of the event, as time */
	uint64_t on_samples;
	uint64_t off_ns[OFFCPU_NR_STATES];    /* by state ([0] unused) */
	uint64_t off_total_ns;
	uint64_t switches;                    /* off-CPU intervals */
	bool open;                            /* off-CPU at the end of the recording */
};

struct offcpu_stats {
	uint64_t switch_outs;       /* switch-out samples */
	uint64_t closed_by_switch;  /* ended by a switch record or sched_switch next_pid */
	uint64_t closed_by_sample;  /* ended by a later sample/exit of the thread (no switch record) */
	uint64_t open_at_end;
	uint64_t switch_records;    /* PERF_RECORD_SWITCH[_CPU_WIDE] seen */
	uint64_t no_stack;          /* intervals not followed: stack never arrived, or past the thread cap */
	uint64_t on_samples, on_ns, off_ns;
	const char *on_event;       /* the on-CPU event's name, NULL none */
	bool on_is_time;            /* its period counts nanoseconds */
};

struct offcpu;

struct offcpu *offcpu_new(const struct offcpu_config *c);
/* Fill outer with callbacks that run the stage in front of inner (whose
 * callbacks and ctx are copied; inner->sample may be NULL only if the
 * caller wants totals alone). The stage must outlive the run. */
void offcpu_wrap(struct offcpu *o, const struct sink *inner, struct sink *outer);
void offcpu_free(struct offcpu *o);

/* After the run (or from the inner sink's end callback): the threads seen,
 * in first-seen order, and the counters. */
const struct offcpu_thread *offcpu_threads(const struct offcpu *o, size_t *n);
const struct offcpu_stats *offcpu_stats(const struct offcpu *o);

#endif
