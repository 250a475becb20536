/*
 * script.h: `perf script`'s default text output as a sink.
 *
 * One block per sample: the header line (comm, tid, [cpu], time, period,
 * event) and, when the event has call chains, one line per frame and a blank
 * line; otherwise the sampled ip, symbol and DSO on the header line. Field
 * widths follow perf 6.1 exactly so headers compare byte for byte. -F and
 * -G choose the fields as perf script's options do.
 */
#ifndef SCORCH_OUTPUT_SCRIPT_H
#define SCORCH_OUTPUT_SCRIPT_H

#include "analyze/pipeline.h"
#include "output/threadfilter.h"
#include <stdio.h>

/* -C takes CPUs below this (the recording's CPU numbers, whatever machine
 * it was made on) */
#define SCRIPT_MAX_CPUS 1024

struct script_opts {
	bool show_inline;   /* print inline frames (perf does by default) */
	bool headers_only;  /* only the header line per sample (tests) */
	bool raw;           /* comm pid tid time period ip cpu event, tab-separated, per sample */
	bool all_ip;        /* ip, symbol and DSO for every event type (perf script -F +ip,+sym,+dso) */
	bool hide_callchain; /* -G: no call chains; the sample's ip on its header line */
	bool ns;            /* --ns: times with 9 decimals */
	bool reltime;       /* --reltime: times since the first sample shown */
	bool deltatime;     /* --deltatime: times since the sample shown before */
	/* -F: 0 perf's fields; 1 the fields given (fields_set); 2 perf's
	 * with fields_add added and fields_del taken away (+f,-f) */
	int fields_mode;
	uint32_t fields_set, fields_add, fields_del;
	/* --pid, --tid, --comms, -C, --time (script_parse_filter): only the
	 * samples these keep; lists NULL/empty = all */
	struct thread_filter threads;
	bool cpu_filter;
	uint64_t cpus[SCRIPT_MAX_CPUS / 64]; /* bitmap of CPUs 0..SCRIPT_MAX_CPUS - 1 */
	bool time_filter;
	uint64_t time_start, time_end; /* ns, inclusive; 0: open */
};

enum script_filter { SCRIPT_PIDS, SCRIPT_TIDS, SCRIPT_COMMS, SCRIPT_CPUS, SCRIPT_TIME };

/* Parse a filter's value (what perf script takes: "1,2" ids, "a,b"
 * commands, "0-3,5" CPUs, "START,STOP" seconds with up to 9 decimals,
 * either end empty) into o. 0, or -1 with what is wrong in msg. */
int script_parse_filter(enum script_filter which, const char *v, struct script_opts *o, char *msg, size_t n);
/* What script_parse_filter allocated. */
void script_opts_release(struct script_opts *o);

/* Parse -F's argument (perf's field names, comma-separated; all of them
 * +name/-name to change perf's fields) into o. 0, or -1 with what is
 * wrong in msg. */
int script_parse_fields(const char *spec, struct script_opts *o, char *msg, size_t n);

/* Whether every event of el has what -F asks for (perf's checks, perf's
 * messages): 0, or -1 with the message in msg. */
int script_check_fields(const struct script_opts *o, const struct perf_evlist *el, char *msg, size_t n);

/* Fill sink to write to out. The returned context is freed by sink->end. */
int script_sink_init(struct sink *sink, FILE *out, const struct script_opts *o);

/* Whether the output for el's events can be made in blocks by several
 * threads (analyze/parallel/blocks.h): no sample's text depends on the samples
 * before it. */
bool script_blocks_ok(const struct script_opts *o, const struct perf_evlist *el);

/* Format the sample header into buf (no trailing newline). */
int script_format_header(char *buf, size_t n, const struct resolved_sample *rs,
			 const struct perf_attr *pa, bool callchain_mode, int name_width);
/* perf's decoding of a sample's data source ("|OP LOAD|LVL L1 hit|..."). */
void script_data_src(uint64_t data_src, char *out, size_t n);
/* perf's name for an attr the recording does not name ("cycles:ppH"). */
void script_event_name(const struct perf_event_attr *a, char *out, size_t n);
/* Format one frame line as perf prints it inside a call chain (no tab, no newline). */
int script_format_frame(char *buf, size_t n, const struct frame *f);

#endif
