/*
 * analysis_opts.h: what the reading commands (script, report, flame,
 * export, diff, stats, header) share: the analysis options (-i, --sysroot,
 * --debug, --extra, --app, --kallsyms, --max-frames, --buffer-size,
 * --max-buffer-size, -j), the profile filters (--pid/--tid/--comm/--event,
 * --off-cpu, --wall), -o and --diff, taken by one handler behind the
 * option parser (cli/opts.h); the progress decision (a terminal on stderr,
 * unless --no-progress / -q), running the pipeline and opening the output.
 */
#ifndef SCORCH_ANALYSIS_OPTS_H
#define SCORCH_ANALYSIS_OPTS_H

#include "analyze/pipeline.h"
#include "cli/opts.h"
#include "output/profile.h"
#include "output/progress.h"
#include <stdbool.h>

/* What the options of the reading commands fill (script and stats use pc
 * only: the option table gives them no filter). */
struct cli_analysis {
	struct pipeline_config pc;
	struct profile_sink_config sc; /* its filter */
	bool no_progress;              /* --no-progress, -q */
	const char *outpath;           /* -o */
	const char *diff[2];           /* --diff BASE NEW (flame, export) */
	const char *cmd;               /* "flame": of messages */
	int jobs;                      /* -j: threads (0: one per CPU), where
					* blocks apply (analyze/parallel/blocks.h) */
};

void cli_analysis_init(struct cli_analysis *a, const char *cmd);

/* The analysis options (cli/opts.h's O_INPUT to O_DIFF, O_NO_COMM,
 * O_NO_INLINE), as the handler an
 * opts_parse handler falls back to: 0 taken, EXIT_BADINPUT (printed), or
 * OPTS_UNKNOWN when id is not one of them. */
int cli_analysis_set(struct cli_analysis *a, struct opts *p, int id, const char *v);

/* The usage lines of the analysis options. */
extern const char opts_analysis_help[];

/* The usage lines for the filters and --no-progress (the shared options'
 * are opts_analysis_help). */
extern const char cli_filter_usage[];

/* The input c->input, when it is an archive (scorch archive): unpacked
 * into a private directory removed when the process ends (at exit or on
 * SIGINT/SIGTERM/SIGHUP/SIGPIPE), c->input_file set to its recording and
 * c->buildid_dir to the directory; the files not found when it was made
 * said in one line. Done once per archive; anything else is left to the
 * reader. A damaged archive ends the process: its error in one line, exit
 * status 2 (1 when unpacking fails for lack of room or rights). Every run
 * of a reading command goes through here (the runs below, script's -j
 * runs, perfparser). */
void cli_archive_input(struct pipeline_config *c);

/* Run the pipeline with sink (wrapped in a progress bar when stderr is a
 * terminal and progress is allowed). Prints the error; returns an exit code. */
int cli_run_pipeline(struct pipeline_config *c, struct sink *sink, bool no_progress);

/* Run the pipeline with sink, no progress bar; prints the error (a sink
 * that stopped on a failed write to stdout: "writing the output failed").
 * Returns an exit code (2 on any error). */
int cli_run_plain(struct pipeline_config *c, struct sink *sink);

/* Warn on stderr when the profile has no samples (saying why: filters,
 * other events). */
void cli_warn_empty(const struct profile_sink *s);

/* Open OUT for writing ("-" or NULL: stdout). Prints the error. */
FILE *cli_open_out(const char *path);
/* Close (not stdout); returns an exit code, printing write errors. */
int cli_close_out(FILE *f, const char *path);

/* Parse v, the value of option opt, as a number (negative only when neg_ok)
 * into *out; 0, or -1 with "bad value" printed. */
int cli_num(const char *opt, const char *v, bool neg_ok, double *out);

/* The summarizing commands' run: a profile sink from sc, the output opened
 * at outpath into *out (before the run, for sc's finish callback), the
 * pipeline run, the output closed and the sink released. Errors are
 * printed, prefixed with "scorch: cmd: " where the message is the
 * command's; returns an exit code. */
int cli_run_profile(const char *cmd, struct pipeline_config *pc, struct profile_sink_config *sc,
		    const char *outpath, FILE **out, bool no_progress);

#endif
