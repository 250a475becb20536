/*
 * progress.h: a progress bar for analyses, as a sink wrapper. It forwards
 * every callback to the wrapped sink and, every 256 records, asks
 * the input how far it has read. Nothing is drawn during the first second
 * (short runs stay silent) and at most ten times a second after that; the
 * line is cleared before the wrapped sink's end runs, so the output that end
 * writes is never mixed with the bar. The caller decides whether to draw at
 * all (a terminal on stderr): no stage below the CLI looks at the terminal.
 */
#ifndef SCORCH_PROGRESS_H
#define SCORCH_PROGRESS_H

#include "analyze/pipeline.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct progress {
	FILE *out;          /* NULL: disabled (the wrapper only forwards) */
	const char *label;
	int width;          /* terminal columns */
	double start, last;
	bool drawn;
	uint64_t records;
	struct sink inner;
	double delay;       /* seconds before the first draw (1.0) */
};

void progress_init(struct progress *pr, FILE *out, const char *label, int width);
/* outer forwards to inner and draws progress; pr must outlive the run. */
void progress_wrap(struct progress *pr, const struct sink *inner, struct sink *outer);
/* Draw (rate-limited) for pos of size bytes (size 0: unknown, a pipe). */
void progress_update(struct progress *pr, uint64_t pos, uint64_t size);
/* Clear the line if anything was drawn. */
void progress_clear(struct progress *pr);
/* Format the bar line into buf (for tests). */
void progress_format(char *buf, size_t n, const char *label, uint64_t pos, uint64_t size,
		     double elapsed, int width);

#endif
