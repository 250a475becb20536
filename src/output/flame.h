/*
 * flame.h: flame graphs from a profile: a self-contained interactive HTML
 * page (canvas; zoom, search with the percentage matched, tooltips, icicle
 * view; the template is src/output/flame.html) and a static SVG (one <rect>
 * and <title> per frame wide enough to see) for embedding.
 *
 * Widths are the sample weight (period: CPU time for cpu-clock) unless
 * by_samples; tooltips give both. Kernel, inlined, unknown and command
 * frames have their own colours; with off_colours, a node whose weight is
 * mostly off-CPU time is drawn in shades of blue (the off-CPU flame graph
 * convention) whatever its kind.
 */
#ifndef SCORCH_FLAME_H
#define SCORCH_FLAME_H

#include "output/profile.h"
#include <stdbool.h>
#include <stdio.h>

struct flame_config {
	const char *title;
	bool icicle;         /* root at the top */
	bool by_samples;     /* widths by sample count rather than period */
	double min_percent;  /* HTML: drop subtrees under this percent (0 keeps all) */
	int svg_width;       /* SVG: pixels (1200) */
	double svg_min_px;   /* SVG: drop frames narrower than this (0.5) */
	const char *event;   /* for the heading */
	bool unit_ns;        /* weights are nanoseconds */
	bool off_colours;    /* --off-cpu, --wall: nodes whose weight is mostly
			      * off-CPU (PF_OFFCPU leaves) get the off-CPU palette */
};

void flame_config_init(struct flame_config *c);
int flame_write_html(const struct profile *p, const struct flame_config *c, FILE *out);
int flame_write_svg(const struct profile *p, const struct flame_config *c, FILE *out);

/* Write s as a JSON string (quotes included), escaping '<' so that the text
 * can sit inside a <script>. Shared with speedscope.c. */
void json_put_str(FILE *out, const char *s);

#endif
