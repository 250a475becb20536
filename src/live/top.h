/*
 * top.h: the model and the screens of `scorch top`: the functions with the
 * most samples, live, from a profile the pipeline fills (the collector of
 * scorch report, so the numbers mean what they mean there).
 *
 * Windows: "since start" is the profile itself. "Decaying" keeps, per stack
 * node, a counter that is multiplied by 7/8 at every refresh before the
 * samples that arrived since the last one are added (perf top's decay), so
 * what stopped running fades out within a few dozen refreshes and an
 * entry whose weight reaches 0 disappears. Both are always maintained, so a
 * key switches between them without losing data.
 *
 * Rendering writes a whole screen (or a plain-text block for --stdio) into a
 * buffer; the caller (live/tui.c) owns the terminal and writes it in one go.
 * Every string the model shows points into the pipeline's memory, so the
 * model must not be rendered after its pipeline ended.
 */
#ifndef SCORCH_TOP_H
#define SCORCH_TOP_H

#include "analyze/pipeline.h"
#include "util/buf.h"
#include <stdbool.h>
#include <stdint.h>

struct top_config {
	bool children;        /* sort by children (inclusive) instead of self */
	bool since_start;     /* since-start window instead of decaying */
	const char *comms;    /* comma-separated commands to keep (samples), NULL all */
	const char *dsos;     /* comma-separated DSO base names to show, NULL all */
	int stdio_lines;      /* --stdio: entries per refresh (default 20) */
	bool off_cpu;         /* entries weighted by off-CPU time (switch-out stacks) */
};

/* What the header shows; filled by the caller at every refresh. */
struct top_status {
	const char *event;
	uint64_t freq;        /* Hz, 0 when a period */
	const char *call_graph; /* "fp", "dwarf", "none" */
	uint64_t samples, lost; /* recorder's counters */
	double rate;          /* samples per second over the last refresh */
	double cpu_pct;       /* scorch's own CPU over the last refresh, % of one CPU */
	double elapsed;       /* seconds since the start */
	unsigned refresh;     /* number of this refresh, from 1 */
};

enum top_key {
	TOP_KEY_UP = 1000, TOP_KEY_DOWN, TOP_KEY_PGUP, TOP_KEY_PGDN, TOP_KEY_HOME, TOP_KEY_END,
	TOP_KEY_ENTER, TOP_KEY_ESC, TOP_KEY_LEFT, TOP_KEY_RIGHT,
};
enum top_action { TOP_NONE, TOP_REDRAW, TOP_QUIT };

struct top;
/* NULL with msg filled on a bad filter list. */
struct top *top_new(const struct top_config *c, char *msg, size_t msglen);
void top_free(struct top *t);
/* The sink to give the pipeline; its end does not free the model. */
struct sink *top_sink(struct top *t);
/* Called from the sink's end, while the pipeline's strings still live (a
 * last refresh when the recording ends by itself). */
void top_set_end_hook(struct top *t, void (*fn)(void *ctx), void *ctx);
/* Take the samples delivered since the last refresh into the windows. */
void top_refresh(struct top *t);
bool top_paused(const struct top *t);
/* A key (a character or enum top_key): what the caller should do. */
enum top_action top_key(struct top *t, int key, int height);
/* The full screen, width x height, ANSI (home, clear to end of line, reverse
 * video for the selection), appended to out. */
void top_render(struct top *t, const struct top_status *st, int width, int height, struct buf *out);
/* A plain-text block (--stdio): a heading line and the top entries. */
void top_render_stdio(struct top *t, const struct top_status *st, int width, struct buf *out);

#endif
