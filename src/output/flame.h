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

#include "output/flamelines.h"
#include "output/profile.h"
#include <stdbool.h>
#include <stdio.h>

/* A differential graph (diff.h): the graph is the new profile's; every
 * frame is coloured by how its weight changed against the baseline (red
 * grew, blue shrank, the intensity by the size of the change, relative to
 * the largest), frames only in the new profile are outlined, and callers
 * of frames only in the baseline get a notch; tooltips give both sides. */
struct flame_diff {
	const struct profile *base;  /* frames comparable by pointer with the graph's */
	const uint32_t *base_node;   /* per node of the graph: the baseline's node, or PROFILE_NONE */
	const uint32_t *new_node;    /* per node of base: the graph's node, or PROFILE_NONE */
	bool absolute;               /* change of time (of the baseline's total), else of shares */
	const char *base_name;       /* the baseline's file, for the heading */
};

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
	const struct flame_diff *diff; /* NULL: a plain flame graph */
	/* HTML, plain graph: the hottest source lines of the hot functions
	 * (flamelines.h), shown in a panel when a frame is clicked */
	const struct fline_func *lines;
	size_t nr_lines;
};

void flame_config_init(struct flame_config *c);
int flame_write_html(const struct profile *p, const struct flame_config *c, FILE *out);
int flame_write_svg(const struct profile *p, const struct flame_config *c, FILE *out);

/* Write s as a JSON string (quotes included), escaping '<' so that the text
 * can sit inside a <script>. Shared with speedscope.c. */
void json_put_str(FILE *out, const char *s);

#endif
