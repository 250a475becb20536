/*
 * resolver.h: unwind + symbolize one sample into a struct resolved_sample.
 *
 * The resolver turns a decoded PERF_RECORD_SAMPLE into frames, leaf first:
 *   - the kernel part of PERF_SAMPLE_CALLCHAIN (context markers
 *     PERF_CONTEXT_KERNEL/USER/HV/GUEST_* switch the frame kind),
 *   - the user part: the callchain's user entries (frame pointers), or, when
 *     the sample carries REGS_USER + STACK_USER, a DWARF CFI unwind of the
 *     copied stack (CFI per DSO, shared by all processes; see unwind.h), or
 *     the LBR call stack (branch stack),
 *   - every frame symbolized (ELF symtab/dynsym/MiniDebugInfo, DWARF lines and
 *     inline chains, kallsyms, perf-PID.map), names demangled.
 *
 * Everything expensive is cached: per DSO (keyed by build id, else path)
 * the ELF, symbol table, CFI and line/inline info, shared by every process
 * mapping it. Nothing is built per process or per sample.
 *
 * The resolver reads the session (maps, comms) and therefore must be called
 * after session_apply has seen every record older than the sample, i.e. from
 * the thread driving the session, in time order. A struct resolved_sample
 * (its frames and strings) stays valid until the next resolver_resolve on
 * the same resolver; the strings themselves (symbol, dso and file names)
 * live until resolver_free.
 */
#ifndef SCORCH_RESOLVER_H
#define SCORCH_RESOLVER_H

#include "analyze/pipeline_config.h"
#include "analyze/frame.h"
#include "analyze/session.h"
#include "perf/event.h"
#include "perf/header.h"
#include <stdint.h>

struct resolver;

/* Counters for `scorch stats` and benchmarks. */
struct resolver_stats {
	uint64_t samples;
	uint64_t frames;            /* frames produced (inline frames included) */
	uint64_t frames_unknown;    /* no symbol */
	uint64_t frames_inlined;
	uint64_t frames_guessed;
	uint64_t fp_samples, dwarf_samples, lbr_samples;
	uint64_t dwarf_unwinds;     /* DWARF unwinds run */
	uint64_t dwarf_complete;    /* unwind reached _start / start_thread / clone3 */
	uint64_t cfi_rows;          /* CFI rows looked up */
	uint64_t fp_fallbacks;      /* frames unwound by the rbp chain (no CFI) */
	uint64_t dsos_loaded;       /* DSO caches built */
	uint64_t dsos_missing;      /* DSOs whose file was not found / did not match */
	uint64_t truncated;         /* stacks cut at max_frames */
	uint64_t copy_end;          /* DWARF unwinds that stopped at the end of the
				     * stack copy (resolved_sample.copy_end) */
	uint64_t stitched;          /* of those, stitched (analyze/stitch.h; the
				     * pipeline adds them) */
};

/* Warnings (missing files, build-id mismatch, hidden kernel addresses) go to
 * this callback, one per cause (struct resolver_warning, frame.h). NULL:
 * notes are printed to stderr as "scorch: ...". */
typedef void (*resolver_warn_fn)(void *ctx, const struct resolver_warning *w);

/* The pipeline's routing of a warning: a note to c->warn (stderr as
 * "scorch: MSG" when NULL), a file kind to c->file_warn (dropped when NULL). */
void resolver_warning_route(const struct pipeline_config *c, const struct resolver_warning *w);
/* A warning's cause (kind, file, text) as a hash: several resolvers' warnings
 * said once per cause. */
uint64_t resolver_warning_hash(const struct resolver_warning *w);

/* Warnings held to be said later, in -j 1's order (with the block or the
 * sample they came with): copies, strings included. */
struct resolver_warnings {
	struct resolver_warning *w;
	size_t n, cap;
};
/* 0, or nonzero without memory (nothing held then). */
int resolver_warnings_add(struct resolver_warnings *l, const struct resolver_warning *w);
void resolver_warnings_clear(struct resolver_warnings *l);
void resolver_warnings_free(struct resolver_warnings *l);

/*
 * Create a resolver reading maps and comms from s (not owned) and build ids
 * from h (not owned; may be NULL). Options from c: sysroot, debug_paths,
 * extra_paths, app_path, kallsyms, max_frames; with c->file_warn set, the
 * files hotspot's parser would miss are checked and reported too (see
 * frame.h). Never NULL (allocation failure aborts, util/xalloc.h); missing
 * files are warnings, not errors.
 */
struct resolver *resolver_new(const struct pipeline_config *c, struct session *s,
			      const struct perf_header *h);
void resolver_set_warn(struct resolver *r, resolver_warn_fn fn, void *ctx);
/* The unwinder takes and gives CFI rows through sh (unwind.h). */
struct unwind_share;
void resolver_set_unwind_share(struct resolver *r, struct unwind_share *sh);
void resolver_free(struct resolver *r);
/* What resolver_free stores for later runs (the caches), stored now;
 * nothing freed: for a process about to exit (pipeline_finish). */
void resolver_keep(struct resolver *r);

/*
 * Resolve sample ev (ev->s, of attr) into out: comm, pid, tid and the frames,
 * leaf first, inline frames included. out->frames points into r's scratch
 * space, valid until the next call. Returns 0 (a sample that cannot be
 * unwound still gives its sampled ip as one frame) or -ENOMEM.
 */
int resolver_resolve(struct resolver *r, const struct perf_event *ev,
		     const struct perf_attr *attr, struct resolved_sample *out);

/* -j blocks: the names that depend on lookup order (addr2line's, see
 * a2l.h) must be decided in sample order. After
 * resolver_defer_a2l, resolver_resolve leaves them to the caller: it lists
 * them (resolver_deferred, valid until the next resolve), and
 * resolver_apply_deferred, called in sample order, names those frames. */
struct a2l_state;
struct resolver_deferred {
	uint32_t frame;          /* index in the sample's frames */
	const void *entry;       /* the innermost inline entry (symbols.h) */
	uint64_t dso;            /* its DSO's id */
	const char *elf_sym;     /* the ELF symbol at the frame's address */
};
void resolver_defer_a2l(struct resolver *r);
const struct resolver_deferred *resolver_deferred(const struct resolver *r, uint32_t *nr);
void resolver_apply_deferred(struct a2l_state *st, const struct resolver_deferred *d, uint32_t nr,
			     struct resolved_sample *rs);

/* Symbolize one address of pid (SESSION_KERNEL_PID for the kernel) into f
 * (no inline frames). For sinks that need to name a single address. */
void resolver_symbolize(struct resolver *r, uint32_t pid, uint64_t ip, uint8_t kind,
			struct frame *f);

const struct resolver_stats *resolver_stats(const struct resolver *r);

#endif
