/*
 * report.c: see report.h.
 *
 * One preorder pass over the profile computes every entry: a node maps to
 * the entry of its frame (under its command when comm is a sort key); self
 * adds the node's self weight; children adds the node's inclusive weight only
 * when no ancestor maps to the same entry (an on-path count per entry,
 * maintained with a stack of the entries on the current path), which counts
 * a recursive function once per sample. The same pass marks those topmost
 * nodes; a call tree of an entry merges the subtrees of its topmost nodes
 * (callees) or the paths above its nodes with self weight (callers, in
 * --no-children mode) into a scratch profile, then prints it by weight.
 */
#include "output/report.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/xalloc.h"
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define SK_COMM 1
#define SK_DSO 2
#define SK_SYM 4
#define SK_SRCLINE 8
#define TOPMOST 0x80000000u
#define NO_ENTRY UINT32_MAX

void report_config_init(struct report_config *c)
{
	memset(c, 0, sizeof(*c));
	c->children = true;
	c->sort = "comm,dso,sym";
	c->top = 40;
	c->tree = 5;
	c->tree_limit = 1.0;
	c->width = 80;
}

/* Whether tok is a prefix of word (perf's matching of -g's words). */
static bool word_prefix(const char *tok, size_t n, const char *word)
{
	return n <= strlen(word) && !strncmp(tok, word, n);
}

int report_parse_call_graph(struct report_config *c, const char *arg, char *err, size_t errlen)
{
	bool limit_set = false;
	if (!arg)
		return 0;
	for (const char *q = arg; *q;) {
		size_t n = strcspn(q, ",");
		const char *unsupported = NULL;
		if (!n) {
			q++;
			continue;
		}
		/* perf tries the words in this order: "f" is flat, "c" caller */
		if (word_prefix(q, n, "none")) {
			c->tree = 0;
			return 0;
		} else if (word_prefix(q, n, "graph")) {
		} else if (word_prefix(q, n, "flat") || word_prefix(q, n, "fractal") ||
			   word_prefix(q, n, "folded")) {
			unsupported = "the flat, fractal and folded types";
		} else if (word_prefix(q, n, "caller")) {
			c->tree_order = REPORT_ORDER_CALLER;
		} else if (word_prefix(q, n, "callee")) {
			c->tree_order = REPORT_ORDER_CALLEE;
		} else if (word_prefix(q, n, "function")) {
			c->tree_key = REPORT_KEY_FUNCTION;
		} else if (word_prefix(q, n, "address")) {
			c->tree_key = REPORT_KEY_ADDRESS;
		} else if (word_prefix(q, n, "srcline")) {
			c->tree_key = REPORT_KEY_SRCLINE;
		} else if (word_prefix(q, n, "branch")) {
			unsupported = "branch";
		} else if (word_prefix(q, n, "percent")) {
			c->tree_value = REPORT_VALUE_PERCENT;
		} else if (word_prefix(q, n, "period")) {
			c->tree_value = REPORT_VALUE_PERIOD;
		} else if (word_prefix(q, n, "count")) {
			c->tree_value = REPORT_VALUE_COUNT;
		} else {
			/* the first number is the limit, a second perf's print limit
			 * (0: none) */
			char num[64], *end = NULL;
			double d = 0;
			if (n < sizeof(num)) {
				memcpy(num, q, n);
				num[n] = 0;
				d = strtod(num, &end);
			}
			if (!end || end == num || *end || !(d >= 0 && d <= 100)) {
				snprintf(err, errlen, "-g: unknown word '%.*s' (known: graph, caller, "
					 "callee, function, address, srcline, percent, period, count, "
					 "none, a limit in percent)", (int)(n < 40 ? n : 40), q);
				return -EINVAL;
			}
			if (!limit_set)
				c->tree_limit = d;
			else if (d != 0)
				unsupported = "a print limit";
			limit_set = true;
		}
		if (unsupported) {
			snprintf(err, errlen, "-g: %s not supported", unsupported);
			return -EINVAL;
		}
		q += n;
	}
	return 0;
}

void report_sink_config(struct profile_sink_config *pc)
{
	pc->root = PROFILE_ROOT_COMM;
	pc->inline_frames = false;
	pc->unknown_by_addr = true;
	pc->by_addr = false;
}

static int parse_sort(const char *s, unsigned *mask, char *err, size_t errlen)
{
	*mask = 0;
	if (!s || !*s)
		s = "comm,dso,sym";
	const char *q = s;
	while (*q) {
		size_t n = strcspn(q, ",");
		if (n == 4 && !strncmp(q, "comm", 4))
			*mask |= SK_COMM;
		else if (n == 3 && !strncmp(q, "dso", 3))
			*mask |= SK_DSO;
		else if ((n == 3 && !strncmp(q, "sym", 3)) || (n == 6 && !strncmp(q, "symbol", 6)))
			*mask |= SK_SYM;
		else if (n == 7 && !strncmp(q, "srcline", 7))
			*mask |= SK_SRCLINE;
		else {
			if (err)
				snprintf(err, errlen,
					 "unknown sort key '%.*s' (known: comm, dso, sym, srcline)", (int)n,
					 q);
			return -EINVAL;
		}
		q += n;
		if (*q)
			q++;
	}
	if (!*mask) {
		if (err)
			snprintf(err, errlen, "empty sort key list");
		return -EINVAL;
	}
	return 0;
}

void report_sink_config_for(const struct report_config *c, struct profile_sink_config *pc)
{
	report_sink_config(pc);
	if (report_wants_lines(c)) {
		/* a line per address: the frames must not merge addresses */
		pc->by_addr = true;
		pc->innermost_lines = true;
	}
}

