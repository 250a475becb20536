/*
 * debugfile.h: finding the files of a DSO as the recording saw it.
 *
 * The binary: --app-path, the recorded path under --sysroot, perf's build-id
 * cache ($HOME/.debug/.build-id/xx/rest/elf), --extra-paths by basename,
 * then debuginfod; [vdso] from perf's cache or this machine's own vdso when
 * the build id is the recorded one. Its separate debug file: --debug paths
 * (build-id layout or .gnu_debuglink name), /usr/lib/debug/.build-id, perf's
 * cache, debuginfod, then the debuglink beside the binary, in .debug/, and
 * under /usr/lib/debug. MiniDebugInfo (.gnu_debugdata, xz) is unpacked on
 * request. The results are stored in the struct dso (path/fd/elf,
 * debug_path/debug_fd/debug_elf), which owns them.
 *
 * One struct debugfile per struct symbols; its debuginfod client is opened
 * on first use. Safe to use from several threads as long as each has its
 * own struct debugfile (the process-wide libdebuginfod entry points are
 * loaded once, under pthread_once).
 */
#ifndef SCORCH_DEBUGFILE_H
#define SCORCH_DEBUGFILE_H

#include "analyze/symbols/dso.h"
#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct debugfile {
	const char *sysroot, *debug_paths, *extra_paths, *app_path; /* symbols_config's */
	char *buildid_dir;      /* perf's build-id cache (NULL: none) */
	bool debuginfod;        /* symbols_config's */
	void *dbgd;             /* debuginfod_client *, NULL until first used */
};

void debugfile_init(struct debugfile *f, const struct symbols_config *c);
void debugfile_release(struct debugfile *f);

enum debugfile_result { DEBUGFILE_FOUND, DEBUGFILE_NOT_FOUND, DEBUGFILE_MISMATCH };

/* Find d's binary (sets d->path, d->fd, d->elf); MISMATCH when a candidate
 * was found but carries another build id. */
enum debugfile_result debugfile_find_binary(struct debugfile *f, struct dso *d);
/* [vdso]: sets d->path, d->fd, d->elf when found. */
void debugfile_find_vdso(struct debugfile *f, struct dso *d);
/* d's separate debug file (sets d->debug_path, d->debug_fd, d->debug_elf
 * when found). */
void debugfile_find_debug(struct debugfile *f, struct dso *d);
/* The kallsyms perf record saved for the kernel with build id id[0..n)
 * into out; false when the file is not there. */
bool debugfile_kallsyms(const struct debugfile *f, const uint8_t *id, size_t n, char *out,
			size_t cap);
/* The ELF inside e's .gnu_debugdata (its buffer in *bufp, to free after
 * elf_end); NULL when there is none or it does not decompress. */
Elf *debugfile_minidebuginfo(Elf *e, void **bufp);

#endif
