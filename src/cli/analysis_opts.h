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

/* The usage lines for the filters and --no-progress (the shared options'
 * are opts_analysis_help, cli/opts.h). */
extern const char cli_filter_usage[];

/* Run the pipeline with sink (wrapped in a progress bar when stderr is a
 * terminal and progress is allowed). Prints the error; returns an exit code. */
int cli_run_pipeline(struct pipeline_config *c, struct sink *sink, bool no_progress);

/* Open OUT for writing ("-" or NULL: stdout). Prints the error. */
FILE *cli_open_out(const char *path);
/* Close (not stdout); returns an exit code, printing write errors. */
int cli_close_out(FILE *f, const char *path);

#endif