bool report_wants_lines(const struct report_config *c)
{
	unsigned mask = 0;
	if (parse_sort(c->sort, &mask, NULL, 0))
		return false;
	return (mask & SK_SRCLINE) ||
	       (c->tree > 0 && (mask & SK_SYM) && c->tree_key != REPORT_KEY_FUNCTION);
}

int report_check_config(const struct report_config *c, char *err, size_t errlen)
{
	unsigned mask;
	return parse_sort(c->sort, &mask, err, errlen);
}

/* ---- entries ---- */

struct etab {
	struct report_entries *e;
	size_t cap;
	struct itab h;         /* entries by (comm, dso, sym) */
};

static uint64_t ekey_hash(const char *a, const char *b, const char *c, const char *d)
{
	return hash_u64(hash_u64(hash_u64(hash_u64((uintptr_t)a) ^ (uintptr_t)b) ^ (uintptr_t)c) ^
			(uintptr_t)d);
}

static uint64_t entry_hash_at(const void *ctx, size_t i)
{
	const struct report_entry *x = &((const struct report_entries *)ctx)->v[i];
	return ekey_hash(x->comm, x->dso, x->sym, x->srcline);
}

static uint32_t etab_get(struct etab *t, const char *comm, const char *dso, const char *sym,
			 const char *srcline, uint8_t kind)
{
	itab_reserve(&t->h, t->e->n, 0, 1024, entry_hash_at, t->e);
	const uint32_t *slot = t->h.slot;
	size_t j;
	for (j = itab_first(&t->h, ekey_hash(comm, dso, sym, srcline)); slot[j] != ITAB_EMPTY;
	     j = itab_next(&t->h, j)) {
		const struct report_entry *x = &t->e->v[slot[j]];
		if (x->comm == comm && x->dso == dso && x->sym == sym && x->srcline == srcline)
			return slot[j];
	}
	if (ARRAY_GROW(t->e->v, t->cap, t->e->n + 1, TOPMOST - 1))
		xalloc_die();
	t->e->v[t->e->n] = (struct report_entry){ .comm = comm, .dso = dso, .sym = sym,
						    .srcline = srcline, .kind = kind,
						    .index = (uint32_t)t->e->n };
	t->h.slot[j] = (uint32_t)t->e->n;
	return (uint32_t)t->e->n++;
}


static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

int report_cmp_names(const char *sym_a, const char *dso_a, const char *comm_a, const char *sym_b,
		     const char *dso_b, const char *comm_b)
{
	int r = cmp_str(sym_a, sym_b);
	if (!r)
		r = cmp_str(dso_a, dso_b);
	if (!r)
		r = cmp_str(comm_a, comm_b);
	return r;
}

static int cmp_entry(const void *a, const void *b, void *arg)
{
	const bool sort_children = *(const bool *)arg;
	const struct report_entry *x = a, *y = b;
	uint64_t kx = sort_children ? x->total_period : x->self_period;
	uint64_t ky = sort_children ? y->total_period : y->self_period;
	if (kx != ky)
		return kx > ky ? -1 : 1;
	kx = sort_children ? x->self_period : x->total_period;
	ky = sort_children ? y->self_period : y->total_period;
	if (kx != ky)
		return kx > ky ? -1 : 1;
	int r = report_cmp_names(x->sym, x->dso, x->comm, y->sym, y->dso, y->comm);
	return r ? r : cmp_str(x->srcline, y->srcline);
}

/* The srcline of frame f as perf prints it: "file.c:12" (the file's base
 * name), else "sym+off" (off in decimal), interned in a. */
static const char *srcline_of(struct arena *a, const struct pframe *f)
{
	char b[512];
	if (f->file && f->line)
		snprintf(b, sizeof(b), "%s:%u", profile_basename(f->file), f->line);
	else if (!f->unknown && f->addr >= f->sym_start)
		snprintf(b, sizeof(b), "%s+%" PRIu64, f->name, f->addr - f->sym_start);
	else
		snprintf(b, sizeof(b), "%s", f->name);
	return arena_intern(a, b);
}

static const char unknown_name[] = "[unknown]";

