/*
 * annotate.h: `scorch annotate`: each hot symbol's instructions with their
 * share of its samples, the source lines they came from interleaved, the
 * hottest lines first (perf annotate --stdio's view).
 *
 * Collecting: a profile sink (profile.h: its event choice, --pid/--tid/
 * --comm filters, --off-cpu and --wall weights) whose on_sample hook counts
 * each kept sample at its own address (the leaf frame: the sampled ip, as
 * perf annotate counts), per (DSO, symbol) as the resolver named it. The
 * pipeline runs with ip_only and no_inline: annotate needs no call chain.
 *
 * Writing: for the symbols asked for (names, -d DSO) or above the percent
 * limit, hottest first: the ELF file is found as for symbols (build id,
 * debug files, --sysroot, debuginfod: a struct symbols of its own, made at
 * the end, so only the annotated DSOs are opened), the symbol's bytes read
 * from it at their file offsets and disassembled (disasm.h), each address
 * given its source line and inline chain (inlines.h). What cannot be
 * disassembled still shows its samples by address with a one-line reason:
 * JIT code from a perf map (no bytes), kernel code without a usable
 * /proc/kcore (its build id is checked against the recording's), another
 * architecture,
 * a missing or rebuilt binary, a file that ends inside the function.
 */
#ifndef SCORCH_ANNOTATE_OUT_H
#define SCORCH_ANNOTATE_OUT_H

#include "analyze/pipeline.h"
#include "output/profile.h"
#include <stdbool.h>
#include <stdio.h>

enum annotate_percent {
	ANNOTATE_LOCAL_PERIOD, /* share of the symbol's period (perf's default) */
	ANNOTATE_GLOBAL_PERIOD, /* share of the whole profile's period */
	ANNOTATE_LOCAL_HITS,   /* share of the symbol's samples */
	ANNOTATE_GLOBAL_HITS,  /* share of all samples */
};

struct annotate_config {
	const char **syms;    /* names to annotate (operands, -s); none: by percent */
	size_t nr_syms;
	const char *dso;      /* -d: only this DSO (path or base name) */
	bool intel;           /* -M intel */
	bool asm_raw;         /* --asm-raw: the instruction bytes too */
	bool no_source;       /* --no-source: no source lines between instructions */
	bool print_line;      /* -l: every source line with samples in the summary */
	bool show_nr;         /* -n: sample counts instead of percentages */
	enum annotate_percent percent;
	double percent_limit; /* symbols below this share of the profile are left out */
	const char *prefix;   /* --prefix: source files are looked up under it */
	unsigned prefix_strip; /* --prefix-strip: leading directories dropped first */
	/* Kernel code: read from this memory image (kcore.h) when it holds the
	 * recorded kernel: its own build id, or without one the running
	 * kernel's from kernel_notes (NULL: none), equals the recording's.
	 * annotate_config_init: /proc/kcore, /sys/kernel/notes. */
	const char *kcore;
	const char *kernel_notes;
	bool quiet;           /* nothing on stderr when the symbols asked for have no samples */
	/* Where files are found: the pipeline's configuration (sysroot, debug,
	 * extra, app paths), and the header's build ids (set by the sink). */
	const struct pipeline_config *pc;
};

void annotate_config_init(struct annotate_config *c);
/* Parse a --percent-type value; -1 when unknown. */
int annotate_percent_parse(const char *v);

struct annotate;

/* Make the collector; fills sc (the profile sink's configuration: its hook
 * and what annotate needs of the sink) and pc (ip_only, no_inline,
 * no_srclines). c must outlive it. */
struct annotate *annotate_new(const struct annotate_config *c, struct profile_sink_config *sc,
			      struct pipeline_config *pc);
/* Write the annotations of the profile s collected to out (from the sink's
 * finish callback, or while the pipeline runs: its strings and header are
 * alive). May be called again as samples keep coming (scorch top): the
 * files opened stay open. Returns 0 or a negative error (a write error). */
int annotate_write(struct annotate *a, struct profile_sink *s, FILE *out);
void annotate_free(struct annotate *a);

#endif
