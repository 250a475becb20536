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

/* FlameGraph's difffolded format ("stack count_base count_new") of two
 * profiles whose frames compare by pointer (diff.h): every stack with a
 * nonzero self count on either side. new_to_base and base_to_new map each
 * node to the other profile's node with the same stack (PROFILE_NONE). */
int folded_write_diff(const struct profile *base, const struct profile *new,
		      const uint32_t *new_to_base, const uint32_t *base_to_new,
		      const struct folded_config *c, FILE *out);

#endif
