/*
 * cmd_diff.h: reading the two files of a comparison (scorch diff, flame
 * --diff, export --diff): each through the pipeline with the same options
 * and collector settings, copied into d (output/diff.h).
 */
#ifndef SCORCH_CMD_DIFF_H
#define SCORCH_CMD_DIFF_H

#include "analyze/pipeline.h"
#include "output/diff.h"
#include "output/profile.h"
#include <stdbool.h>

/* Run the pipeline on base, then new, with pc and sc (sc's finish is set
 * here); prints errors and warnings. Returns an exit code. */
int cli_diff_load(struct pipeline_config *pc, struct profile_sink_config *sc, const char *base,
		  const char *new, struct diff *d, bool no_progress);

#endif
