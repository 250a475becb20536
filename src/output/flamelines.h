/*
 * flamelines.h: the hottest source lines of each hot function, for the
 * flame graph's line panel (flame.h).
 *
 * Collecting: a profile sink hook (profile_sink_config.on_sample) counts
 * each kept sample at its leaf's address, per frame of the profile (the
 * leaf node's frame), as annotate counts: a function's own samples, not
 * those of its callees. Nothing is looked up per sample.
 *
 * At the end, only for the functions whose own weight is at least
 * min_percent of the profile's, the ELF files are opened again (a struct
 * symbols of its own, with the pipeline's search paths and the header's
 * build ids, as annotate does) and each address is given its line
 * (inlines.h: the position in the frame's own function, or in the inlined
 * function when the frame is that one); the lines are added up and the
 * hottest kept, with the line's text when the source file is readable.
 */
#ifndef SCORCH_FLAMELINES_H
#define SCORCH_FLAMELINES_H

#include "analyze/pipeline.h"
#include "output/profile.h"
#include <stdint.h>

struct fline {
	const char *file;     /* as DWARF names it */
	uint32_t line;
	uint64_t samples, weight;
	char *text;           /* the source line, NULL when not read */
};

struct fline_func {
	uint32_t frame;       /* the profile's frame */
	uint64_t samples, weight; /* the function's own (leaf) samples */
	struct fline *lines;  /* hottest first */
	size_t nr_lines;
};

struct flamelines_config {
	double min_percent;   /* functions whose own weight is under this share are left out */
	unsigned max_lines;   /* per function */
	const struct pipeline_config *pc; /* search paths of the files */
};

struct flamelines;

/* Make the collector: sets sc's on_sample hook. */
struct flamelines *flamelines_new(const struct flamelines_config *c, struct profile_sink_config *sc);
/* From the sink's finish callback: the lines of the hot functions of
 * s->prof, weights as by_samples says (samples, else period). The result
 * lives until flamelines_free; hottest function first. */
const struct fline_func *flamelines_compute(struct flamelines *fl, struct profile_sink *s,
					    bool by_samples, size_t *nr);
void flamelines_free(struct flamelines *fl);

#endif
