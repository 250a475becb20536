/*
 * pprof.h: the pprof profile (profile.proto, gzip'd) that `go tool pprof`,
 * pprof.me, Grafana Pyroscope and others read. Written by hand: a protobuf
 * message is a sequence of (field << 3 | wire type) keys followed by a
 * varint or a length-prefixed body, which takes a few dozen lines; zlib
 * adds the gzip wrapper.
 *
 * Built from a profile collected per address (one pframe per address) with
 * a thread pseudo-frame at the root. A location is one address with its
 * inline chain: the frames at one address, innermost first, become its
 * Line entries as profile.proto wants them (the last line is the caller the
 * others were inlined into). Mappings (one per DSO, with its address range,
 * file offset and build id) are collected while the samples are read,
 * because the session's maps change under the run. Samples carry two values
 * (sample count, and the period: CPU nanoseconds for cpu-clock) and pid,
 * tid and comm labels.
 */
#ifndef SCORCH_PPROF_H
#define SCORCH_PPROF_H

#include "output/profile.h"
#include "util/buf.h"
#include "util/hash.h"
#include <stdio.h>

struct pprof_mapping {
	const char *dso;        /* key (pointer) */
	uint64_t start, limit, pgoff;
	char build_id[41];
	uint8_t kind;
	uint64_t hits;          /* samples whose leaf is in it (the busiest goes first) */
	uint32_t id;            /* pprof id, assigned when written */
	bool has_functions, has_filenames, has_lines, has_inline;
};

struct pprof {
	struct pprof_mapping *maps;
	size_t nr_maps, cap_maps;
	struct hmap map_by_dso;  /* dso pointer -> index + 1 */
	const char *input;       /* for the comment */
	/* continuous profiling (all optional, 0/NULL: as export writes it) */
	const char *comment;     /* instead of "scorch export ..." */
	const char *host;        /* a host label on every sample */
	int64_t time_nanos;      /* the profile's start (wall clock) */
	int64_t duration_nanos;  /* instead of the span of the samples */
};

void pprof_init(struct pprof *pp);
void pprof_release(struct pprof *pp);
/* The profile_sink_config an export needs, with pp's per-sample hook. */
void pprof_sink_config(struct pprof *pp, struct profile_sink_config *c);

/* Encode s's profile (gzip'd when gzip) into out (appended). 0 or -errno. */
int pprof_encode(struct pprof *pp, const struct profile_sink *s, bool gzip, struct buf *out);
int pprof_write(struct pprof *pp, const struct profile_sink *s, FILE *out);

#endif
