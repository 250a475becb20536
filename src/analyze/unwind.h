/*
 * unwind.h: DWARF CFI unwinding of a sample's copied user stack.
 *
 * The unwinder owns its per-DSO state (libdw's Dwarf_CFI over .eh_frame /
 * .debug_frame and a cache of decoded CFI rows), built once per DSO of the
 * symbol cache and shared by every process mapping the DSO; each frame's pc
 * is mapped through the session's current maps, so there is no per-process
 * context to build or to invalidate (a Dwfl per process, as perfparser
 * keeps, re-reads every ELF per process). See unwind_dwarf.c.
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
	bool copy_end;      /* last frame only: the walk stopped because it needed
			     * memory above the end of the stack copy (a stack
			     * deeper than the copy), not because the CFI ended.
			     * No unwinder can go on from there (libdwfl stops at
			     * the same frame); see docs/resolve.md */
};

/* An unwinder finding DSOs in syms; free it before syms (its per-DSO state
 * refers to the DSOs' ELF handles). */
struct unwinder *unwinder_new(struct symbols *syms);
void unwinder_free(struct unwinder *u);

/*
 * Unwind the user stack of sample s (of process proc) whose attr recorded
 * regs_mask user registers. Maps are read from proc at each frame. Fills up
 * to max frames; returns their number (0: the sample has no usable
 * registers).
 */
int unwinder_unwind(struct unwinder *u, const struct process *proc, const struct perf_sample *s,
		    uint64_t regs_mask, struct unwind_frame *out, int max);

struct unwinder_stats {
	uint64_t unwinds, frames;
	uint64_t rule_hits, rule_misses; /* the per-DSO unwind rule cache */
	uint64_t cfi_rows;      /* CFI rows looked up */
	uint64_t fp_fallbacks;  /* frames unwound by the rbp chain (no CFI) */
};
const struct unwinder_stats *unwinder_stats(const struct unwinder *u);

/* perf_regs (x86_64) index of the stack pointer and the ip. */
#define UNWIND_PERF_REG_SP 7
#define UNWIND_PERF_REG_IP 8

#endif
