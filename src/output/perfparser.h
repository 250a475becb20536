/*
 * perfparser.h: the perfparser stream encoder. The stream is the format
 * hotspot reads from its parser process (hotspot-perfparser); this module
 * only encodes events and keeps the stream's invariants. What to send for a
 * recording is the pipeline sink's job (perfparser_sink.h), so hotspot can
 * use `scorch perfparser` in place of its own parser.
 *
 * Stream layout (docs/perfparser.md has every field):
 *
 *   "QPERFSTREAM\0"  le32 QDataStream version (19 = Qt 5.15)
 *   { le32 size; u8 type; fields... (size bytes, QDataStream encoding) } *
 *
 * Fields in QDataStream encoding (qdatastream.h). hotspot 1.3.0 stops at an unknown type or at bytes left over at
 * the end of an event, so each writer below emits exactly its fields.
 *
 * Invariants the writer keeps (hotspot relies on them):
 *   - ids of strings, locations and attributes count up from 0 in order of
 *     definition and every id is defined before an event refers to it;
 *   - a location's parent is defined before it;
 *   - task events (thread start/end, command, lost, context switch) are held
 *     back until a sample at or after their time is written (or the end), so
 *     hotspot sees them interleaved with samples in time order, as
 *     hotspot-perfparser sends them.
 *
 * A frame of a resolved sample becomes a chain of locations (see
 * perfparser_sink.c): the sampled address (no symbol) -> the function's location
 * (with its SymbolDefinition) -> for inlined code the call site (no symbol)
 * -> the enclosing function's location ... -> -1. hotspot walks the chain and
 * shows one frame per function, all but the last flagged inline.
 */
#ifndef SCORCH_OUTPUT_PERFPARSER_H
#define SCORCH_OUTPUT_PERFPARSER_H

#include "perf/header.h"
#include "util/buf.h"
#include <stdbool.h>
#include <stdint.h>

#define PERFPARSER_QDS_VERSION 19 /* QDataStream::Qt_5_15 */
#define PERFPARSER_KERNEL_PID 0xffffffffu

enum perfparser_event_type {
	PPE_THREAD_START = 0,
	PPE_THREAD_END = 1,
	PPE_COMMAND = 2,
	PPE_LOCATION = 3,
	PPE_SYMBOL = 4,
	PPE_STRING = 5,
	PPE_LOST = 6,
	PPE_FEATURES = 7,
	PPE_ERROR = 8,
	PPE_PROGRESS = 9,
	PPE_TRACEPOINT_FORMAT = 10,
	PPE_ATTRIBUTES = 11,
	PPE_CONTEXT_SWITCH = 12,
	PPE_SAMPLE = 13,
	PPE_TRACEPOINT_SAMPLE = 14,
};

/* Error event codes (hotspot-perfparser's PerfUnwind::ErrorCode). */
enum perfparser_error_code {
	PPERR_TIME_ORDER_VIOLATION = 1,
	PPERR_MISSING_ELF_FILE = 2,
	PPERR_INVALID_KALLSYMS = 3,
};


struct perfparser_location {
	uint64_t address;
	int32_t file;      /* string id or -1 */
	uint32_t pid;      /* PERFPARSER_KERNEL_PID for the kernel */
	int32_t line, column;
	int32_t parent;    /* location id or -1 */
};

struct perfparser_cost {
	int32_t attr;
	uint64_t cost;
};

struct perfparser;

struct perfparser_opts {
	int fd;                   /* output; < 0: keep everything in memory */
	bool header;              /* write the magic and version (default true via init) */
};

void perfparser_opts_init(struct perfparser_opts *o);
struct perfparser *perfparser_new(const struct perfparser_opts *o);
void perfparser_free(struct perfparser *pp);
/* Write out what is buffered (and held-back task events when all is true).
 * Returns 0 or a negative code (a write error sticks). */