int report_entries(const struct profile *p, const struct report_config *c,
		   struct report_entries *out, uint32_t **node_entry)
{
	unsigned mask;
	memset(out, 0, sizeof(*out));
	if (parse_sort(c->sort, &mask, NULL, 0))
		return -EINVAL;
	struct etab t = { .e = out };
	if (mask & SK_SRCLINE) {
		out->strs = xcalloc(1, sizeof(*out->strs));
		arena_init(out->strs);
	}
	uint32_t *ne = xcalloc(p->nr_nodes, sizeof(uint32_t));
	uint32_t *order = profile_preorder(p, PROFILE_ORDER_CREATION);
	const char *comm = NULL;
	ne[0] = NO_ENTRY;
	for (size_t i = 0; i < p->nr_nodes; i++) {
		uint32_t id = order[i];
		const struct pnode *n = &p->nodes[id];
		if (!n->depth)
			continue;
		const struct pframe *f = &p->frames[n->frame];
		uint32_t e;
		if (n->depth == 1) {
			/* the command pseudo-frame; an entry only for samples that
			 * had no frames at all */
			comm = f->name;
			if (!n->self_period && !n->self_samples) {
				ne[id] = NO_ENTRY;
				continue;
			}
			e = etab_get(&t, mask & SK_COMM ? comm : NULL, NULL,
				     mask & SK_SYM ? unknown_name : NULL,
				     mask & SK_SRCLINE ? arena_intern(out->strs, unknown_name) : NULL,
				     PF_USER);
		} else {
			e = etab_get(&t, mask & SK_COMM ? comm : NULL, mask & SK_DSO ? f->dso : NULL,
				     mask & SK_SYM ? f->name : NULL,
				     mask & SK_SRCLINE ? srcline_of(out->strs, f) : NULL, f->kind);
		}
		ne[id] = e;
		out->v[e].self_period += n->self_period;
		out->v[e].self_samples += n->self_samples;
	}
	/* Children: a second pass with an explicit on-path count, which is
	 * simpler to get right than mixing it into the first. */
	uint32_t *cnt = xcalloc(out->n ? out->n : 1, sizeof(uint32_t));
	uint32_t *stack = NULL; /* entry per depth, NO_ENTRY for none */
	size_t cap_stack = 0, sp = 0; /* sp = depth of the last pushed node */
	for (size_t i = 0; i < p->nr_nodes; i++) {
		uint32_t id = order[i];
		const struct pnode *n = &p->nodes[id];
		if (!n->depth)
			continue;
		while (sp >= n->depth) {
			if (stack[sp] != NO_ENTRY)
				cnt[stack[sp]]--;
			sp--;
		}
		if (ARRAY_GROW(stack, cap_stack, n->depth + 1, PROFILE_MAX_NODES))
			xalloc_die();
		uint32_t e = ne[id];
		stack[n->depth] = e;
		sp = n->depth;
		if (e == NO_ENTRY)
			continue;
		if (!cnt[e]) {
			/* a command node's entry holds only its frameless samples */
			out->v[e].total_period += n->depth == 1 ? n->self_period : n->period;
			out->v[e].total_samples += n->depth == 1 ? n->self_samples : n->samples;
			ne[id] |= TOPMOST;
		}
		cnt[e]++;
	}
	free(cnt);
	free(stack);
	free(order);
	itab_release(&t.h);
	/* sort, then renumber node_entry through the permutation */
	uint32_t *rank = NULL;
	if (out->n) {
		bool by_children = c->children;
		qsort_r(out->v, out->n, sizeof(*out->v), cmp_entry, &by_children);
		rank = xcalloc(out->n, sizeof(uint32_t));
		for (size_t i = 0; i < out->n; i++)
			rank[out->v[i].index] = (uint32_t)i;
		for (size_t i = 0; i < p->nr_nodes; i++)
			if (ne[i] != NO_ENTRY)
				ne[i] = rank[ne[i] & ~TOPMOST] | (ne[i] & TOPMOST);
	}
	free(rank);
	if (node_entry)
		*node_entry = ne;
	else
		free(ne);
	return 0;
}

void report_entries_release(struct report_entries *e)
{
	if (e->strs) {
		arena_release(e->strs);
		free(e->strs);
	}
	free(e->v);
	memset(e, 0, sizeof(*e));
}

/* ---- printing ---- */

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* Print s in exactly w columns (truncated with ".." when longer; w <= 0:
 * whole, as long as it is). */
static void put_col(FILE *out, const char *s, int w, bool last)
{
	size_t len = strlen(s);
	if (w > 2 && len > (size_t)w) {
		fprintf(out, "%.*s..", w - 2, s);
	} else if (last || w <= 0) {
		fputs(s, out);
	} else {
		fprintf(out, "%-*s", w, s);
	}
}

/* printf into a string of its own length (malloc'd): lines that hold
 * names, which are written whole when the width has no limit. */
static char *fmt_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *fmt_line(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = xmalloc(n > 0 ? (size_t)n + 1 : 1);
	va_start(ap, fmt);
	vsnprintf(s, n > 0 ? (size_t)n + 1 : 1, fmt, ap);
	va_end(ap);
	return s;
}

static const char *kind_tag(uint8_t kind)
{
	switch (kind) {
	case PF_KERNEL:
	case PF_GUEST_KERNEL:
		return "[k] ";
	case PF_HV:
		return "[H] ";
	case PF_OFFCPU:
		return "[-] ";
	default:
		return "[.] ";
	}
}

