/*
 * analysis_opts.h: what the summarizing commands (report, flame, export)
 * share on top of cli/opts.h's analysis options: the profile filters
 * (--pid/--tid/--comm/--event), a helper for "-x V", "-xV", "--long V",
 * "--long=V" option spellings, the progress decision (a terminal on stderr,
 * unless --no-progress / -q), running the pipeline and opening the output.
 */
#ifndef SCORCH_ANALYSIS_OPTS_H
#define SCORCH_ANALYSIS_OPTS_H

#include "analyze/pipeline.h"
#include "output/profile.h"
#include "output/progress.h"
#include <stdbool.h>

/* If argv[*i] is short (e.g. "-i", may be NULL) or long ("--input", may be
 * NULL) with a value, set *val, advance *i past what it used and return 1;
 * 0 when it is not this option; -1 (message printed) when the value is
 * missing. */
int cli_opt_value(int argc, char **argv, int *i, const char *shrt, const char *lng,
		  const char **val);

/* Consume one shared analysis option at argv[*i] into c (and the filter f,
 * may be NULL). 1 consumed, 0 not an analysis option, -1 error (printed). */
int cli_analysis_opt(int argc, char **argv, int *i, struct pipeline_config *c,
		     struct profile_filter *f, bool *no_progress);

/* cli_analysis_opt, or "-o/--output FILE" into *outpath: the options all
 * the summarizing commands (report, diff, flame, export) take. Returns as
 * cli_analysis_opt. */
int cli_summary_opt(int argc, char **argv, int *i, struct pipeline_config *c,
		    struct profile_filter *f, bool *no_progress, const char **outpath);

/* The usage lines for the filters and --no-progress (the shared options'
 * are opts_analysis_help, cli/opts.h). */
extern const char cli_filter_usage[];

/* Run the pipeline with sink (wrapped in a progress bar when stderr is a
 * terminal and progress is allowed). Prints the error; returns an exit code. */
int cli_run_pipeline(struct pipeline_config *c, struct sink *sink, bool no_progress);

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

/* "--diff BASE NEW" at argv[*i] (flame, export): set files, advance *i and
 * return 1; 0 when it is not --diff; -1 (printed, as cmd) when a file is
 * missing. */
int cli_diff_files_opt(int argc, char **argv, int *i, const char *cmd, const char *files[2]);

/* The summarizing commands' run: a profile sink from sc, the output opened
 * at outpath into *out (before the run, for sc's finish callback), the
 * pipeline run, the output closed and the sink released. Errors are
 * printed, prefixed with "scorch: cmd: " where the message is the
 * command's; returns an exit code. */
int cli_run_profile(const char *cmd, struct pipeline_config *pc, struct profile_sink_config *sc,
		    const char *outpath, FILE **out, bool no_progress);

#endif
