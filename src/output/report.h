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
	int tree_key;         /* enum report_tree_key: what a tree node is */
	int tree_order;       /* enum report_tree_order */
	int tree_value;       /* enum report_tree_value: what a tree node shows */
	int width;            /* columns (80); 0: no limit, names written whole */
	bool show_samples;    /* a Samples column (perf -n) */
	const char *input;    /* file name for the heading */
};

/* A call tree node (perf report -g's sort_key): a function; one address
 * of it, shown with its source line (else +offset); or one source line of
 * it (addresses without a line: the function). */
enum report_tree_key { REPORT_KEY_FUNCTION, REPORT_KEY_ADDRESS, REPORT_KEY_SRCLINE };
/* The trees' direction: what each entry calls, falling back to its callers
 * for a leaf (the default; --no-children: callers); what each calls
 * (perf's caller order); where each is called from (callee order). */
enum report_tree_order { REPORT_ORDER_AUTO, REPORT_ORDER_CALLER, REPORT_ORDER_CALLEE };
enum report_tree_value { REPORT_VALUE_PERCENT, REPORT_VALUE_PERIOD, REPORT_VALUE_COUNT };

void report_config_init(struct report_config *c);
/* perf report's -g/--call-graph value, "graph,0.5,caller,address,percent"
 * (its words in any order, each as a prefix as perf takes them; the first
 * number is the tree limit; "none": no trees). Returns 0 or -EINVAL with a
 * message in err (what perf has and scorch does not: flat, fractal,
 * folded, a print limit, branch). */
int report_parse_call_graph(struct report_config *c, const char *arg, char *err, size_t errlen);
/* The collector settings a report needs (call after c->sort is set: a
 * srcline key needs one frame per address and innermost lines). */
void report_sink_config(struct profile_sink_config *pc);
void report_sink_config_for(const struct report_config *c, struct profile_sink_config *pc);
/* Whether c's keys need each frame's source line (a srcline sort key or a
 * line tree key: the pipeline's frame_lines). */
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
