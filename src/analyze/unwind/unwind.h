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
#include "analyze/symbols/symbols.h"
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
	uint64_t cfa;       /* the frame's canonical frame address (its caller's
			     * stack pointer) as the step from it worked it out
			     * by the CFI, 0 when unknown or guessed (the rbp
			     * chain); the last frame's too, when only its return
			     * address was beyond the copy */
	/* Found on the way, for the caller's symbolization of pc (which
	 * would look them up again): with map_set, the map of pc in the
	 * process unwound (NULL: none); with dso_set too, symbols_dso's
	 * answer for that map, with the unwinder's symbols. */
	bool map_set, dso_set;
	const struct map *map;
	struct dso *dso;
	/* with sym_set too (a step the unwinder had made before at this pc,
	 * in these maps: the step memo), dso_find_sym's answer for pc's
	 * address in dso, which must be a DSO found (not missing) */
	bool sym_set;
	const struct sym *sym;
};

/* An unwinder finding DSOs in syms; free it before syms (its per-DSO state
 * refers to the DSOs' ELF handles). */
struct unwinder *unwinder_new(struct symbols *syms);
void unwinder_free(struct unwinder *u);
/* Read at most the first bytes of each sample's stack copy (0: all of
 * it): a short copy made from a long one (--stack-limit). */
void unwinder_set_stack_limit(struct unwinder *u, uint64_t bytes);
/* What unwinder_free stores for later runs (the kept rows), stored now;
 * nothing freed (the process exits: pipeline_finish). */
void unwinder_keep(struct unwinder *u);

/*
 * The unwind rules of the unwinders of a block-parallel run (one per thread,
 * analyze/parallel/blocks.h), by DSO (struct dso's ident: build id and name, the
 * same in every symbol cache) and address: a CFI row one unwinder has
 * converted is taken by the others instead of asking libdw again, and a DSO
 * whose rows all come from there never has its CFI opened. The rules are
 * what libdw's rows make, whichever unwinder converts them, so the output
 * does not depend on which one does. Thread-safe; outlives its unwinders.
 */
struct unwind_share;
struct unwind_share *unwind_share_new(void);
void unwind_share_free(struct unwind_share *sh);
void unwinder_set_share(struct unwinder *u, struct unwind_share *sh);
/* Rows the share holds, and how many of the lookups it answered. */
void unwind_share_counts(struct unwind_share *sh, uint64_t *rows, uint64_t *hits);

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

/*
 * libdw's CFI over the .eh_frame of e (the file open as fd, or -1),
 * using the file's .eh_frame_hdr search table even where libdw 0.188 would
 * not: it takes the table only when .eh_frame_hdr comes before .eh_frame in
 * the section headers (GNU ld's order), and lld writes them the other way
 * (libLLVM-14 and other lld-linked files), so every lookup read and kept
 * each FDE before its address: 95,000 FDEs (7.6 MB) in libLLVM-14. For such
 * a file the CFI is read from a private copy-on-write mapping of it whose
 * ELF header names no sections (one page copied), which makes libdw take
 * its PT_GNU_EH_FRAME path: the same bytes and bases, found through the
 * table. *view holds that mapping (view->elf NULL when not used) until
 * unwind_eh_view_release, after dwarf_cfi_end.
 */
struct unwind_eh_view {
	Elf *elf;
	void *map;
	size_t size;
};
struct Dwarf_CFI_s;
struct Dwarf_CFI_s *unwind_eh_cfi(Elf *e, int fd, struct unwind_eh_view *view);
void unwind_eh_view_release(struct unwind_eh_view *view);

/* For the fuzzer (kept rules come from a file under the user's cache
 * directory): rules, size bytes of the kept rules entry after its header
 * (struct urule, as the unwinder converted them), checked as a run checks
 * them; when accepted, each applied to registers made of regs' 8-byte
 * words and a stack copy of stack's bytes. The number of rules applied,
 * or -1 when the entry is refused. */
int unwind_kept_rules_try(const void *rules, size_t size, const uint8_t *regs, size_t nregs_bytes,
			  const uint8_t *stack, size_t stack_size);

/* perf_regs (x86_64) index of the stack pointer and the ip. */
#define UNWIND_PERF_REG_SP 7
#define UNWIND_PERF_REG_IP 8

#endif
