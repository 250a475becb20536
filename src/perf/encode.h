/*
 * encode.h: writing perf.data, the counterpart of the input (decode.c and
 * analyze/input.c). The recorder's trace writer (the I/O of records) is
 * record/writer.h; this is the file format. Knows the file
 * layout (perf_format.h) and the encoding of each header feature; knows
 * nothing of rings, events being opened, or asynchronous I/O: the recorder
 * hands it attrs, feature values and file descriptors.
 *
 * File mode: perf_file_data_offset() says where the data section starts;
 * the recorder writes records from there, then calls
 * perf_file_write_features() at the end of the data and perf_file_write_header()
 * last (header, ids, attrs at offset 0..data_offset). Layout, as perf writes it:
 *
 *   0                 struct perf_file_header (104 bytes)
 *   104               ids of attr 0, ids of attr 1, ...      (u64 each)
 *   104 + 8*nr_ids    attrs section: { attr, perf_file_section ids } * nr
 *   data_offset       records
 *   data end          perf_file_section per feature bit set, then payloads
 *
 * Pipe mode: perf_pipe_head() appends the pipe header, one HEADER_ATTR record
 * per attr and one HEADER_FEATURE record per feature to a buffer; build ids
 * go as HEADER_BUILD_ID records (perf_pipe_build_ids()).
 *
 * Feature payloads are built in struct perf_feats: one buffer per bit, filled
 * by the perf_feat_* helpers, with perf's encodings (strings are u32 length
 * including NUL padding to 64 bytes, then the bytes).
 */
#ifndef SCORCH_PERF_ENCODE_H
#define SCORCH_PERF_ENCODE_H

#include "perf/header.h"
#include "perf/perf_format.h"
#include "util/buf.h"
#include <stddef.h>
#include <stdint.h>

/* One attr as written: the kernel attr, its sample ids and its event name. */
struct perf_wattr {
	struct perf_event_attr attr;
	const char *name;
	const uint64_t *ids;
	size_t nr_ids;
};

struct perf_feats {
	struct buf sec[HEADER_LAST_FEATURE];
	uint64_t bits[PERF_FEAT_BITS / 64];
};

void perf_feats_init(struct perf_feats *f);
void perf_feats_release(struct perf_feats *f);
/* Start (or restart) feature bit: sets it and returns its empty buffer. */
struct buf *perf_feats_begin(struct perf_feats *f, unsigned bit);
void perf_feats_clear(struct perf_feats *f, unsigned bit);

/* Encoding helpers: 0 or negative code. */
int perf_enc_u32(struct buf *b, uint32_t v);
int perf_enc_u64(struct buf *b, uint64_t v);
int perf_enc_string(struct buf *b, const char *s);

int perf_feats_add_event_desc(struct perf_feats *f, const struct perf_wattr *a, size_t n);
int perf_feats_add_sample_time(struct perf_feats *f, uint64_t first, uint64_t last);
/* Build-id table; without entries the bit is left clear, as perf does. */
int perf_feats_add_build_ids(struct perf_feats *f, const struct perf_build_id *b, size_t n);
int perf_feats_add_compressed(struct perf_feats *f, uint32_t level, uint32_t ratio,
			      uint32_t mmap_len);

/* Encode one build-id record (the feature entry and the pipe record share it).
 * type is 0 in the feature, PERF_RECORD_HEADER_BUILD_ID in a pipe. */
int perf_enc_build_id(struct buf *b, uint32_t type, const struct perf_build_id *bid);

/* Bytes from the start of the file to the data section. */
uint64_t perf_file_data_offset(const struct perf_wattr *a, size_t n);
/* Write header, ids and attrs at offset 0. feat_bits may be NULL (none). */
int perf_file_write_header(int fd, const struct perf_wattr *a, size_t n, uint64_t data_size,
			   const uint64_t *feat_bits);
/* Write the feature section table and payloads at off; returns 0 or -errno. */
int perf_file_write_features(int fd, uint64_t off, const struct perf_feats *f);

/* Pipe mode: pipe header, HEADER_ATTR records, HEADER_FEATURE records, and
 * the HEADER_TRACING_DATA record when f has tracing data. */
int perf_pipe_head(struct buf *out, const struct perf_wattr *a, size_t n,
		   const struct perf_feats *f);
/* HEADER_FEATURE record for one bit of f (pipe mode, after the data). */
int perf_pipe_feature(struct buf *out, const struct perf_feats *f, unsigned bit);
int perf_pipe_build_ids(struct buf *out, const struct perf_build_id *b, size_t n);

/* pwrite all of p or fail with -errno. */
int perf_pwrite_all(int fd, const void *p, size_t n, uint64_t off);

#endif
