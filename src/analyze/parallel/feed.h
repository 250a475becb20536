/*
 * feed.h: one pipeline's delivered records, for the others of a
 * block-parallel run (analyze/parallel/blocks.h).
 *
 * Pipeline 0 (the leader) reads the input and orders it as one pipeline
 * does; every record that leaves its ordering queue is published here,
 * in that order, with the input's state then. The other pipelines (the
 * followers) take the records from the feed instead of reading and
 * ordering the input themselves: each applies every record to its own
 * session and resolves the samples of its own blocks, as before. So the
 * file is read, decompressed and ordered once, whatever the number of
 * threads.
 *
 * A record stays where the leader's input has it (the feed holds a
 * reference to its chunk) until every follower is past it; a record not
 * in a chunk (decompressed, byte-swapped) is copied. Records that change
 * the input's attrs or header (HEADER_ATTR, ..., the tracing data) are
 * published as META entries at the place the leader's input took them,
 * for each follower's input to take the same, after a CUT entry where
 * the leader's input was about to take it (the blocks end there, and the
 * leader waits for them to be written). The end (or the input's
 * error, said once for all) is an END entry.
 *
 * One producer (the leader's thread), any number of consumers, each with
 * its own place; a bounded ring: the leader waits when the slowest
 * follower is a whole ring behind. Chunks are only ever touched by the
 * leader's thread (their counts are its input's).
 */
#ifndef SCORCH_FEED_H
#define SCORCH_FEED_H

#include "analyze/input.h"
#include "analyze/pipeline_config.h"
#include "util/err.h"
#include <stdbool.h>
#include <stdint.h>

enum feed_kind { FEED_REC, FEED_CUT, FEED_META, FEED_END };

/* 48 bytes: a follower reads every one (the input's state, which it
 * seldom needs, is beside it: feed_state) */
struct feed_entry {
	const uint8_t *rec;          /* REC, META: the record's bytes */
	struct input_chunk *chunk;   /* the leader's reference to the chunk holding rec, or NULL */
	uint8_t *copy;               /* owned bytes rec points into, or NULL */
	uint64_t file_off;
	uint32_t size;
	uint32_t tracing;            /* META: tracing data bytes after the record's (the leader kept them) */
	uint32_t type;               /* REC: the record's type */
	uint8_t kind;
	bool input;                  /* END: the input ended or failed there (every pipeline meets it) */
	int rc;                      /* END: the leader's result */
};

struct feed;

/* A feed for consumers 1..n-1, a ring of at least cap entries. */
struct feed *feed_new(int n, size_t cap);
/* After the leader released every entry (feed_release). */
void feed_free(struct feed *f);

/* Leader: the next entry to fill (waits while the ring is full; zeroed);
 * then feed_publish. kind, rec, size, file_off, type and its feed_state
 * as they apply; chunk and copy are the feed's from then on. */
struct feed_entry *feed_slot(struct feed *f);
/* A REC entry's input state: as the record left the leader's queue. */
struct pipeline_recstate *feed_state(struct feed *f, const struct feed_entry *en);
void feed_publish(struct feed *f);
/* Leader: wake the consumers waiting for a batch (before it may wait for
 * them: the end of each block). */
void feed_flush(struct feed *f);
/* Leader: publish the END entry (rc; input: the input's end or error,
 * with e its error), once; later calls do nothing. */
void feed_end(struct feed *f, int rc, bool input, const struct err *e);
/* Leader, once no consumer will read an entry again: every chunk
 * reference let go, every copy freed (before the leader's input is freed). */
void feed_release(struct feed *f);

/* Consumer i: the next entry (waits for it); feed_consumed once done
 * with it (its bytes may go then). */
const struct feed_entry *feed_next(struct feed *f, int i);
void feed_consumed(struct feed *f, int i);
/* Consumer i: the entry ahead places past its next one, if it has seen it
 * published (no wait), else NULL. */
const struct feed_entry *feed_peek(struct feed *f, int i, unsigned ahead);
/* Consumer i reads no more (its end, an error, or it never started). */
void feed_leave(struct feed *f, int i);
/* The END entry's error (valid once an END entry was read). */
const struct err *feed_error(const struct feed *f);

#endif
