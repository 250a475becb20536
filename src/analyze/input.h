/*
 * input.h: the analyzer's front end. Opens a perf.data file (mapped) or a
 * pipe stream (read incrementally), parses the header, attrs and features,
 * and yields raw records one at a time, with COMPRESSED records expanded
 * (one zstd stream across records; a record may span two of them).
 *
 * Records of a mapped file are yielded in place (stable for the life of the
 * input). Records from a pipe or from decompression live in a scratch
 * buffer until the next input_next call: rec->stable says which, and the
 * ordering queue copies the unstable ones.
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

struct input_rec {
	const uint8_t *p;   /* record bytes, header first, 8-byte aligned */
	uint32_t size;
	uint64_t file_off;  /* offset in the input (decompressed: the COMPRESSED record's) */
	bool stable;        /* stays valid for the life of the input */
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
 * Returns NULL with e filled on failure. */
struct input *input_open(const char *path, struct err *e);
/* Open from a file descriptor the caller owns (a socket, a pipe). */
struct input *input_open_fd(int fd, const char *name, struct err *e);
void input_free(struct input *in);

/* Next record: 1 with *rec set, 0 at the end, negative on error (e filled). */
int input_next(struct input *in, struct input_rec *rec, struct err *e);

struct perf_evlist *input_evlist(struct input *in);
struct perf_header *input_header(struct input *in);
const struct input_stats *input_stats(const struct input *in);
/* Total input size when known (file), else 0; and bytes consumed so far. */
uint64_t input_size(const struct input *in);
uint64_t input_pos(const struct input *in);
const char *input_name(const struct input *in);

#endif
