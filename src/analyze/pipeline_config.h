/*
 * pipeline_config.h: what a command asks of the pipeline (struct
 * pipeline_config, read by the pipeline and the stages it drives: the
 * resolver, the -j blocks) and the input state a sink may read as of a
 * record (struct pipeline_recstate). Types only: the stages include this,
 * never the driver's pipeline.h.
 */
#ifndef SCORCH_PIPELINE_CONFIG_H
#define SCORCH_PIPELINE_CONFIG_H

#include "analyze/order.h"
#include "perf/header.h"
#include <stdbool.h>
#include <stdint.h>

struct pipeline_blocks;
struct resolver_warning;

/* max_frames without a limit: every frame the recording holds (a DWARF
 * unwind still stops at the end of the stack copy, and at 4096 frames). */
#define PIPELINE_FRAMES_ALL 65536
/* The stitch window's default (pipeline_config.stitch_window): at clang's
 * 1 kHz, 4 s of samples (a compile's code generation phase, whose callers
 * the first of its samples to reach them shows) */
#define PIPELINE_STITCH_WINDOW 4096

/* pipeline_config.frame_lines */
#define PIPELINE_LINES_INNERMOST 1
#define PIPELINE_LINES_OWN 2

struct pipeline_config {
	const char *input;          /* path or "-" */
	int input_fd;               /* >= 0: read this fd instead (name in input) */
	const char *input_file;     /* the file read when it is not input itself (the
				     * recording unpacked from an archive, input
				     * naming the archive); NULL: input */
	struct order_config order;
	bool unordered;             /* deliver in file order (no queue) */
	bool resolve;               /* unwind + symbolize (else frames carry raw ips) */
	/* resolver options (perfparser's names) */
	const char *sysroot, *debug_paths, *extra_paths, *app_path, *kallsyms;
	const char *buildid_dir;    /* perf's build-id cache ($HOME/.debug); NULL: none */
	/* Build ids of DSOs the recording names without one, as if its
	 * build-id list had them (an archive's: archive/archive.h) */
	const struct perf_build_id *build_ids;
	uint32_t nr_build_ids;
	bool debuginfod;            /* missing files asked of debuginfod (DEBUGINFOD_URLS) */
	const char *tmpdir;         /* where a file-format stream is kept (input.h); NULL: /tmp */
	int max_frames;             /* physical frames kept of a stack, leaf first
				     * (default PIPELINE_FRAMES_ALL); a stack cut
				     * here is marked truncated (frame.h) */
	bool max_frames_per_part;   /* max_frames counts the call chain's frames and
				     * the frames unwound from the stack copy each on
				     * their own, as perf script's --max-stack does
				     * (a DWARF sample keeps up to max_frames kernel
				     * frames and max_frames user frames); else both
				     * together */
	bool no_inline;             /* resolver: no inline frames (perf script --no-inline) */
	bool ip_only;               /* resolver: each sample's own ip, no call chain or
				     * unwinding (perf script -G) */
	bool stitch;                /* stacks cut at the end of their stack copy get
				     * their outer frames from other samples of the
				     * thread (analyze/stitch.h) */
	uint32_t stitch_window;     /* samples a cut sample waits for later ones
				     * (stitch_new's window; a live pipeline: 0) */
	uint64_t stack_limit;       /* unwind only the first bytes of each sample's
				     * stack copy (0: all) */
	bool no_srclines;           /* resolver: frames without file:line (for outputs
				     * that print none; saves reading line tables) */
	uint8_t frame_lines;        /* resolver: every frame carries file:line, also the
				     * frames made without inline chains (call chains of
				     * frame pointers, LBR): PIPELINE_LINES_INNERMOST (the
				     * address's innermost inlined function's position:
				     * report --sort srcline) or PIPELINE_LINES_OWN (the
				     * position in the frame's own function: pprof);
				     * 0: none beyond the inline chains */
	bool progress;              /* allow a progress bar on a tty stderr */
	/* Warnings (missing binaries, records out of time order): one call per
	 * cause. NULL: printed to stderr as "scorch: INPUT: MESSAGE". */
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
	/* Files the resolver cannot find (struct resolver_warning, frame.h),
	 * for a sink that reports them itself; NULL: not checked. Called from
	 * the -j threads (one call at a time). */
	void (*file_warn)(void *ctx, const struct resolver_warning *w);
	void *file_warn_ctx;
	/* This pipeline is one of several over the same input (analyze/parallel/blocks.h);
	 * NULL: the only one. */
	const struct pipeline_blocks *blocks;
	/* The process exits once this run is done (a one-shot command): what
	 * the run stores for later runs (the caches) is stored, nothing is
	 * freed: the kernel takes it all back at once. The frees and unmaps
	 * took 5-15 ms a thread (docs/resolve.md). The command line leaves
	 * it false under a leak checker (the sanitizer build, valgrind) and
	 * with SCORCH_TEARDOWN=1. */
	bool exit_after;
};

/* The file a run reads (input_file, else input). */
static inline const char *pipeline_input_file(const struct pipeline_config *c)
{
	return c->input_file ? c->input_file : c->input;
}

/* What a sink may read about the input as of a record leaving the ordering
 * queue (pipeline_input_pos, pipeline_order_stats). */
struct pipeline_recstate {
	uint64_t pos;
	struct order_stats os;
};

#endif
