/*
 * cmd_diff.h: a comparison's run (scorch diff, flame --diff, export
 * --diff): the two files each through the pipeline with the same options
 * and collector settings, copied into a struct diff (output/diff.h), then
 * the command's writer on the output.
 */
#ifndef SCORCH_CMD_DIFF_H
#define SCORCH_CMD_DIFF_H

#include "cli/analysis_opts.h"
#include "output/diff.h"
#include <stdio.h>

/* Read a->diff[0] (BASE), then a->diff[1] (NEW), with a's options (sc's
 * finish is set here), open a->outpath and call write on it. Prints errors
 * and warnings (write's non-zero return: "write error"). Returns an exit
 * code. */
int cli_diff_run(struct cli_analysis *a, int (*write)(void *ctx, struct diff *d, FILE *out),
		 void *ctx);

#endif
