/*
 * report.h: the text report: top entries by total (children) and self time,
 * per command and DSO where there is more than one, and the call tree under
 * the top entries, like `perf report --stdio`, fitted to a width or (width
 * 0) with every name whole.
 *
 * An entry is a group of frames with equal sort keys (comm, dso, sym; perf's
 * defaults). Self is the weight of samples whose leaf is in the entry;
 * children (total) the weight of samples with the entry anywhere on the
 * stack, counted once per sample however often it recurses. Percentages are
 * of the weight (period) of all samples kept, as perf's are.
 *
 * Built from a profile collected with PROFILE_ROOT_COMM, inlined frames off
 * and unknown symbols per address (report_sink_config sets that up).
 */
#ifndef SCORCH_REPORT_H
#define SCORCH_REPORT_H

#include "output/profile.h"
#include <stdbool.h>
#include <stdio.h>

struct report_config {
	bool children;        /* sort by total and show it (default); else self */
	const char *sort;     /* keys: comm,dso,sym (default all three), srcline */
	double percent_limit; /* hide entries below this percent */
	int top;              /* at most this many entries, 0 = all */
	int tree;             /* call trees for the top N entries (0: none) */
	double tree_limit;    /* cut branches below this percent */
	int width;            /* columns (80); 0: no limit, names written whole */
	bool show_samples;    /* a Samples column (perf -n) */
	const char *input;    /* file name for the heading */
};

void report_config_init(struct report_config *c);
/* The collector settings a report needs (call after c->sort is set: a
 * srcline key needs one frame per address and innermost lines). */
void report_sink_config(struct profile_sink_config *pc);
void report_sink_config_for(const struct report_config *c, struct profile_sink_config *pc);
/* Whether c's keys need each frame's source line (srcline: the pipeline's
 * frame_lines). */
bool report_wants_lines(const struct report_config *c);
/* Check c->sort; returns 0 or -EINVAL with a message in err. */
int report_check_config(const struct report_config *c, char *err, size_t errlen);

/* Computed entries (also used by tests and by pprof's checks). */
struct report_entry {
	const char *comm, *dso, *sym; /* NULL where not a sort key */
	const char *srcline;    /* "file.c:12" (or "sym+off" without a line), srcline key */
	uint8_t kind;
	uint32_t index;         /* creation order (private) */
	uint64_t self_period, self_samples;
	uint64_t total_period, total_samples;
};
struct arena;
struct report_entries {
	struct report_entry *v;
	size_t n;
	struct arena *strs;     /* the srcline strings (NULL without that key) */
};
/* Entries sorted by total (children) or self. Returns 0 or -EINVAL (bad sort). */
int report_entries(const struct profile *p, const struct report_config *c,
		   struct report_entries *out, uint32_t **node_entry);
void report_entries_release(struct report_entries *e);
/* The name tie-break of report and diff orderings: symbol, then DSO, then
 * command (NULL sorts as ""); strcmp's sign. */
int report_cmp_names(const char *sym_a, const char *dso_a, const char *comm_a, const char *sym_b,
		     const char *dso_b, const char *comm_b);

/* The call tree of entry i of es (node_entry ne from report_entries over p):
 * what it calls (callers false) or where it is called from, in % of total,
 * branches under c->tree_limit cut, fitted to c->width (scorch top). */
void report_write_entry_tree(FILE *out, const struct profile *p, const struct report_entries *es,
			     const uint32_t *ne, size_t i, bool callers, const struct report_config *c,
			     uint64_t total);

int report_write(const struct profile_sink *s, const struct report_config *c, FILE *out);

#endif