static int cmp_thread_wall(const void *a, const void *b)
{
	const struct offcpu_thread *x = *(const struct offcpu_thread *const *)a;
	const struct offcpu_thread *y = *(const struct offcpu_thread *const *)b;
	uint64_t wx = x->on_ns + x->off_total_ns, wy = y->on_ns + y->off_total_ns;
	if (wx != wy)
		return wx > wy ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* --off-cpu / --wall: the totals and a table of threads (on-CPU, off-CPU by
 * state, wall), heaviest first. */
static void print_time_head(FILE *out, const struct profile_sink *s, const struct report_config *c)
{
	const struct offcpu_stats *st = offcpu_stats(s->offcpu);
	if (s->cfg.filter.time_mode == OFFCPU_MODE_OFF_CPU)
		fprintf(out, "# Off-CPU time: %.3f s in %" PRIu64 " intervals\n", (double)s->off_ns / 1e9,
			s->off_samples);
	else
		fprintf(out, "# Wall-clock time: %.3f s = on-CPU %.3f s (%" PRIu64 " samples of '%s') + "
			"off-CPU %.3f s (%" PRIu64 " intervals)\n",
			(double)(s->on_ns + s->off_ns) / 1e9, (double)s->on_ns / 1e9, st->on_samples,
			st->on_event ? st->on_event : "-", (double)s->off_ns / 1e9, s->off_samples);
	if (!st->switch_outs)
		fprintf(out, "# no switch-out samples: record with scorch record --off-cpu (or perf "
			     "record -e sched:sched_switch --switch-events)\n");
	size_t n;
	const struct offcpu_thread *t = offcpu_threads(s->offcpu, &n);
	const struct offcpu_thread **v = xcalloc(n, sizeof(*v));
	size_t k = 0;
	bool open = false;
	for (size_t i = 0; i < n; i++)
		if (profile_sink_keeps_thread(s, t[i].pid, t[i].tid, t[i].comm))
			v[k++] = &t[i];
	qsort(v, k, sizeof(*v), cmp_thread_wall);
	fprintf(out, "#\n# Threads (ms)       pid     tid    on-CPU   off-CPU  sleeping   blocked "
		     "preempted     other      wall\n");
	size_t lim = c->top > 0 && (size_t)c->top < k ? (size_t)c->top : k;
	for (size_t i = 0; i < lim; i++) {
		const struct offcpu_thread *x = v[i];
		char comm[64];
		snprintf(comm, sizeof(comm), "%s%s", x->comm ? x->comm : "?", x->open ? "*" : "");
		open |= x->open;
		fprintf(out, "#   %-15.15s %7u %7u %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n", comm,
			x->pid, x->tid, (double)x->on_ns / 1e6, (double)x->off_total_ns / 1e6,
			(double)x->off_ns[OFFCPU_SLEEPING] / 1e6, (double)x->off_ns[OFFCPU_BLOCKED] / 1e6,
			(double)x->off_ns[OFFCPU_PREEMPTED] / 1e6,
			(double)(x->off_ns[OFFCPU_OTHER] + x->off_ns[OFFCPU_WAITING]) / 1e6,
			(double)(x->on_ns + x->off_total_ns) / 1e6);
	}
	if (lim < k)
		fprintf(out, "#   (%zu more threads: --top)\n", k - lim);
	if (open)
		fprintf(out, "#   * still off-CPU at the end of the recording: counted to its end\n");
	if (st->closed_by_sample && !st->switch_records)
		fprintf(out, "#   no context-switch records: intervals end at the thread's next sample\n");
	free(v);
}

static void human_count(char *buf, size_t n, uint64_t v)
{
	if (v >= 10000000)
		snprintf(buf, n, "%" PRIu64 "M", v / 1000000);
	else if (v >= 10000)
		snprintf(buf, n, "%" PRIu64 "K", v / 1000);
	else
		snprintf(buf, n, "%" PRIu64, v);
}

/* The tree nodes of a line key (report_config.tree_key): per frame of the
 * profile (one per address) its label, "name file.c:12" as perf prints a
 * callchain entry with its srcline (address key without a line: "name
 * +off", off in decimal), and the frame its node merges into: itself
 * (address) or the first frame with the same label in the same DSO
 * (srcline; a frame without a line merges with its function's). */
struct line_keys {
	const char **label;
	uint32_t *canon;
	struct arena strs;
};

static void line_keys_init(struct line_keys *k, const struct profile *p, int key)
{
	arena_init(&k->strs);
	k->label = xcalloc(p->nr_frames ? p->nr_frames : 1, sizeof(*k->label));
	k->canon = xcalloc(p->nr_frames ? p->nr_frames : 1, sizeof(*k->canon));
	struct hmap first; /* interned (label, dso, kind) -> frame + 1 */
	hmap_init(&first);
	for (size_t i = 0; i < p->nr_frames; i++) {
		const struct pframe *f = &p->frames[i];
		char b[1024];
		if (f->kind >= PF_COMM)
			snprintf(b, sizeof(b), "%s", f->name);
		else if (f->file && f->line)
			snprintf(b, sizeof(b), "%s %s:%u", f->name, profile_basename(f->file), f->line);
		else if (key == REPORT_KEY_ADDRESS && !f->unknown && f->sym_start && f->addr >= f->sym_start)
			snprintf(b, sizeof(b), "%s +%" PRIu64, f->name, f->addr - f->sym_start);
		else
			snprintf(b, sizeof(b), "%s", f->name);
		k->label[i] = arena_intern(&k->strs, b);
		k->canon[i] = (uint32_t)i;
		if (key != REPORT_KEY_SRCLINE)
			continue;
		snprintf(b, sizeof(b), "%s%c%s%c%u", k->label[i], 0, f->dso ? f->dso : "", 0, f->kind);
		size_t n = strlen(k->label[i]) + 1;
		n += strlen(b + n) + 1;
		n += strlen(b + n);
		/* the key with its NULs made printable: intern needs a string */
		for (size_t j = 0; j < n; j++)
			if (!b[j])
				b[j] = '\x01';
		uintptr_t key_ptr = (uintptr_t)arena_intern(&k->strs, b);
		uintptr_t got = (uintptr_t)hmap_get(&first, key_ptr);
		if (got)
			k->canon[i] = (uint32_t)(got - 1);
		else
			hmap_put(&first, key_ptr, (void *)(i + 1));
	}
	hmap_release(&first);
}

static void line_keys_release(struct line_keys *k)
{
	free(k->label);
	free(k->canon);
	arena_release(&k->strs);
}

struct tree_ctx {
	FILE *out;
	const struct profile *src;
	const struct profile *t;
	const struct line_keys *lines; /* NULL: function nodes */
	uint64_t total;
	double limit;
	int value;                     /* enum report_tree_value */
	int width;
	char prefix[256];
	bool truncated;
};

static int cmp_u32_by_period(const void *a, const void *b, void *arg)
{
	const struct profile *t = arg;
	const struct pnode *x = &t->nodes[*(const uint32_t *)a], *y = &t->nodes[*(const uint32_t *)b];
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* A frame's name and its mark: " (command)", " [k]" or nothing. */
static const char *frame_mark(const struct pframe *f)
{
	if (f->kind == PF_COMM)
		return " (command)";
	return f->kind == PF_KERNEL || f->kind == PF_GUEST_KERNEL ? " [k]" : "";
}

/* The children of node over the limit, heaviest first (malloc'd). */
static size_t tree_kids(struct tree_ctx *c, uint32_t node, uint32_t **out)
{
	const struct profile *t = c->t;
	uint32_t *kids = NULL;
	size_t nk = 0, cap = 0;
	for (uint32_t k = t->nodes[node].first_child; k != PROFILE_NONE; k = t->nodes[k].next_sibling) {
		if (pct(t->nodes[k].period, c->total) < c->limit)
			continue;
		if (ARRAY_GROW(kids, cap, nk + 1, PROFILE_MAX_NODES))
			xalloc_die();
		kids[nk++] = k;
	}
	if (nk > 1)
		qsort_r(kids, nk, sizeof(uint32_t), cmp_u32_by_period, (void *)t);
	*out = kids;
	return nk;
}

static void tree_line(struct tree_ctx *c, const char *branch, uint32_t node)
{
	const struct pnode *x = &c->t->nodes[node];
	const struct pframe *f = &c->src->frames[x->frame];
	char v[32];
	if (c->value == REPORT_VALUE_PERIOD)
		snprintf(v, sizeof(v), "%" PRIu64, x->period);
	else if (c->value == REPORT_VALUE_COUNT)
		snprintf(v, sizeof(v), "%" PRIu64, x->samples);
	else
		snprintf(v, sizeof(v), "%.2f%%", pct(x->period, c->total));
	char *line = fmt_line("%s%s%s  %s%s", c->prefix, branch, v,
			      c->lines ? c->lines->label[x->frame] : f->name, frame_mark(f));
	put_col(c->out, line, c->width, true);
	putc('\n', c->out);
	free(line);
}

/* Print the children of node under c->prefix (plen long). A node with one
 * child over the limit continues as a straight chain at the same indent
 * (as perf prints them), however long, so long call chains do not walk off
 * the right edge; branches indent by four. Recursion is bounded by the
 * width (without a width, by the prefix's room). */
static void print_tree(struct tree_ctx *c, uint32_t node, size_t plen)
{
	uint32_t *kids;
	size_t nk = tree_kids(c, node, &kids);
	while (nk == 1) {
		tree_line(c, "", kids[0]);
		node = kids[0];
		free(kids);
		nk = tree_kids(c, node, &kids);
	}
	size_t room = c->width > 0 ? (size_t)c->width - 20 : sizeof(c->prefix) - 8;
	if (nk && plen + 8 > room) {
		fprintf(c->out, "%s ...\n", c->prefix);
		c->truncated = true;
		free(kids);
		return;
	}
	for (size_t i = 0; i < nk; i++) {
		bool last = i + 1 == nk;
		tree_line(c, last ? "`--" : "|--", kids[i]);
		if (plen + 4 < sizeof(c->prefix)) {
			memcpy(c->prefix + plen, last ? "    " : "|   ", 5);
			print_tree(c, kids[i], plen + 4);
			c->prefix[plen] = 0;
		}
	}
	free(kids);
}

/* The width a call tree is fitted to: at least 40 columns, 0 for none. */
static int tree_width(const struct report_config *c)
{
	return c->width <= 0 ? 0 : c->width < 40 ? 40 : c->width;
}

/* Build the call tree of entry e into t: callees (merged subtrees of its
 * topmost nodes) or callers (the paths above its nodes with self weight).
 * With line keys (lk) the entry's own frames (its lines) are the first
 * level, and every frame stands for the node it merges into. */
static void build_tree(struct profile *t, const struct profile *p, const uint32_t *ne,
		       const uint32_t *order, uint32_t e, bool callers, const struct line_keys *lk)
{
#define KEY(fr) (lk ? lk->canon[fr] : (fr))
	profile_init(t);
	if (!callers) {
		uint32_t *stack = NULL;
		size_t cap = 0;
		for (size_t i = 0; i < p->nr_nodes; i++) {
			uint32_t id = order[i];
			if (ne[id] != (e | TOPMOST))
				continue;
			uint32_t base = p->nodes[id].depth;
			if (ARRAY_GROW(stack, cap, 2, PROFILE_MAX_NODES))
				xalloc_die();
			stack[0] = lk ? profile_child(t, 0, KEY(p->nodes[id].frame)) : 0;
			profile_add(t, stack[0], p->nodes[id].self_samples, p->nodes[id].self_period);
			size_t j = i + 1;
			for (; j < p->nr_nodes && p->nodes[order[j]].depth > base; j++) {
				const struct pnode *n = &p->nodes[order[j]];
				uint32_t d = n->depth - base;
				if (ARRAY_GROW(stack, cap, d + 1, PROFILE_MAX_NODES))
					xalloc_die();
				stack[d] = profile_child(t, stack[d - 1], KEY(n->frame));
				if (n->self_period || n->self_samples)
					profile_add(t, stack[d], n->self_samples, n->self_period);
			}
			i = j - 1;
		}
		free(stack);
		return;
	}
	for (size_t id = 1; id < p->nr_nodes; id++) {
		if (ne[id] == NO_ENTRY || (ne[id] & ~TOPMOST) != e)
			continue;
		const struct pnode *n = &p->nodes[id];
		if (!n->self_period && !n->self_samples)
			continue;
		uint32_t tn = lk ? profile_child(t, 0, KEY(n->frame)) : 0;
		for (uint32_t a = n->parent; a != PROFILE_NONE && p->nodes[a].depth > 1; a = p->nodes[a].parent)
			tn = profile_child(t, tn, KEY(p->nodes[a].frame));
		profile_add(t, tn, n->self_samples, n->self_period);
	}
#undef KEY
}

/* The name of the callee that carries >= 95% of the tree t (its first
 * level; with line keys the level under the entry's lines, summed per
 * function), or NULL. */
static const char *dominant_callee(const struct profile *t, const struct profile *p, bool lines)
{
	if (!lines) {
		for (uint32_t k = t->nodes[0].first_child; k != PROFILE_NONE; k = t->nodes[k].next_sibling)
			if (t->nodes[k].period * 100 >= t->nodes[0].period * 95)
				return p->frames[t->nodes[k].frame].name;
		return NULL;
	}
	struct hmap sum; /* name -> period */
	hmap_init(&sum);
	const char *dom = NULL;
	for (uint32_t k = t->nodes[0].first_child; k != PROFILE_NONE && !dom; k = t->nodes[k].next_sibling)
		for (uint32_t g = t->nodes[k].first_child; g != PROFILE_NONE && !dom;
		     g = t->nodes[g].next_sibling) {
			const char *name = p->frames[t->nodes[g].frame].name;
			uintptr_t v = (uintptr_t)hmap_get(&sum, (uintptr_t)name) + t->nodes[g].period;
			hmap_put(&sum, (uintptr_t)name, (void *)v);
			if ((uint64_t)v * 100 >= t->nodes[0].period * 95)
				dom = name;
		}
	hmap_release(&sum);
	return dom;
}

/* Whether t has a node over the limit at depth level (1: the first). */
static bool has_branch(const struct profile *t, uint32_t node, int level, uint64_t total,
		       double limit)
{
	for (uint32_t k = t->nodes[node].first_child; k != PROFILE_NONE; k = t->nodes[k].next_sibling)
		if (pct(t->nodes[k].period, total) >= limit &&
		    (level == 1 || has_branch(t, k, level - 1, total, limit)))
			return true;
	return false;
}

/* Print the call trees of the top entries. In children mode an entry's
 * callees; a leaf entry (no callee over the limit) gets its callers. An
 * entry that is the dominant callee (>= 95%) of one already shown is
 * skipped: its tree would repeat the one above it (main under
 * __libc_start_main). */
static void print_trees(FILE *out, const struct profile *p, const struct report_entries *es,
			const uint32_t *ne, const struct report_config *c, uint64_t total)
{
	uint32_t *order = profile_preorder(p, PROFILE_ORDER_CREATION);
	const char *skip[256];
	size_t nskip = 0;
	int done = 0;
	struct line_keys lk;
	bool lines = c->tree_key != REPORT_KEY_FUNCTION;
	if (lines)
		line_keys_init(&lk, p, c->tree_key);
	/* the level of the callees and callers: under the entry's lines */
	int level = lines ? 2 : 1;
	bool callers_first = c->tree_order == REPORT_ORDER_CALLEE ||
			     (c->tree_order == REPORT_ORDER_AUTO && !c->children);
	fprintf(out, "# Call trees of the top %d entries (%s)\n"
		"# in %% of all samples; branches under %.1f%% are cut\n\n", c->tree,
		callers_first ? "where each is called from" : "what each calls", c->tree_limit);
	for (size_t i = 0; i < es->n && done < c->tree; i++) {
		const struct report_entry *x = &es->v[i];
		uint64_t v = c->children ? x->total_period : x->self_period;
		if (!x->sym || x->sym == unknown_name)
			continue;
		if (pct(v, total) < c->tree_limit)
			break;
		bool skipped = false;
		for (size_t k = 0; k < nskip; k++)
			if (skip[k] == x->sym)
				skipped = true;
		bool callers = callers_first;
		struct profile t;
		build_tree(&t, p, ne, order, (uint32_t)i, callers, lines ? &lk : NULL);
		if (!callers && c->tree_order == REPORT_ORDER_AUTO &&
		    !has_branch(&t, 0, level, total, c->tree_limit)) {
			profile_release(&t);
			callers = true;
			build_tree(&t, p, ne, order, (uint32_t)i, callers, lines ? &lk : NULL);
		}
		const char *dom = callers ? NULL : dominant_callee(&t, p, lines);
		if (dom && nskip < sizeof(skip) / sizeof(skip[0]))
			skip[nskip++] = dom;
		if (!skipped) {
			char *head = fmt_line("%.2f%%  %s%s%s%s%s", pct(v, total), x->sym,
					      x->dso ? "  (" : "", x->dso ? profile_basename(x->dso) : "",
					      x->dso ? ")" : "", callers ? "  called from:" : "");
			put_col(out, head, c->width, true);
			putc('\n', out);
			free(head);
			struct tree_ctx tc = { .out = out, .src = p, .t = &t, .total = total,
					       .limit = c->tree_limit, .width = tree_width(c),
					       .lines = lines ? &lk : NULL, .value = c->tree_value };
			/* the tree sits two columns in from its heading */
			memcpy(tc.prefix, "  ", 3);
			if (!has_branch(&t, 0, 1, total, c->tree_limit))
				fprintf(out, "  (%s)\n", callers ? "no callers: the recorded stacks end here"
								  : "no callees over the limit");
			else
				print_tree(&tc, 0, 2);
			putc('\n', out);
			done++;
		}
		profile_release(&t);
	}
	if (lines)
		line_keys_release(&lk);
	free(order);
}

void report_write_entry_tree(FILE *out, const struct profile *p, const struct report_entries *es,
			     const uint32_t *ne, size_t i, bool callers, const struct report_config *c,
			     uint64_t total)
{
	if (i >= es->n)
		return;
	uint32_t *order = profile_preorder(p, PROFILE_ORDER_CREATION);
	struct profile t;
	build_tree(&t, p, ne, order, (uint32_t)i, callers, NULL);
	struct tree_ctx tc = { .out = out, .src = p, .t = &t, .total = total, .limit = c->tree_limit,
			       .width = tree_width(c) };
	memcpy(tc.prefix, "  ", 3);
	if (!has_branch(&t, 0, 1, total, c->tree_limit))
		fprintf(out, "  (%s)\n", callers ? "no callers: the recorded stacks end here"
						  : "no callees over the limit");
	else
		print_tree(&tc, 0, 2);
	profile_release(&t);
	free(order);
}

struct group {
	const char *key;
	uint64_t period, samples;
};

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	return strcmp(x->key ? x->key : "", y->key ? y->key : "");
}

/* Self weight grouped by DSO (by_comm false) or command. */
static void print_groups(FILE *out, const struct profile *p, bool by_comm, uint64_t total,
			 const struct report_config *c)
{
	struct group *g = NULL;
	size_t ng = 0, cap = 0, last = 0;
	const char *comm = NULL;
	struct hmap idx; /* key pointer -> index + 1 */
	hmap_init(&idx);
	uint32_t *order = profile_preorder(p, PROFILE_ORDER_CREATION);
	for (size_t i = 0; i < p->nr_nodes; i++) {
		const struct pnode *n = &p->nodes[order[i]];
		if (!n->depth)
			continue;
		const struct pframe *f = &p->frames[n->frame];
		if (n->depth == 1)
			comm = f->name;
		if (!n->self_period && !n->self_samples)
			continue;
		static const char offcpu_key[] = "[off-cpu]";
		const char *key = by_comm ? comm : (n->depth == 1 ? NULL : f->dso);
		if (!by_comm && key)
			key = profile_basename(key);
		if (!by_comm && f->kind == PF_OFFCPU)
			key = offcpu_key;
		/* the last group hit is the likely one (nodes of a DSO cluster) */
		size_t j = last < ng && g[last].key == key ? last : ng;
		if (j == ng) {
			uintptr_t got = (uintptr_t)hmap_get(&idx, (uintptr_t)key);
			j = got ? got - 1 : ng;
		}
		if (j == ng) {
			if (ARRAY_GROW(g, cap, ng + 1, SIZE_MAX / sizeof(*g)))
				xalloc_die();
			g[ng++] = (struct group){ .key = key };
			hmap_put(&idx, (uintptr_t)key, (void *)(uintptr_t)ng);
		}
		last = j;
		g[j].period += n->self_period;
		g[j].samples += n->self_samples;
	}
	hmap_release(&idx);
	free(order);
	if (ng > 1 || (!by_comm && ng)) {
		qsort(g, ng, sizeof(*g), cmp_group);
		fprintf(out, "# Self by %s\n", by_comm ? "command" : "shared object");
		size_t shown = 0;
		for (size_t j = 0; j < ng; j++) {
			double pc = pct(g[j].period, total);
			if (shown >= 15 || (pc < c->percent_limit && shown))
				break;
			char num[32];
			human_count(num, sizeof(num), g[j].samples);
			char *line = fmt_line("  %7.2f%%  %8s  %s", pc, num,
					      by_comm ? g[j].key : g[j].key ? g[j].key : "[unknown]");
			put_col(out, line, c->width, true);
			putc('\n', out);
			free(line);
			shown++;
		}
		if (ng > shown)
			fprintf(out, "  (%zu more)\n", ng - shown);
		putc('\n', out);
	}
	free(g);
}

int report_write(const struct profile_sink *s, const struct report_config *c, FILE *out)
{
	const struct profile *p = &s->prof;
	struct report_entries es;
	uint32_t *ne = NULL;
	int rc = report_entries(p, c, &es, &ne);
	if (rc)
		return rc;
	uint64_t total = p->period;
	unsigned mask = 0;
	parse_sort(c->sort, &mask, NULL, 0);

	char line0[1024], num[32];
	snprintf(line0, sizeof(line0), "# scorch report%s%s", c->input ? ": " : "",
		 c->input ? c->input : "");
	put_col(out, line0, c->width, true);
	putc('\n', out);
	bool tm = s->offcpu != NULL;
	if (tm) {
		print_time_head(out, s, c);
	} else {
		snprintf(line0, sizeof(line0), "# Samples: %" PRIu64 " of event '%s'", p->samples,
			 s->event_name ? s->event_name : "?");
		put_col(out, line0, c->width, true);
		fprintf(out, "\n# Event count: %" PRIu64, total);
		if (profile_sink_period_is_ns(s))
			fprintf(out, " (%.3f s)", (double)total / 1e9);
		putc('\n', out);
	}
	if (s->samples_filtered || s->samples_other_event)
		fprintf(out, "# Not counted: %" PRIu64 " samples of other events, %" PRIu64
			" filtered out\n", s->samples_other_event, s->samples_filtered);
	if (s->copy_short)
		fprintf(out, "# Stack copy too short: %" PRIu64 " samples (%" PRIu64 " stitched)\n",
			s->copy_short, s->stitched);
	if (!p->samples) {
		fprintf(out, "# no samples\n");
		free(ne);
		report_entries_release(&es);
		return ferror(out) ? -EIO : 0;
	}
	fprintf(out, "#\n");

	/* columns: fit comm and dso to the data, cap them, give the rest to sym */
	int wcomm = 7, wdso = 13;
	size_t limit = c->top > 0 && (size_t)c->top < es.n ? (size_t)c->top : es.n;
	for (size_t i = 0; i < limit; i++) {
		const struct report_entry *x = &es.v[i];
		if (x->comm && (int)strlen(x->comm) > wcomm)
			wcomm = (int)strlen(x->comm);
		const char *d = x->kind == PF_TRUNCATED ? "[truncated]"
				: x->dso ? profile_basename(x->dso) : "[unknown]";
		if ((int)strlen(d) > wdso)
			wdso = (int)strlen(d);
	}
	/* fitted to a width: comm and DSO capped; without one, whole */
	if (c->width > 0 && wcomm > 15)
		wcomm = 15;
	if (c->width > 0 && wdso > 20)
		wdso = 20;
	/* narrow terminals: the symbol keeps at least 20 columns */
	int fixed = (c->children ? 9 : 0) + 10 + (c->show_samples ? 9 : 0) + (tm ? 10 : 0) +
		    ((mask & SK_COMM) ? 2 + wcomm : 0) + ((mask & SK_DSO) ? 2 + wdso : 0) + 2;
	while ((mask & SK_SYM) && c->width > 0 && c->width - fixed < 20 && (wcomm > 7 || wdso > 8)) {
		if ((mask & SK_DSO) && wdso > 8 && (wdso >= wcomm || !(mask & SK_COMM) || wcomm <= 7))
			wdso--;
		else if ((mask & SK_COMM) && wcomm > 7)
			wcomm--;
		else
			break;
		fixed--;
	}

	char line[2048];
	int o = 0;
	o += snprintf(line + o, sizeof(line) - o, "#");
	if (c->children)
		o += snprintf(line + o, sizeof(line) - o, " Children");
	o += snprintf(line + o, sizeof(line) - o, "%s", c->children ? "     Self" : "     Self");
	if (c->show_samples)
		o += snprintf(line + o, sizeof(line) - o, "  Samples");
	if (tm)
		o += snprintf(line + o, sizeof(line) - o, "   Time ms");
	if (mask & SK_COMM)
		o += snprintf(line + o, sizeof(line) - o, "  %-*s", wcomm, "Command");
	if (mask & SK_DSO)
		o += snprintf(line + o, sizeof(line) - o, "  %-*s", wdso, "Shared Object");
	/* the source line column: last, as wide as its longest shown value */
	int wsrc = 11;
	for (size_t i = 0; (mask & SK_SRCLINE) && i < limit; i++)
		if (es.v[i].srcline && (int)strlen(es.v[i].srcline) > wsrc)
			wsrc = (int)strlen(es.v[i].srcline);
	if (wsrc > 40)
		wsrc = 40;
	int wsym = c->width - fixed - ((mask & SK_SRCLINE) ? 2 + wsrc : 0);
	if (c->width <= 0) /* no limit: as wide as the longest shown */
		for (size_t i = wsym = 0; i < limit; i++)
			if (es.v[i].sym && (int)strlen(es.v[i].sym) + 4 > wsym)
				wsym = (int)strlen(es.v[i].sym) + 4;
	if (wsym < 12)
		wsym = 12;
	if (mask & SK_SYM)
		o += snprintf(line + o, sizeof(line) - o, (mask & SK_SRCLINE) ? "  %-*s" : "  Symbol",
			      wsym, "Symbol");
	if (mask & SK_SRCLINE)
		o += snprintf(line + o, sizeof(line) - o, "  Source:Line");
	fprintf(out, "%s\n", line);

	size_t shown = 0;
	for (size_t i = 0; i < es.n; i++) {
		const struct report_entry *x = &es.v[i];
		double key = pct(c->children ? x->total_period : x->self_period, total);
		if (key < c->percent_limit || (key == 0 && c->percent_limit <= 0 && !c->children))
			break; /* sorted: the rest is smaller */
		if (c->top > 0 && shown >= (size_t)c->top)
			break;
		o = 0;
		if (c->children)
			o += snprintf(line + o, sizeof(line) - o, " %7.2f%%", pct(x->total_period, total));
		o += snprintf(line + o, sizeof(line) - o, "  %6.2f%%", pct(x->self_period, total));
		if (c->show_samples) {
			human_count(num, sizeof(num), c->children ? x->total_samples : x->self_samples);
			o += snprintf(line + o, sizeof(line) - o, " %8s", num);
		}
		if (tm)
			o += snprintf(line + o, sizeof(line) - o, " %9.1f",
				      (double)(c->children ? x->total_period : x->self_period) / 1e6);
		fputs(line, out);
		if (mask & SK_COMM) {
			fputs("  ", out);
			put_col(out, x->comm ? x->comm : "", wcomm, false);
		}
		if (mask & SK_DSO) {
			fputs("  ", out);
			put_col(out, x->kind == PF_OFFCPU ? "[off-cpu]" : x->kind == PF_TRUNCATED ? "[truncated]"
				     : x->dso ? profile_basename(x->dso) : "[unknown]",
				wdso, false);
		}
		if (mask & SK_SYM) {
			int used = o + ((mask & SK_COMM) ? 2 + wcomm : 0) + ((mask & SK_DSO) ? 2 + wdso : 0) + 2;
			int w = c->width - used;
			if (w < 12)
				w = 12;
			char *sym = fmt_line("%s%s", kind_tag(x->kind), x->sym ? x->sym : "");
			fputs("  ", out);
			if (mask & SK_SRCLINE)
				put_col(out, sym, wsym, false);
			else
				put_col(out, sym, c->width > 0 ? w : 0, true);
			free(sym);
		}
		if (mask & SK_SRCLINE) {
			fputs("  ", out);
			put_col(out, x->srcline ? x->srcline : "", c->width > 0 ? wsrc : 0, true);
		}
		putc('\n', out);
		shown++;
	}
	if (shown < es.n)
		fprintf(out, "# (%zu more below %s: --top, --percent-limit)\n", es.n - shown,
			c->top > 0 && shown >= (size_t)c->top ? "the top" : "the limit");
	putc('\n', out);

	print_groups(out, p, true, total, c);
	if (mask & SK_DSO)
		print_groups(out, p, false, total, c);

	/* with a line key the frames are per address: no call trees */
	if (c->tree > 0 && (mask & SK_SYM) && !(mask & SK_SRCLINE))
		print_trees(out, p, &es, ne, c, total);
	free(ne);
	report_entries_release(&es);
	return ferror(out) ? -EIO : 0;
}
