/*
 * unwind.h: DWARF unwinding of a sample's copied user stack with libdwfl.
 *
 * One Dwfl per process, holding one module per executable file mapping
 * (the ELF is shared with the DSO cache: a dup'ed descriptor, no search), is
 * built on the first sample of the process and kept while the process's
 * executable mappings stay the same: the session's map generation is
 * checked on every sample, and only a change of the executable file maps
 * (not of anonymous memory) rebuilds it. A sample is unwound by pointing the
 * Dwfl's thread callbacks at the sample (registers, stack copy) and walking
 * the frames; nothing else is built per sample.
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
};

struct unwinder *unwinder_new(struct symbols *syms, struct session *sess);
void unwinder_free(struct unwinder *u);

/*
 * Unwind the user stack of sample s (of a process pid, thread tid) whose
 * attr recorded regs_mask user registers. Fills up to max frames; returns
 * their number (0: the sample has no usable registers). *retried is set
 * when the first attempt failed on a stale Dwfl and a fresh one was built.
 */
int unwinder_unwind(struct unwinder *u, uint32_t pid, uint32_t tid, const struct perf_sample *s,
		    uint64_t regs_mask, struct unwind_frame *out, int max, bool *retried);

struct unwinder_stats {
	uint64_t dwfl_builds, unwinds, retries, frames;
};
const struct unwinder_stats *unwinder_stats(const struct unwinder *u);

/* perf_regs (x86_64) index of the stack pointer and the ip. */
#define UNWIND_PERF_REG_SP 7
#define UNWIND_PERF_REG_IP 8

#endif
