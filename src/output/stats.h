/*
 * stats.h: `scorch stats` (key: value counts: samples, mmaps, rounds, lost
 * events and samples, the ordering statistics perfparser's --print-stats
 * gives, a count per record type) and `scorch header` (the header and its
 * features, like perf report --header-only) as sinks.
 */
#ifndef SCORCH_OUTPUT_STATS_H
#define SCORCH_OUTPUT_STATS_H

#include "analyze/pipeline.h"
#include <stdio.h>

int stats_sink_init(struct sink *sink, FILE *out);
int header_sink_init(struct sink *sink, FILE *out);
/* Print the parsed header of an input (used by header_sink). */
void header_print(FILE *out, struct input *in);

#endif
