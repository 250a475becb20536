/*
 * event.h: decoded perf.data records and samples.
 *
 * A record is decoded in place: pointers in struct perf_sample and struct
 * perf_event point into the record's bytes (never copied), so a decoded event
 * is valid only as long as the record it came from. Every length is checked
 * against the record size before use; a record that does not fit gives an
 * error with its file offset.
 *
 * The attr a record belongs to is found by PERF_SAMPLE_IDENTIFIER (first u64
 * of a sample, last u64 of a non-sample record's sample_id_all trailer), by
 * the ID's fixed position when all attrs agree on it, or is the only attr.
 */
#ifndef SCORCH_PERF_EVENT_H
#define SCORCH_PERF_EVENT_H

#include "perf/perf_format.h"
#include "util/err.h"
#include "util/hash.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One event attribute (one -e event) with its sample ids and name. */
struct perf_attr {
	struct perf_event_attr attr; /* zero-extended to our struct size */
	uint32_t file_attr_size;     /* attr.size as found in the file */
	uint64_t *ids;
	size_t nr_ids;
	char *name;                  /* from event_desc, or synthesized */
	bool name_recorded;          /* name from the file (event_desc, EVENT_UPDATE, tracing data) */
	int id_pos;                  /* u64 index of ID in a sample, -1 if none */
	int is_pos;                  /* u64 index of ID from the end of a trailer */
	uint32_t trailer_size;       /* bytes of sample_id_all trailer */
	uint32_t time_pos;           /* u64 index of TIME in a sample, or -1 */
	uint32_t regs_user_nr;       /* popcount(sample_regs_user) */
	uint32_t regs_intr_nr;
};

/* All attrs of a file; lookup of a record's attr. */
struct perf_evlist {
	struct perf_attr *attrs;
	size_t nr;
	size_t cap;
	struct hmap by_id;     /* sample id -> attr index + 1 */
	int id_pos, is_pos;    /* common positions, or -1 when they differ */
	bool sample_id_all;    /* all attrs have it */
	bool swap;             /* opposite endian file (records swapped before decode) */
};

void perf_evlist_init(struct perf_evlist *el);
void perf_evlist_release(struct perf_evlist *el);
/* Add an attr from file bytes (attr_size bytes at p; ids may be NULL).
 * Copies what it needs. Returns 0 or a negative code with e filled. */
int perf_evlist_add(struct perf_evlist *el, const void *p, uint32_t attr_size,
		    const uint64_t *ids, size_t nr_ids, uint64_t off, struct err *e);
/* Add more ids to attr idx (ID_INDEX, EVENT_UPDATE, pipe HEADER_ATTR). */
void perf_evlist_add_ids(struct perf_evlist *el, size_t idx, const uint64_t *ids, size_t n);
/* Compute positions after all attrs are known. */
void perf_evlist_finalize(struct perf_evlist *el);
/* Name used by perf for attr type/config when event_desc is absent. */
void perf_attr_default_name(const struct perf_event_attr *a, char *out, size_t n);
/* perf's name of a PERF_TYPE_HARDWARE / PERF_TYPE_SOFTWARE config; NULL when
 * unknown. */
const char *perf_hw_name(uint64_t config);
const char *perf_sw_name(uint64_t config);

struct perf_branch_entry_raw {
	uint64_t from, to, flags;
};

/* A decoded sample: every field the attr's sample_type has. */
struct perf_sample {
	int attr_idx;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	const uint64_t *read;   /* raw read_format values */
	uint32_t read_nr_u64;
	uint64_t callchain_nr;
	const uint64_t *callchain;
	uint32_t raw_size;
	const uint8_t *raw;
	uint64_t branch_nr;
	uint64_t branch_hw_idx;  /* -1 when absent */
	const struct perf_branch_entry_raw *branch;
	uint64_t regs_user_abi;
	uint32_t regs_user_nr;
	const uint64_t *regs_user;
	uint64_t stack_user_size;
	const uint8_t *stack_user;
	uint64_t stack_user_dyn_size;
	uint64_t weight;
	uint64_t data_src;
	uint64_t transaction;
	uint64_t regs_intr_abi;
	uint32_t regs_intr_nr;
	const uint64_t *regs_intr;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	uint64_t aux_size;
	const uint8_t *aux;
	uint16_t misc;          /* record header misc: cpumode, exact ip */
	bool has_time, has_cpu, has_tid;
};