int perfparser_flush(struct perfparser *pp, bool all);
/* The bytes written so far (memory mode), for tests. */
const struct buf *perfparser_buffer(const struct perfparser *pp);
/* First error (write failure, allocation), 0 if none. */
int perfparser_error_state(const struct perfparser *pp);

/* Event writers. Strings are interned: the returned id is defined by a
 * StringDefinition the first time; NULL and "" give -1 as perfparser does. */
int32_t perfparser_string(struct perfparser *pp, const char *s);
int32_t perfparser_string_n(struct perfparser *pp, const char *s, size_t n);
/* A string that lives as long as the stream (interned by pointer first). */
int32_t perfparser_string_stable(struct perfparser *pp, const char *s);
/* Interned location (defined the first time it is seen). */
int32_t perfparser_location(struct perfparser *pp, const struct perfparser_location *loc);

/* A location's key: what is written (address, file, pid, line, column,
 * parent) plus the identity of the function it stands for, which keeps two
 * functions at one address apart (not written). */
struct perfparser_loc_key {
	uint64_t address;
	int32_t file;
	uint32_t pid;
	int32_t line, column, parent;
	int32_t sym_name, sym_binary; /* -2: a plain location */
	int32_t dso_id;      /* shared across processes: which DSO (0: not shared) */
};
/* Intern k (zero its padding: keys compare as bytes); a new location is
 * written with address and pid, which may differ from the key's (for a
 * location shared across processes, those of the first process seen).
 * *isnew tells whether it was defined now. */
int32_t perfparser_location_intern(struct perfparser *pp, const struct perfparser_loc_key *k,
				  uint64_t address, uint32_t pid, bool *isnew);
void perfparser_symbol(struct perfparser *pp, int32_t location, int32_t name, int32_t binary,
		       int32_t path, bool is_kernel);
void perfparser_thread_start(struct perfparser *pp, uint32_t pid, uint32_t tid, uint64_t time,
			     uint32_t cpu, uint32_t ppid);
void perfparser_thread_end(struct perfparser *pp, uint32_t pid, uint32_t tid, uint64_t time,
			   uint32_t cpu);
void perfparser_command(struct perfparser *pp, uint32_t pid, uint32_t tid, uint64_t time,
			uint32_t cpu, const char *comm);
void perfparser_lost(struct perfparser *pp, uint32_t pid, uint32_t tid, uint64_t time, uint32_t cpu);
void perfparser_context_switch(struct perfparser *pp, uint32_t pid, uint32_t tid, uint64_t time,
			       uint32_t cpu, bool switch_out);
void perfparser_features(struct perfparser *pp, const struct perf_header *h, const char *arch);
/* message is UTF-8; written as a QString. */
void perfparser_error(struct perfparser *pp, int32_t code, const char *message);
void perfparser_progress(struct perfparser *pp, double fraction);
void perfparser_tracepoint_format(struct perfparser *pp, int32_t id, int32_t system, int32_t name,
				  uint32_t flags);
void perfparser_attributes(struct perfparser *pp, int32_t id, uint32_t type, uint64_t config,
			   int32_t name, bool uses_frequency, uint64_t frequency_or_period);

/* A sample: task events at or before time are written first.
 * trace_fields (TracePointSample only) are pre-encoded QHash bytes:
 * be32 count then { be32 name string id, QVariant } per field. */
void perfparser_sample(struct perfparser *pp, bool tracepoint, uint32_t pid, uint32_t tid,
		       uint64_t time, uint32_t cpu, const int32_t *frames, uint32_t nr_frames,
		       uint8_t guessed, const struct perfparser_cost *costs, uint32_t nr_costs,
		       const uint8_t *trace_fields, size_t trace_fields_len);

/* Counters for `--print-stats` style reporting by callers. */
struct perfparser_counts {
	uint64_t samples, locations, symbols, strings, task_events, errors, bytes;
};
const struct perfparser_counts *perfparser_counts(const struct perfparser *pp);

#endif
