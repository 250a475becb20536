/*
 * input.h: the analyzer's front end. Opens a perf.data file (mapped) or a
 * pipe stream (read incrementally), parses the header, attrs and features,
 * and yields raw records one at a time, with COMPRESSED records expanded
 * (one zstd stream across records; a record may span two of them).
 *
 * The data section (file) is pread into chunks, the stream (pipe) read
 * into chunks; either is a refcounted chunk and records are yielded in
 * place: rec->chunk is set and stays valid while someone holds a
 * reference (the ordering queue takes one instead of copying; the count
 * is not atomic: one thread holds a chunk's references, the one that
 * reads the input). Decompressed, byte-swapped or misaligned records live
 * in a scratch buffer until the next input_next call (no chunk, not
 * stable): the ordering queue copies those. Only a file-format stream read
 * whole is walked in memory (stable).
 *
 * HEADER_ATTR / HEADER_FEATURE / HEADER_BUILD_ID / HEADER_TRACING_DATA /
 * ID_INDEX / EVENT_UPDATE are consumed here into the evlist and header and
 * also yielded, so stats can count them.
 */
#ifndef SCORCH_INPUT_H
#define SCORCH_INPUT_H

#include "perf/event.h"
#include "perf/header.h"
#include "util/buf.h"
#include "util/err.h"
#include <stdbool.h>
#include <stdint.h>

/* A block of input data records are handed out from; refcounted, so
 * the ordering queue can hold records without copying them. */
struct input_chunk {
	uint32_t refs;
	size_t cap, len;
	struct input_chunk **pool;  /* free list it returns to (the input's) */
	struct input_chunk *next;   /* in the free list */
	uint8_t *data;              /* its bytes: just after it */
};
void input_chunk_get(struct input_chunk *c);
void input_chunk_put(struct input_chunk *c);

struct input_rec {
	const uint8_t *p;   /* record bytes, header first, 8-byte aligned */
	uint32_t size;
	uint64_t file_off;  /* offset in the input (decompressed: the COMPRESSED record's) */
	bool stable;        /* stays valid for the life of the input */
	struct input_chunk *chunk; /* else: valid while a reference to this is held */
	bool decompressed;
};

struct input_stats {
	uint64_t records_by_type[PERF_RECORD_SCORCH_MAX + 1];
	uint64_t records_unknown;
	uint64_t bytes_read;
	uint64_t compressed_records, compressed_bytes, decompressed_bytes;
};

struct input;

/* Open path ("-" = stdin). Parses the header (file) or the pipe header.
 * A file-format stream is kept in a temporary file in tmpdir (NULL: /tmp;
 * it must outlive the input). Returns NULL with e filled on failure. */
struct input *input_open(const char *path, const char *tmpdir, struct err *e);
/* The same, the input named name (input_name) rather than path. */
struct input *input_open_named(const char *path, const char *name, const char *tmpdir,
			       struct err *e);
/* Open from a file descriptor the caller owns (a socket, a pipe). */
struct input *input_open_fd(int fd, const char *name, const char *tmpdir, struct err *e);
/* A pipe-format stream fed from memory (the live pipeline): head is its
 * beginning (at least the 16-byte pipe header); later bytes come with
 * input_feed. Bytes are copied into the input's chunks as they are read,
 * so a feed needs to stay valid only until input_next returns 0 for it. */
struct input *input_open_feed(const char *name, const uint8_t *head, size_t n, struct err *e);
/* The next bytes of a fed stream, whole records; input_next returns 0 once
 * they are used up (a fed input never ends by itself). */
void input_feed(struct input *in, const uint8_t *p, size_t n);
void input_free(struct input *in);

/* Next record: 1 with *rec set, 0 at the end, negative on error (e filled). */
int input_next(struct input *in, struct input_rec *rec, struct err *e);
/* fn is called just before a record changes what input_evlist or
 * input_header say (HEADER_ATTR, HEADER_FEATURE, HEADER_BUILD_ID,
 * ID_INDEX, EVENT_UPDATE, the tracing data), as input_next reads it. */
void input_set_meta_hook(struct input *in, void (*fn)(void *ctx), void *ctx);

/* Take what a record that changes the attrs or header (the types the
 * meta hook is called for) says, as input_next does, for an input that
 * does not read the records itself (a follower of analyze/parallel/feed.h): rec
 * as another input of the same file yielded it, at off; tracing: the
 * tracing data that input kept after a HEADER_TRACING_DATA record
 * (tracing_len 0: none). 0, or an error as input_next gives it. */
int input_absorb(struct input *in, const uint8_t *rec, uint32_t size, uint64_t off,
		 const uint8_t *tracing, uint32_t tracing_len, struct err *e);

struct perf_evlist *input_evlist(struct input *in);
struct perf_header *input_header(struct input *in);
const struct input_stats *input_stats(const struct input *in);
/* Total input size when known (file), else 0; and bytes consumed so far. */
uint64_t input_size(const struct input *in);
uint64_t input_pos(const struct input *in);
const char *input_name(const struct input *in);
#endif