/* A decoded non-sample record. Strings point into the record and are
 * guaranteed NUL-terminated within it (else a decode error). */
struct perf_event {
	uint32_t type;
	uint16_t misc;
	uint16_t size;
	const uint8_t *data;     /* whole record, header included */
	uint64_t file_off;       /* where it was in the input (decompressed: of the COMPRESSED record) */
	struct perf_sample s;    /* samples: everything; others: the sample_id_all trailer */
	union {
		struct {
			uint32_t pid, tid;
			uint64_t start, len, pgoff;
			uint32_t maj, min;
			uint64_t ino, ino_generation;
			uint32_t prot, flags;
			uint8_t build_id[20];
			uint8_t build_id_size; /* 0 when the inode variant */
			const char *filename;
		} mmap; /* MMAP and MMAP2 */
		struct {
			uint32_t pid, tid;
			const char *comm;
			bool exec;
		} comm;
		struct {
			uint32_t pid, ppid, tid, ptid;
			uint64_t time;
		} fork; /* FORK and EXIT */
		struct {
			uint64_t id, lost;
		} lost;
		struct {
			uint64_t lost;
		} lost_samples;
		struct {
			uint64_t time, id, stream_id;
		} throttle;
		struct {
			uint32_t next_prev_pid, next_prev_tid; /* CPU_WIDE only */
			bool out, preempt;
		} cs;
		struct {
			uint64_t addr;
			uint32_t len;
			uint16_t ksym_type, flags;
			const char *name;
		} ksymbol;
		struct {
			uint64_t id;
			const char *path;
		} cgroup;
		struct {
			uint64_t aux_offset, aux_size, flags;
		} aux;
		struct {
			uint64_t size, offset, reference;
			uint32_t idx, tid, cpu;
		} auxtrace;
		struct {
			uint32_t size;
		} tracing_data;
		struct {
			uint64_t time_shift, time_mult, time_zero;
		} time_conv;
		struct {
			const uint8_t *data;
			size_t size;
		} compressed;
	};
};

/* Decode record bytes p (rec size from its header, already checked >= 8 and
 * within bounds by the caller) for the evlist. file_off is for errors.
 * Returns 0, or a negative code with e filled. */
int perf_event_decode(const struct perf_evlist *el, const uint8_t *p, uint64_t file_off,
		      struct perf_event *ev, struct err *e);

/* Sample record rec (decoded as ev) written to dst without its user
 * stack's bytes, which nothing after unwinding reads: the stack's size
 * field 0, no dynamic size, the header's size made to fit. Returns its
 * size, or 0 when ev has no stack bytes within rec (nothing written);
 * dst NULL: the size only. */
size_t perf_sample_without_stack(const uint8_t *rec, const struct perf_event *ev, uint8_t *dst);

/* ev as a record kept without its bytes: its type, misc, file offset and
 * time, no attr, nothing else. */
void perf_event_light(struct perf_event *ev, uint32_t type, uint16_t misc, uint64_t file_off, uint64_t time);

/* Which attr does this record belong to? -1 when it cannot be told. */
int perf_evlist_attr_of(const struct perf_evlist *el, const uint8_t *p);

/* The record's timestamp (sample TIME or trailer TIME); returns false when
 * it has none. Cheap: reads one field, used by the ordering queue. */
bool perf_record_time(const struct perf_evlist *el, const uint8_t *p, uint64_t *time);


#endif
