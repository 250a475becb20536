/*
 * opts.h: the command line's one option parser and one option table.
 *
 * Every option of every command stands once in the table in opts.c: its
 * short letter, long name, whether it takes a value, an id, and the
 * commands that accept it (a mask). An option that means the same in
 * several commands (-o/--output, -i/--input, --no-comm, -s/--sort, record's
 * and top's -e/-F/-c/-g/-m/-p/-t/-a, ...) is one row with one id, so its
 * spelling is the same everywhere; a command gives the parser its bit and a
 * handler that switches on the id (and passes ids it does not own on to the
 * shared handlers: cli_analysis_set in analysis_opts.h, cli_record_set in
 * cli.h).
 *
 * Spellings, as getopt_long and perf take them: "--name value",
 * "--name=value", a unique prefix of a long name ("--call" for
 * "--call-graph"), "-x value", "-xvalue", clustered short flags ("-ag");
 * optional values only as "--name=value" (report's -g/--call-graph, as
 * perf's: also "-g value" when the value does not start with '-'); "--"
 * ends the options; "-" is an operand. Errors print one line (prefixed as the command prefixes its
 * messages) and, for an unknown option, the usage on stderr (not for the
 * terse commands: record, top, stats, header, list); exit status 2.
 */
#ifndef SCORCH_CLI_OPTS_H
#define SCORCH_CLI_OPTS_H

#include <stdbool.h>
#include <stdio.h>

/* The commands, as bits of an option's mask. */
enum {
	OC_RECORD = 1 << 0,
	OC_TOP = 1 << 1,
	OC_SCRIPT = 1 << 2,
	OC_REPORT = 1 << 3,
	OC_FLAME = 1 << 4,
	OC_EXPORT = 1 << 5,
	OC_DIFF = 1 << 6,
	OC_STATS = 1 << 7,
	OC_HEADER = 1 << 8,
	OC_PERFPARSER = 1 << 9,
	OC_LIST = 1 << 10,
	OC_BUILDID_CACHE = 1 << 11,
	OC_ANNOTATE = 1 << 12,
	OC_ARCHIVE = 1 << 13,
};

/* Option ids. O_OPERAND, O_UNKNOWN and O_MISSING are not options: the
 * handler sees an operand (not for in-order commands), an unknown option
 * (v: as written) and an option without its value (v: its name) and may
 * print its own message; returning OPTS_UNKNOWN gives the parser's. */
enum {
	O_OPERAND = 1, O_UNKNOWN, O_MISSING, O_HELP,
	/* the analysis options (analysis_opts.c) */
	O_STITCH, O_NO_STITCH, O_STACK_LIMIT,
	O_INPUT, O_SYSROOT, O_DEBUG, O_EXTRA, O_APP, O_KALLSYMS, O_MAX_FRAMES, O_BUFFER_SIZE,
	O_MAX_BUFFER_SIZE, O_JOBS, O_BLOCK_RECORDS, O_PID, O_TID, O_COMM, O_EVENT, O_OFF_CPU, O_WALL, O_QUIET,
	O_OUTPUT, O_DIFF,
	/* the summaries' */
	O_CHILDREN, O_NO_CHILDREN, O_STDIO, O_SORT, O_PERCENT_LIMIT, O_TOP, O_WIDTH, O_FORMAT,
	O_NO_COMM, O_NO_INLINE, O_INLINE, O_SHOW_NR, O_TREE, O_TREE_LIMIT, O_ABSOLUTE,
	O_FAIL_ABOVE, O_ICICLE, O_DIFF_MODE, O_SVG, O_SAMPLES, O_TITLE, O_MIN_PERCENT, O_ANNOTATE,
	O_PERIOD,
	/* annotate */
	O_SYMBOL, O_DISASM_STYLE, O_ASM_RAW, O_NO_SOURCE, O_PRINT_LINE, O_PERCENT_TYPE,
	O_SRC_PREFIX, O_SRC_PREFIX_STRIP, O_KCORE,
	/* script, stats, list */
	O_IP, O_RAW, O_HEADERS_ONLY, O_UNWIND, O_RAW_DUMP, O_FIELDS, O_HIDE_CALLGRAPH, O_TIME, O_NS, O_RELTIME, O_DELTATIME,
	/* record and top */
	O_FREQ, O_COUNT, O_G, O_CALL_GRAPH, O_MMAP_PAGES, O_ALL_CPUS, O_CPU, O_NO_INHERIT, O_IO,
	O_AIO, O_COMPRESSION, O_SWITCH_OUTPUT, O_REALTIME, O_SWITCH_EVENTS, O_CONTINUOUS,
	O_INTERVAL, O_KEEP, O_KEEP_RAW, O_PUSH, O_PUSH_APP, O_DELAY, O_ITERATIONS, O_LINES,
	O_SINCE_START, O_DSOS, O_NO_BUILDID_CACHE, O_CLOCKID,
	/* buildid-cache */
	O_LIST, O_PRUNE,
	/* perfparser */
	O_HELP_ALL, O_VERSION, O_HOST, O_PORT, O_ARCH, O_PRINT_STATS,
};

/* What a handler returns besides 0 (taken) and an exit status (stop,
 * message printed). */
#define OPTS_DONE (-1)    /* stop, exit status 0 (help printed) */
#define OPTS_UNKNOWN (-2) /* not the handler's: the parser's message */

struct opts {
	unsigned cmd;       /* the command's OC_ bit */
	const char *prefix; /* of messages: "scorch: report", "scorch record" */
	/* -h/--help (on stdout, then exit 0) and after an unknown option (on
	 * stderr); NULL: O_HELP goes to the handler */
	void (*usage)(FILE *f, void *ctx);
	int in_order; /* stop at the first operand (record, top: the command) */
	int terse;    /* no usage after an unknown option: one line (record, ...) */
	int (*set)(void *ctx, struct opts *p, int id, const char *v);
	void *ctx;
	/* while set runs */
	char name[48];  /* the option as spelled, without its value: "-w", "--width" */
	const char *v2; /* the second value of --diff BASE NEW */
	/* in_order: the index of the first operand (argc: none) */
	int operand;
	int status; /* when opts_parse returns false: the exit status */
};

/* Parse argv[1..]; false: the command stops with p->status (0 after help). */
bool opts_parse(struct opts *p, int argc, char **argv);

/* The index of v in names (NULL-terminated), or -1 with errfmt (one %s:
 * v) printed on stderr. */
int opts_pick(const char *v, const char *const *names, const char *errfmt);

#endif
