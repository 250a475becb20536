/*
 * record_opts.h: what a recording is asked to do: the options the CLI fills
 * (events, sampling, targets, output or consumer, writer kind), read by the
 * recorder's parts (record.c runs them, events.c opens the events, the
 * writers take the output's kind). Types only.
 */
#ifndef SCORCH_RECORD_OPTS_H
#define SCORCH_RECORD_OPTS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum record_io { RECORD_IO_AUTO, RECORD_IO_URING, RECORD_IO_AIO, RECORD_IO_SYNC };
enum record_cg { RECORD_CG_NONE, RECORD_CG_FP, RECORD_CG_DWARF, RECORD_CG_LBR };
enum record_switch { RECORD_SWITCH_NONE, RECORD_SWITCH_SIGNAL, RECORD_SWITCH_SIZE,
		     RECORD_SWITCH_TIME };

#define RECORD_MAX_EVENTS 16
#define RECORD_MAX_TARGETS 256

/* One -e event, resolved to a kernel type/config. */
struct record_event {
	char name[96];
	uint32_t type;
	uint64_t config;
	bool is_default;   /* cycles chosen by default: may fall back to cpu-clock */
	bool is_tracepoint;
	bool excl_user, excl_kernel;
	uint64_t period;   /* a fixed period for this event (context-switches
			    * for --off-cpu), 0: the -F/-c of the recording */
};

/*
 * A consumer instead of the output file (scorch top, record --continuous):
 * the recorder runs as in pipe mode but hands the stream to these callbacks
 * in the record loop's thread, where it would write it. begin gets the pipe
 * header (header, attrs, features); data gets the recorder's buffers of whole
 * records, each pass over the rings closed by FINISHED_ROUND (bytes valid
 * only during the call); end closes a stream. With switch-output by time a
 * stream ends and a new one begins (with the running processes synthesized
 * again) every interval. tick is called on every housekeeping pass of the
 * loop (at least every 100 ms); nonzero stops the recording (as *stop does).
 * Any negative return ends the recording with that error.
 */
struct record_consumer {
	void *ctx;
	int (*begin)(void *ctx, const uint8_t *head, size_t n);
	int (*data)(void *ctx, const uint8_t *p, size_t n);
	int (*end)(void *ctx, int rc);
	int (*tick)(void *ctx, uint64_t now_ns);
};

/*
 * The user stack copy of --call-graph dwarf without a size: 32 KiB. At
 * 8 KiB (perf's default) a fifth of cc1's stacks end at the copy's end;
 * at 32 KiB 97% of them, and of a build's and Python's, are complete;
 * 64 KiB doubles the file again for under three points and loses samples
 * with the default rings (docs/record.md has the measurements).
 */
#define RECORD_DWARF_SIZE 32768u

struct record_opts {
	const char *output;             /* file, "-" for pipe mode */
	const struct record_consumer *consumer; /* instead of output (see above) */
	bool cmd_quiet;                 /* the command's stdout/stderr to /dev/null */
	struct record_event events[RECORD_MAX_EVENTS];
	size_t nr_events;
	uint64_t freq;                  /* -F; 0 when -c */
	uint64_t period;                /* -c */
	enum record_cg cg;
	uint32_t dwarf_size;            /* user stack copy; 0: RECORD_DWARF_SIZE */
	unsigned mmap_pages;            /* data pages per ring, power of two */
	pid_t targets[RECORD_MAX_TARGETS]; /* -p pids or -t tids */
	size_t nr_targets;
	bool targets_are_tids;
	bool system_wide;               /* -a, or -C without a target */
	int cpus[1024];                 /* -C list; nr_cpus 0 = all online */
	size_t nr_cpus;
	bool no_inherit;
	bool switch_events;             /* context-switch records (attr.context_switch) */
	enum record_io io;
	unsigned aio_n;                 /* buffers in flight per ring */
	int comp_level;                 /* 0: no compression */
	enum record_switch switch_mode;
	uint64_t switch_size;           /* bytes */
	uint64_t switch_ms;
	bool quiet;
	int rt_prio;                    /* -r: SCHED_FIFO priority of the reader, 0 = none (default 1) */
	bool use_clockid;               /* -k: the samples' times from clockid */
	int clockid;
	const char *buildid_dir;        /* the build-id cache (bidcache.h) the DSOs hit are
					 * added to at the end of each file; NULL: none (-N) */
	uint64_t buildid_cache_max;     /* its size limit in bytes (0: no limit) */
	char **cmd;                     /* command to launch, NULL-terminated, or NULL */
	int argc;                       /* the record command line, for HEADER_CMDLINE */
	char **argv;
	const volatile sig_atomic_t *stop;        /* set by SIGINT/SIGTERM */
	const volatile sig_atomic_t *switch_req;  /* set by SIGUSR2 */
	/* Progress and warnings (one line, no newline); may be NULL. */
	void (*log)(void *ctx, const char *msg);
	void *log_ctx;
};

#endif
