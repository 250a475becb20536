/*
 * pack.h: writing an archive (archive.h): the recording, and every file
 * its samples need, found as a reading command finds them.
 *
 * Which DSOs: the recording is read once as the reading commands read it
 * (the stacks unwound, DWARF ones too), and every DSO a frame falls in is
 * taken, with the build id the recording gives it (its MMAP2 record or the
 * build-id list). A DSO passed through only by unwinding counts: its CFI
 * is what unwinds it. Each is then looked for as the reader looks for it
 * (analyze/symbols/debugfile.h: --app, the recorded path, the build-id
 * cache, --extra, debuginfod) and only a file with the recorded build id
 * is taken, with its separate debug file when there is one. The kernel's
 * symbols: --kallsyms, the build-id cache's copy, or this machine's
 * /proc/kallsyms when the running kernel is the recorded one. Kernel
 * modules come with the kernel's kallsyms; files of no ELF DSO (perf maps,
 * anonymous memory) are not taken.
 *
 * The archive is written under a temporary name beside OUT and renamed
 * into place.
 */
#ifndef SCORCH_ARCHIVE_PACK_H
#define SCORCH_ARCHIVE_PACK_H

#include "analyze/pipeline_config.h"
#include "util/err.h"
#include <stdint.h>

struct archive_pack_stats {
	unsigned dsos;         /* DSOs hit */
	unsigned files;        /* files put in (ELF, debug, kallsyms, vdso) */
	unsigned missing;      /* DSOs not found */
	uint64_t data_bytes;   /* the recording */
	uint64_t file_bytes;   /* the files */
	uint64_t out_bytes;    /* the archive */
};

/* Called once per DSO not found (path, build id in hex or "", why). */
typedef void (*archive_missing_fn)(void *ctx, const char *path, const char *hex, const char *why);

/* Archive the recording c->input (a file) into out with zstd level
 * level. c: where files are looked for, as for a reading command. 0, or a
 * negative code with e filled (out is then not made). */
int archive_pack(const struct pipeline_config *c, const char *out, int level,
		 archive_missing_fn missing, void *missing_ctx, struct archive_pack_stats *st,
		 struct err *e);

#endif
