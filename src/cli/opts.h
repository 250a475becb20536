/*
 * opts.h: the analysis options every reading command shares (-i, --sysroot,
 * --debug, --extra, --app, --kallsyms, --max-frames, --buffer-size,
 * --max-buffer-size, -j), parsed into a struct pipeline_config.
 */
#ifndef SCORCH_CLI_OPTS_H
#define SCORCH_CLI_OPTS_H

#include "analyze/pipeline.h"

/*
 * Try to consume argv[*i] (and its value) as a shared analysis option.
 * Returns 1 when consumed (*i advanced past it), 0 when not ours, -1 on a bad
 * value (message printed).
 */
int opts_analysis(struct pipeline_config *c, int argc, char **argv, int *i);

/* "--name=value" or "--name value" / "-x value": the value, or NULL. */
const char *opts_value(const char *name, int argc, char **argv, int *i);

/* Usage lines for the shared options. */
extern const char opts_analysis_help[];

#endif
