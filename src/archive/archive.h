/*
 * archive.h: a recording with the files it needs, in one file (`scorch
 * archive` writes it, pack.h; every reading command takes it as -i).
 *
 * The file is one zstd stream (with its checksum) of a POSIX tar
 * (archive/tar.h) laid out as perf's build-id cache (record/bidcache.h),
 * so that `tar --zstd -xf A -C DIR` gives a directory perf reads too
 * (perf --buildid-dir DIR report -i DIR/perf.data):
 *
 *   scorch-archive                 first: "scorch archive 1\n", then a
 *                                  "missing HEX PATH" line per file the
 *                                  samples hit that was not found (HEX
 *                                  "-": no build id), a "buildid HEX
 *                                  PATH" line per DSO the recording
 *                                  names without a build id (the build
 *                                  id of the file archived for it)
 *   perf.data                      the recording
 *   PATH/HEX/elf, PATH/HEX/debug   each DSO hit (and its debug file)
 *   [kernel.kallsyms]/HEX/kallsyms the kernel's symbols
 *   [vdso]/HEX/vdso
 *   .build-id/XX/REST -> ../../PATH/HEX     (HEX = XX REST)
 *
 * Reading: archive_unpack puts it into a new private directory; the
 * recording is then read from there with that directory as the build-id
 * cache. The input is not trusted: member names stay inside the directory
 * (relative, no "." or ".." parts, no way through a symbolic link: every
 * directory on the way is opened without following links), links are only
 * the .build-id ones and point into the directory, member count and sizes
 * are capped, and a damaged or cut archive is one error with its offset:
 * in the file for what zstd finds (its checksum covers every byte), in the
 * unpacked tar for a bad member.
 */
#ifndef SCORCH_ARCHIVE_H
#define SCORCH_ARCHIVE_H

#include "perf/header.h"
#include "util/err.h"
#include <stdint.h>

#define ARCHIVE_MANIFEST "scorch-archive"
#define ARCHIVE_DATA "perf.data"
#define ARCHIVE_FIRST_LINE "scorch archive 1\n"
#define ARCHIVE_MAX_MEMBERS (1u << 16)
#define ARCHIVE_MAX_MEMBER (1ull << 40)  /* bytes */
#define ARCHIVE_MAX_MANIFEST (1u << 20)

struct archive_in {
	char *dir;          /* the directory it was unpacked into (owned) */
	char *data;         /* dir/perf.data */
	unsigned nr_missing; /* files not found when it was made */
	char missing[512];  /* the first of them, ", "-separated */
	uint64_t bytes;     /* unpacked */
	unsigned members;
	struct perf_build_id *build_ids; /* the "buildid" lines (filename owned) */
	uint32_t nr_build_ids;
};

/* Whether fd (a regular file, read from offset 0) starts as an archive
 * does (a zstd frame; a perf.data never does): 1, 0, or a negative code. */
int archive_sniff(int fd);

/* Unpack the archive fd into a new directory under tmpbase (NULL: /tmp).
 * 0, or a negative code with e filled (nothing left behind). */
int archive_unpack(int fd, const char *tmpbase, struct archive_in *a, struct err *e);

/* Remove the directory and free what a holds. */
void archive_in_remove(struct archive_in *a);

#endif
