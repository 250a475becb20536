/*
 * diff.h: differential profiles: what changed between a baseline recording
 * and a new one (`scorch diff`, `scorch flame --diff`,
 * `scorch export -f folded --diff`).
 *
 * Two runs of different builds have different addresses, build ids and
 * sometimes different inlining, so nothing is matched by address. Each side's
 * profile (collected by the shared profile sink, one pipeline run per file)
 * is copied into a canonical profile whose frames are keyed by
 *   - the function name, demangled, with GCC/LLVM clone suffixes folded
 *     ("f.cold", "f.isra.0", "f.part.1", "f.constprop.0", "f.lto_priv.0",
 *     "f.llvm.123", "f [clone .isra.0]" all become "f"),
 *   - the DSO's basename ("libc.so.6", not its path or build id),
 *   - the frame kind (user, kernel, command pseudo-frame),
 * with the inlined flag dropped (a function inlined in one build and called
 * in the other is the same frame). A clone that sits directly under its
 * origin ("f" -> "f.cold") folds into it, so the stack is "f" on both sides.
 * Names and DSOs of both sides are interned in one string table, so equal
 * pointers mean equal keys across the two profiles: report_entries() on each
 * side gives entries that join by pointer, and a stack matches when its
 * frame sequence does (diff_match walks one tree down the other).
 *
 * Copying happens in the profile sink's finish callback, while the
 * resolver's strings are alive; afterwards the side owns nothing of the run.
 */
#ifndef SCORCH_DIFF_H
#define SCORCH_DIFF_H

#include "output/profile.h"
#include <stdbool.h>
#include <stdio.h>

#define DIFF_BASE 0
#define DIFF_NEW 1

struct diff_side {
	struct profile prof; /* canonical frames; strings in struct diff's table */
	const char *input;   /* the file name (caller's string) */
	const char *event;   /* event name (interned) */
	bool unit_ns;        /* period is nanoseconds (cpu-clock, task-clock) */
	bool taken;
	uint64_t samples_filtered, samples_other_event;
};

struct diff {
	struct profile names; /* only its string table is used */
	struct diff_side side[2];
};

void diff_init(struct diff *d);
void diff_release(struct diff *d);

/* The matching name of a function: name with clone suffixes folded, into
 * out (n bytes, truncated). Names of made-up frames ("[libc.so.6]",
 * "0x1234") are copied unchanged. Returns the length written. */
size_t diff_fold_name(const char *name, char *out, size_t n);

/* Copy s's profile into side (DIFF_BASE or DIFF_NEW) as canonical frames.
 * Call while s's strings are alive (its finish callback). 0 or -ENOMEM. */
int diff_take(struct diff *d, int side, const struct profile_sink *s, const char *input);

/* For every node of side `from`, the node of the other side with the same
 * frame sequence from the root, or PROFILE_NONE. Returns a malloc'd array
 * of side[from].prof.nr_nodes entries. */
uint32_t *diff_match(const struct diff *d, int from);

/* ---- the table (scorch diff) ---- */

struct diff_config {
	bool children;        /* compare total (children) time instead of self */
	const char *sort;     /* report's keys: comm,dso,sym (default dso,sym) */
	double percent_limit; /* hide rows where both sides are under this percent */
	int top;              /* at most this many rows; 0 all, -1 default (40 text, all csv) */
	bool absolute;        /* percentages of the baseline's total on both sides (time) */
	bool csv;
	int width;            /* text columns (100) */
	bool fail_set;        /* --fail-above given */
	double fail_above;    /* points of self share (or of the baseline's total) */
};

void diff_config_init(struct diff_config *c);
/* Check c (sort keys, width); 0 or -EINVAL with a message in err. */
int diff_check_config(const struct diff_config *c, char *err, size_t errlen);

struct diff_row {
	const char *comm, *dso, *sym; /* NULL where not a sort key */
	uint8_t kind;
	bool in_base, in_new;
	uint64_t base, new;           /* period (ns for cpu-clock) of the compared time */
	double base_pct, new_pct, delta;
};

struct diff_rows {
	struct diff_row *v;
	size_t n;
};

/* The rows of the comparison: self (or total when children) time per
 * entry, joined across sides, sorted by the absolute change (then by the
 * larger side, then by name). 0 or -EINVAL (bad sort keys). */
int diff_rows(const struct diff *d, bool children, const char *sort, bool absolute,
	      struct diff_rows *out);
void diff_rows_release(struct diff_rows *r);

/* Write the table (text or CSV) to out. With fail_above, the self rows that
 * grew by more than that many points are written to err (same format) and
 * counted in *nfailed. 0 or negative error. */
int diff_write(const struct diff *d, const struct diff_config *c, FILE *out, FILE *err,
	       size_t *nfailed);

/* FlameGraph's difffolded format: "stack count_base count_new" per stack
 * present on either side (samples, or period when by_period). */
int diff_write_folded(const struct diff *d, bool by_period, bool annotate, FILE *out);

#endif
