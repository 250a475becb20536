/*
 * folded.h: Brendan Gregg's folded stacks: one line per distinct stack,
 * frames root first joined by ';', a space, and the count. What
 * flamegraph.pl, inferno and speedscope read.
 */
#ifndef SCORCH_FOLDED_H
#define SCORCH_FOLDED_H

#include "output/profile.h"
#include <stdbool.h>
#include <stdio.h>

struct folded_config {
	bool annotate;   /* kernel frames "_[k]", inlined "_[i]" (flamegraph.pl colours) */
	bool period;     /* counts are the period sum, not samples */
	bool usecs;      /* counts are the period (nanoseconds: --off-cpu, --wall) in
			  * integer microseconds, rounded */
};

/* Write every stack with a nonzero self count. Returns 0 or -EIO. */
int folded_write(const struct profile *p, const struct folded_config *c, FILE *out);

#endif
