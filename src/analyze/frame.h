/*
 * frame.h: a sample turned into a stack of symbolized frames (struct frame,
 * struct resolved_sample); named apart from resolver.h, which produces them.
 *
 * This is the contract between the resolver (unwind + symbolize) and every
 * output sink. Frames are leaf first. An inlined function appears as its own
 * frame before (closer to the leaf than) the frame of the function it was
 * inlined into, with inlined = true, the same ip, as perf script prints them.
 * All strings live as long as the pipeline (interned in the session or in the
 * per-DSO symbol caches), so sinks may keep the pointers.
 */
#ifndef SCORCH_FRAME_H
#define SCORCH_FRAME_H

#include "analyze/session.h"
#include "perf/event.h"
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

enum frame_kind {
	FRAME_USER = 0,
	FRAME_KERNEL,
	FRAME_HV,
	FRAME_GUEST_KERNEL,
	FRAME_GUEST_USER,
};

struct frame {
	uint64_t ip;            /* avma */
	uint64_t rel;           /* address in the DSO as perf prints it (svma), 0 unknown */
	const char *sym;        /* demangled symbol name, NULL when unknown */
	uint64_t sym_off;       /* ip - symbol start (svma terms) */
	uint64_t sym_start;     /* svma of the symbol */
	const char *dso;        /* DSO path as perf shows it ("[kernel.kallsyms]"), NULL unmapped */
	const char *file;       /* source file, NULL unknown */
	uint32_t line, column;
	uint8_t kind;           /* enum frame_kind */
	bool inlined;
	bool guessed;           /* not unwound, inferred */
	const void *dso_handle; /* opaque identity of the DSO (for sinks' tables) */
	uint64_t dso_ident;     /* the ELF DSO's identity by content (build id, path),
				 * the same from every resolver (-j threads); 0 when
				 * the frame is in no ELF DSO */
	const struct map *map;  /* the map the ip fell in, NULL unmapped */
	uint64_t cfa;           /* DWARF-unwound user frames: the canonical frame
				 * address of the frame this one is part of (the
				 * same on its inline entries), 0 when unknown or
				 * not unwound from a stack copy */
};

struct resolved_sample {
	const struct perf_event *ev;   /* ev->s is the sample */
	const struct perf_attr *attr;
	const char *comm;
	uint32_t pid, tid;
	struct frame *frames;
	uint32_t nr_frames;
	uint32_t nr_guessed;
	/* The stack had more frames than max_frames (pipeline.h) kept: the
	 * outermost are missing, the last frame is not the stack's root. */
	bool truncated;
	/* The user frames unwound from the stack copy are frames[user_at..]
	 * (user_at = nr_frames: none); copy_end: that unwinding stopped at
	 * its last frame because the copy ended there (unwind.h), with every
	 * frame it gave in frames. nr_stitched: the frames at the end that
	 * stitching (analyze/stitch.h) added. physical: frames counted
	 * against max_frames (an inline chain is one; with
	 * max_frames_per_part, those of the unwound part alone). */
	uint32_t user_at, nr_stitched, physical;
	bool copy_end;
	/* Set only by the off-CPU stage (analyze/offcpu.h), else 0: the
	 * sample's weight as time. off_cpu != 0 (enum offcpu_state): a
	 * switch-out stack weighted with the time until the switch-in; else an
	 * on-CPU sample weighted with its period as time (--wall). */
	uint64_t time_ns;
	uint8_t off_cpu;
	bool off_cpu_open;             /* never switched back in: counted to the end */
};

/*
 * What the resolver warns about, for the warning callbacks. Notes are text
 * for the user. The file kinds are reported only to a sink that asks for
 * them (pipeline_config.file_warn), once per file, before the first sample
 * with a frame in that file is delivered: hotspot's parser reports such files
 * in its stream, scorch's other outputs only in the notes.
 */
enum resolver_warning_kind {
	RESOLVER_WARN_NOTE = 0,  /* msg: the text */
	RESOLVER_WARN_NO_ELF,    /* file: a mapped file found neither at its path
				  * (under the sysroot) nor by name in the app
				  * and extra directories */
	RESOLVER_WARN_KALLSYMS,  /* file: the kallsyms file; msg: why it is unusable */
};

struct resolver_warning {
	enum resolver_warning_kind kind;
	const char *file;
	const char *msg;
};

/* Whether a map's file name n is anonymous memory rather than a file: none,
 * "//anon", "[anon...", "/memfd:...", "[heap]", "[stack...". A path is
 * settled by its second byte (nearly every frame's). */
static inline bool frame_anon_name(const char *n)
{
	if (!n || !*n)
		return true;
	if (n[0] == '/')
		return n[1] == '/' ? !strncmp(n, "//anon", 6) : n[1] == 'm' && !strncmp(n, "/memfd:", 7);
	return n[0] == '[' &&
	       (!strncmp(n, "[anon", 5) || !strcmp(n, "[heap]") || !strncmp(n, "[stack", 6));
}

#endif
