/*
 * profile.h: the aggregated profile every summarizing output is built from
 * (report, flame, folded, pprof, speedscope).
 *
 * Frames are interned once into a frame table (a frame is a function in a
 * DSO, or, in address mode, one address of it); stacks are interned as
 * (prefix, frame) pairs into a prefix tree, so a stack costs one hash lookup
 * per frame and every distinct stack is one node. Node 0 is the root (no
 * frame). A sample adds its weight to the self count of its leaf node and to
 * the total of every node on its path. Children always follow their parent in
 * the node array (a child is created after its parent), which the writers use
 * to compute things bottom-up with one reverse pass.
 *
 * Strings are kept by pointer: the resolver's strings live for the whole
 * pipeline run and names the profile makes up ("0x1234", "[libc.so.6]") are
 * interned in the profile, so equal pointers mean equal names.
 *
 * The collector (profile_sink) is a struct sink that fills a profile from
 * resolved samples, with the filters every output shares (event, pid, tid,
 * comm) and an optional per-sample hook for outputs that keep time order.
 */
#ifndef SCORCH_PROFILE_H
#define SCORCH_PROFILE_H

#include "analyze/offcpu.h"
#include "util/hash.h"
#include "analyze/pipeline.h"
#include "analyze/frame.h"
#include "output/threadfilter.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROFILE_NONE UINT32_MAX
#define PROFILE_MAX_NODES (64u << 20)
#define PROFILE_MAX_FRAMES (16u << 20)

/* enum frame_kind values, plus the pseudo-frames at the root of a stack. */
enum pframe_kind {
	PF_USER = FRAME_USER,
	PF_KERNEL = FRAME_KERNEL,
	PF_HV = FRAME_HV,
	PF_GUEST_KERNEL = FRAME_GUEST_KERNEL,
	PF_GUEST_USER = FRAME_GUEST_USER,
	PF_COMM = 16,   /* root pseudo-frame: the command name */
	PF_THREAD,      /* root pseudo-frame: one thread (pid, tid, comm) */
	PF_OFFCPU,      /* leaf pseudo-frame of an off-CPU stack: "[off-cpu: STATE]",
			 * addr = enum offcpu_state */
	PF_TRUNCATED,   /* root pseudo-frame (under the command's) of a stack cut at
			 * max_frames: "[truncated]", its outer frames are missing */
};

struct pframe {
	const char *name;   /* never NULL */
	const char *dso;    /* NULL when unmapped */
	const char *file;   /* source file of the first occurrence, NULL unknown */
	uint32_t line;
	uint8_t kind;       /* enum pframe_kind */
	bool inlined;
	bool unknown;       /* the resolver had no symbol; name is made up */
	uint64_t addr;      /* address mode: rel (or ip); PF_THREAD: pid << 32 | tid */
	uint64_t ip;        /* an avma seen for this frame (first occurrence) */
	uint64_t file_off;  /* ip's offset in its file (user frames with a map), else 0 */
	uint64_t sym_start; /* svma of the symbol, 0 unknown */
};

struct pnode {
	uint32_t parent, frame;
	uint32_t first_child, next_sibling; /* PROFILE_NONE terminated */
	uint32_t depth;                     /* root 0 */
	uint64_t self_samples, self_period;
	uint64_t samples, period;           /* inclusive */
};

struct profile {
	struct pframe *frames;
	size_t nr_frames, cap_frames;
	struct pnode *nodes;
	size_t nr_nodes, cap_nodes;
	/* private: hash tables of indices (frames by key, nodes by (parent, frame)) */
	struct itab ftab, ntab;
	/* strings the profile made up, interned by content */
	char **strs;
	size_t nr_strs, cap_strs;
	struct itab stab;
	uint64_t samples, period;
};

void profile_init(struct profile *p);
void profile_release(struct profile *p);

/* Intern a frame (matched on name, dso, kind, inlined, addr pointers and
 * values; file, line, ip are taken from the first one). */
uint32_t profile_frame(struct profile *p, const struct pframe *f);
/* Intern a string by content; lives until profile_release. */
const char *profile_str(struct profile *p, const char *s);
/* The child of parent for frame (created when absent). */
uint32_t profile_child(struct profile *p, uint32_t parent, uint32_t frame);
/* Lookups that create nothing: the frame equal to f, the child of parent
 * for frame; PROFILE_NONE when absent (matching two profiles, diff.h). */
uint32_t profile_frame_find(const struct profile *p, const struct pframe *f);
uint32_t profile_child_find(const struct profile *p, uint32_t parent, uint32_t frame);
/* Add a sample of weight (samples, period) whose leaf is node. */
void profile_add(struct profile *p, uint32_t node, uint64_t samples, uint64_t period);

