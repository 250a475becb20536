/*
 * session.h: the state of the recorded system at the current point in time:
 * threads (comm history, pid), processes (memory maps), kernel maps.
 *
 * Updated in time order from COMM, FORK, EXIT, MMAP, MMAP2 (and KSYMBOL)
 * records. Maps of a process are a sorted array of non-overlapping ranges; a
 * new map replaces the parts of older maps it overlaps (splitting them), as
 * the kernel does. An exec (COMM with the exec flag) drops the process's
 * user maps. Kernel and module maps live in the pseudo process pid -1.
 * Every change to a process's maps gives it a new generation, one no
 * process's maps had before in the session: so a generation names one state
 * of one process's maps, and what was worked out from a set of maps can be
 * kept under its generation (the unwinder's step memo).
 *
 * Strings (comm, filename) are interned in the session and live until
 * session_free, so outputs can keep pointers to them.
 */
#ifndef SCORCH_SESSION_H
#define SCORCH_SESSION_H

#include "util/bsearch.h"
#include "perf/event.h"
#include "util/hash.h"
#include <stdbool.h>
#include <stdint.h>

#define SESSION_KERNEL_PID UINT32_MAX /* pid -1 */

struct map {
	uint64_t start, end;   /* avma, end exclusive */
	uint64_t pgoff;        /* file offset of start */
	const char *filename;  /* interned */
	uint32_t maj, min, prot, flags;
	uint64_t ino, ino_generation;
	uint8_t build_id[20];
	uint8_t build_id_size;
	uint64_t time;         /* when it was mapped */
};

struct comm_entry {
	uint64_t time;
	const char *comm;      /* interned */
	bool exec;
};

struct thread {
	uint32_t pid, tid;
	struct comm_entry *comms; /* in time order */
	size_t nr_comms, cap_comms;
	uint64_t start_time, end_time; /* 0 when unknown */
	bool exited;
	uint32_t counted_pid;  /* the process whose live count has it (UINT32_MAX: none) */
};

struct process {
	uint32_t pid;
	struct map *maps;      /* sorted by start, non-overlapping */
	size_t nr_maps, cap_maps;
	uint64_t generation;   /* new on every change of maps (unique in the session) */
	uint32_t live;         /* its threads known and not exited; after the
				* last one exits the maps are dropped */
	uint64_t ended;        /* when live last dropped to 0 (0: unknown) */
};

struct session_stats {
	uint64_t mmaps, comms, forks, exits, threads, processes;
	uint64_t processes_ended;  /* whose maps were dropped when their last thread exited */
};

struct session;
struct session *session_new(void);
void session_free(struct session *s);

/* How long after its last thread's EXIT a process keeps its maps: the
 * kernel still samples a dying task after writing its EXIT (session.c). */
#define SESSION_EXIT_GRACE_NS 1000000000ull

/* Apply a decoded record (COMM, FORK, EXIT, MMAP, MMAP2, KSYMBOL); others
 * are ignored. */
void session_apply(struct session *s, const struct perf_event *ev);

struct thread *session_thread(struct session *s, uint32_t tid);
/* Find or create (with pid) a thread. */
struct thread *session_thread_get(struct session *s, uint32_t pid, uint32_t tid);
struct process *session_process(struct session *s, uint32_t pid);
/* The comm of tid at time t ("" where unknown; perf prints ":TID"). */
const char *session_comm(struct session *s, uint32_t tid, uint64_t time);
/* The map of p containing addr, or NULL: a binary search over p's sorted
 * maps (callers that look up many addresses of one process keep p). */
static inline const struct map *process_find_map(const struct process *p, uint64_t addr)
{
	if (!p || !p->nr_maps)
		return NULL;
	size_t lo = UPPER_BOUND(p->maps, p->nr_maps, start, addr);
	if (!lo)
		return NULL;
	const struct map *m = &p->maps[lo - 1];
	return addr < m->end ? m : NULL;
}

/* The map containing addr in pid (kernel addresses: pass SESSION_KERNEL_PID). */
const struct map *session_find_map(struct session *s, uint32_t pid, uint64_t addr);
const char *session_intern(struct session *s, const char *str);
/* Whether any process has mapped a JIT dump's marker (jitdump.h): until
 * one has, no frame needs a look at JIT dumps. */
bool session_jitdump(const struct session *s);
const struct session_stats *session_stats(const struct session *s);
/* Iterate all threads: for each (fn returns nonzero to stop). */
int session_for_each_thread(struct session *s, int (*fn)(void *, struct thread *), void *ctx);

#endif
