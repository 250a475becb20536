/*
 * tui.h: the terminal of `scorch top`: live_run with a top model (top.h) as
 * the sink, refreshed every delay seconds, on the full screen or as
 * plain-text blocks.
 *
 * It owns the terminal: raw mode and the alternate screen while the
 * full-screen view runs (restored on every exit path, also after the stop
 * flag was set by SIGINT/SIGTERM), keys read without blocking on every pass
 * of the recorder's loop (at most 100 ms apart), and the screen written in
 * one write() per redraw (cursor home, each line cleared to its end: no
 * blank frame, no flicker). With stdio, or when stdin or stdout is not a
 * terminal, a plain-text block per refresh.
 */
#ifndef SCORCH_TUI_H
#define SCORCH_TUI_H

#include "analyze/pipeline_config.h"
#include "live/top.h"
#include "record/record.h"
#include "util/err.h"
#include <signal.h>
#include <stdbool.h>

struct top_view {
	struct top_config tc;         /* the model */
	double delay;                 /* seconds between refreshes */
	unsigned max_refresh;         /* 0: until q, the stop flag or the command's end */
	bool stdio;                   /* plain-text refreshes */
	volatile sig_atomic_t *stop;  /* nonzero: end the recording */
	volatile sig_atomic_t *winch; /* nonzero: the terminal was resized (cleared here) */
};

/* Record with ro into pipelines set up with pc and show them. ro->cmd_quiet
 * is set for the full screen (the command must not write over it). Returns
 * 0 or a negative code with e filled (-EINVAL for a bad filter list). */
int top_view_run(const struct top_view *v, struct record_opts *ro, const struct pipeline_config *pc,
		 struct err *e);

#endif