/* Sibling orders for profile_preorder. */
#define PROFILE_ORDER_CREATION 0 /* first seen first */
#define PROFILE_ORDER_VALUE 1    /* heaviest (period) first */
#define PROFILE_ORDER_NAME 2     /* by frame name (flame graphs) */
/* The depth-first preorder of the tree, siblings in the given order.
 * Returns a malloc'd array of nr_nodes node ids. */
uint32_t *profile_preorder(const struct profile *p, int order);

/* "libc.so.6" for "/usr/lib/x86_64-linux-gnu/libc.so.6". */
const char *profile_basename(const char *path);

/* ---- the collector ---- */

enum profile_root {
	PROFILE_ROOT_NONE,   /* stacks start at the outermost function */
	PROFILE_ROOT_COMM,   /* ...under a frame for the command name */
	PROFILE_ROOT_THREAD, /* ...under a frame per thread */
};

struct profile_filter {
	const char *pids, *tids, *comms; /* comma-separated lists, NULL = all */
	const char *event;               /* event name, NULL = the first sampled */
	/* --off-cpu: weights are off-CPU time (ns) of switch-out stacks;
	 * --wall: on-CPU samples as time + off-CPU time (analyze/offcpu.h) */
	enum offcpu_mode time_mode;
};

struct profile_sink;

struct profile_sink_config {
	enum profile_root root;
	bool inline_frames;    /* keep inlined frames (else only their callers) */
	bool by_addr;          /* one frame per address (pprof) */
	bool unknown_by_addr;  /* unknown symbols: "0x..." per address (perf report) vs "[dso]" */
	bool kernel;           /* keep kernel frames (default true via init) */
	/* Without inline frames: a frame's file:line is the innermost inlined
	 * function's at its address (perf's srcline), not its call site. */
	bool innermost_lines;
	struct profile_filter filter;
	/* Called for every sample kept, after it was added (leaf = its node). */
	void (*on_sample)(void *ctx, uint32_t leaf, const struct resolved_sample *rs);
	void *on_sample_ctx;
	bool time_order;            /* on_sample needs each thread's samples in time order */
	/* Called from the sink's end callback when the run succeeded, while the
	 * resolver's and session's strings are still alive: write the output
	 * here. Its return value becomes the run's. */
	int (*finish)(void *ctx, struct profile_sink *s);
	void *finish_ctx;
};

void profile_sink_config_init(struct profile_sink_config *c);

struct profile_sink {
	struct profile prof;
	struct profile_sink_config cfg;
	int attr_idx;            /* the event kept, -1 until the first sample */
	const char *event_name;
	uint64_t event_type, event_config;
	bool freq;               /* attr had sample_freq */
	uint64_t samples_seen;   /* all samples, all events */
	uint64_t samples_other_event, samples_filtered;
	/* counted samples whose user stack was cut at the end of its stack
	 * copy (resolved_sample.copy_end), and of those the stitched */
	uint64_t copy_short, stitched;
	uint64_t time_first, time_last;
	uint64_t frames_dropped; /* frames with no DSO and no symbol (kept as [unknown]) */
	/* the name of a frame without a symbol in a DSO ("[libc.so.6]"), by
	 * the DSO name's pointer (the profile keys frames by the resolver's
	 * name pointers too) */
	struct hmap unk_names;
	size_t nr_other_events;
	struct thread_filter threads; /* the parsed --pid, --tid, --comm lists */
	struct pipeline *pipeline; /* set during the run */
	char errbuf[128];
	/* time modes (filter.time_mode): the stage in front of the collector,
	 * and what it handed over (kept, after the filters) */
	struct offcpu *offcpu;
	uint64_t off_samples, off_ns, on_ns;
};

/* Set up the collector; returns 0 or -EINVAL with a message in errbuf (a bad
 * filter list). sink is filled with callbacks that feed s. */
int profile_sink_init(struct profile_sink *s, const struct profile_sink_config *c,
		      struct sink *sink);
void profile_sink_release(struct profile_sink *s);
/* Feed one resolved sample (what the sink callback does; public for tests). */
int profile_sink_sample(struct profile_sink *s, const struct resolved_sample *rs);

/* Whether the filters keep this thread (the off-CPU thread table). */
bool profile_sink_keeps_thread(const struct profile_sink *s, uint32_t pid, uint32_t tid,
			       const char *comm);

/* True when the event counts time in nanoseconds (cpu-clock, task-clock). */
bool profile_sink_period_is_ns(const struct profile_sink *s);

#endif
