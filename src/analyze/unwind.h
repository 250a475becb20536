/*
 * unwind.h: DWARF CFI unwinding of a sample's copied user stack.
 *
 * The CFI of each DSO (libdw's Dwarf_CFI over .eh_frame / .debug_frame) is
 * built once in the DSO cache and shared by every process mapping the DSO;
 * each frame's pc is mapped through the session's current maps, so there is
 * no per-process context to build or to invalidate (a Dwfl per process, as
 * perfparser keeps, re-reads every ELF per process). See unwind_dwarf.c.
 *
 * The architecture lives in one table: perf_regs index -> DWARF register.
 */
#ifndef SCORCH_UNWIND_H
#define SCORCH_UNWIND_H

#include "analyze/session.h"
#include "analyze/symbols.h"
#include "perf/event.h"
#include <stdbool.h>
#include <stdint.h>

struct unwinder;


struct unwind_frame {
	uint64_t pc;        /* as perf shows it: the return address - 1 for callers */
	bool activation;    /* the first frame or after a signal frame */
	bool guessed;       /* found with words of earlier copies (the shadow) */
	bool copy_end;      /* last frame only: the walk stopped because it needed
			     * memory above the end of the stack copy (a stack
			     * deeper than the copy), not because the CFI ended */
};

/*
 * The stack shadow: per thread, the words of its earlier samples' stack
 * copies. perf copies a fixed amount of stack (8 KB by default); a stack
 * deeper than that (GCC's range code keeps several 4 KB ranges per frame)
 * ends where the walk needs a word above the copy, and no unwinder can go
 * on from the sample alone (libdwfl stops at the same frame). The outer
 * frames of a thread change rarely, so their saved registers and return
 * addresses are very likely what an earlier copy saw at the same address:
 * with a shadow set, such a read takes the newest earlier word there, and
 * the frames found from then on are marked guessed. (hotspot-perfparser
 * does the same per process with every word any earlier sample copied.)
 *
 * The shadow must be fed every sample in sample order (unwind_shadow_add
 * after the sample was unwound), so it is owned by the in-order stage: the
 * sequential resolver, or the worker pool's delivery. Per thread it covers
 * at most SHADOW_SPAN bytes; all threads together at most SHADOW_TOTAL,
 * after which it starts over.
 */
struct unwind_shadow;
struct unwind_shadow *unwind_shadow_new(void);
void unwind_shadow_free(struct unwind_shadow *sh);
/* Record the stack copy of sample s (recorded with regs_mask). */
void unwind_shadow_add(struct unwind_shadow *sh, const struct perf_sample *s, uint64_t regs_mask);
/* Unwind with sh (NULL: the sample's copy only). Not owned. */
void unwinder_set_shadow(struct unwinder *u, const struct unwind_shadow *sh);

struct unwinder *unwinder_new(struct symbols *syms, struct session *sess);
void unwinder_free(struct unwinder *u);

/*
 * Unwind the user stack of sample s (of process proc, thread tid) whose
 * attr recorded regs_mask user registers. Fills up to max frames; returns
 * their number (0: the sample has no usable registers). *retried is never
 * set: maps are read from the session at each frame, never stale.
 */
int unwinder_unwind(struct unwinder *u, const struct process *proc, uint32_t tid,
		    const struct perf_sample *s, uint64_t regs_mask, struct unwind_frame *out, int max,
		    bool *retried);

struct unwinder_stats {
	uint64_t unwinds, frames;
	uint64_t rule_hits, rule_misses; /* the per-DSO unwind rule cache */
	uint64_t cfi_rows;      /* CFI rows looked up */
	uint64_t fp_fallbacks;  /* frames unwound by the rbp chain (no CFI) */
	uint64_t frames_guessed; /* frames found with the stack shadow */
};
const struct unwinder_stats *unwinder_stats(const struct unwinder *u);

/* perf_regs (x86_64) index of the stack pointer and the ip. */
#define UNWIND_PERF_REG_SP 7
#define UNWIND_PERF_REG_IP 8

#endif
