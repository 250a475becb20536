/*
 * buildid.h: which DSOs got samples, and their build ids, for the
 * HEADER_BUILD_ID feature. The recorder feeds it every MMAP/MMAP2/FORK/COMM
 * (exec) record and every sample's ip and callchain as it copies them out of
 * the rings; at the end buildid_collect() reads the build id of each DSO that
 * was hit from its ELF notes (the kernel's from /sys/kernel/notes, modules'
 * from /sys/module/NAME/notes).
 *
 * Maps are kept per pid, newest last; a lookup scans from the newest so a
 * later mapping of the same range wins. A FORK copies the parent's maps, an
 * exec clears them. The last hit is cached: consecutive samples of one
 * process mostly land in the same DSO.
 *
 * A process whose leader exits (EXIT with tid == pid) is forgotten two
 * passes over the rings later (buildid_pass_end): by then every ring has
 * been read past the EXIT, so no sample of it written before is still
 * waiting, and a long recording of many short processes does not keep all
 * their maps. A FORK, MMAP or exec of that pid in between keeps it.
 */
#ifndef SCORCH_RECORD_BUILDID_H
#define SCORCH_RECORD_BUILDID_H

#include "perf/header.h"
#include "util/hash.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buildid_map {
	uint64_t start, end;
	uint32_t dso;
};

struct buildid_proc {
	struct buildid_map *maps;
	size_t nr, cap;
	uint64_t ended;            /* the pass its leader's EXIT was read in + 1; 0: live */
};

struct buildid_dso {
	char *name;
	bool kernel;
	bool hit;
};

struct buildid {
	struct hmap procs;         /* pid -> struct buildid_proc * */
	struct hmap dso_index;     /* hash(name) -> index + 1 (chained by linear search on collision) */
	struct buildid_dso *dsos;
	size_t nr_dsos, cap_dsos;
	struct buildid_proc kernel;
	uint32_t last_pid;
	struct buildid_proc *last_proc;
	size_t last_map;
	uint64_t pass;             /* passes over the rings so far */
	uint32_t *ended;           /* pids whose leader exited, to forget */
	size_t nr_ended, cap_ended;
	uint64_t forgotten;        /* processes forgotten so far */
};

void buildid_init(struct buildid *b);
void buildid_release(struct buildid *b);
void buildid_mmap(struct buildid *b, uint32_t pid, uint64_t start, uint64_t len, const char *name,
		  bool kernel);
void buildid_fork(struct buildid *b, uint32_t pid, uint32_t ppid);
void buildid_exec(struct buildid *b, uint32_t pid);
/* An EXIT record: when tid is the leader, pid is forgotten two passes later. */
void buildid_exit(struct buildid *b, uint32_t pid, uint32_t tid);
/* A pass over every ring is complete. */
void buildid_pass_end(struct buildid *b);
void buildid_hit(struct buildid *b, uint32_t pid, uint64_t ip, bool kernel);
/* Forget hits (a new file after switch-output); maps stay. */
void buildid_reset_hits(struct buildid *b);
/* Build ids of the DSOs hit; *out is an array the caller frees with
 * buildid_free_list. DSOs without a readable build id are left out. */
int buildid_collect(struct buildid *b, struct perf_build_id **out, size_t *n);
void buildid_free_list(struct perf_build_id *l, size_t n);

/* Read the GNU build id note of an ELF file / of a raw notes blob.
 * Returns the id's size (> 0) or a negative code. */
int buildid_read_elf(const char *path, uint8_t id[20]);
/* The running kernel's build id (/sys/kernel/notes): its size, or <= 0. */
int buildid_kernel(uint8_t id[20]);
int buildid_parse_notes(const uint8_t *p, size_t n, uint8_t id[20]);

#endif
