/*
 * top.c: see top.h.
 *
 * The profile is the one scorch report builds (PROFILE_ROOT_COMM, no inline
 * frames), so entries, self and children come from report_entries. The
 * decaying window is a second array of nodes: the profile's nodes (same
 * tree links) with counters that decay; report_entries runs over a shallow
 * copy of the profile pointing at that array. The selection is remembered
 * by its entry's key (pointers to comm, DSO and symbol strings, which are
 * interned) so it follows its function when the order changes.
 *
 * The annotation screen ('a'): an annotate collector (output/annotate.h)
 * rides on the profile sink's on_sample hook and counts every sample at its
 * own address from the start; the screen is annotate's text for the
 * selected symbol, written again at every refresh.
 */
#include "live/top.h"
#include "output/annotate.h"
#include "output/profile.h"
#include "output/report.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOP_MAX_LIST 64

struct counts {
	uint64_t self_samples, self_period, samples, period;
};

struct top {
	struct top_config cfg;
	struct profile_sink ps;
	struct sink sink;
	struct sink chain;       /* --off-cpu: the off-CPU wrapper around ps */
	/* decaying window */
	struct pnode *dec;       /* per node: tree links of the profile, decayed counters */
	struct counts *prev;     /* per node: profile counters at the last refresh */
	size_t nr_dec, cap_dec, cap_prev;
	/* the last snapshot */
	struct profile view;     /* the window shown: copies of nodes and frames, so new
				  * samples (which may move the profile's arrays) leave
				  * it alone; strings are the pipeline's */
	struct pnode *snap_nodes;
	struct pframe *snap_frames;
	size_t cap_snap_nodes, cap_snap_frames;
	struct report_entries es;
	uint32_t *ne;
	uint64_t total;
	size_t *rows;            /* entries shown (filtered), indices into es */
	size_t nr_rows, cap_rows;
	bool have_snapshot;
	/* display state */
	size_t sel, first;
	const char *sel_comm, *sel_dso, *sel_sym;
	const char *zoom_comm, *zoom_dso;
	char **dso_list;
	size_t nr_dso;
	bool paused;
	bool tree;               /* the call tree screen (or, with ann_screen, the annotation) */
	bool ann_screen;
	struct annotate_config acfg;
	struct annotate *ann;
	const char *ann_sym;     /* the symbol annotated (acfg.syms points here) */
	char *tree_text;         /* its lines, '\n' separated */
	void (*end_hook)(void *ctx);
	void *end_ctx;
	size_t tree_lines, tree_first;
};

static int top_end(void *ctx, struct pipeline *p, int rc)
{
	struct top *t = ctx;
	/* --off-cpu: threads still off-CPU are counted to the end */
	if (t->chain.end)
		rc = t->chain.end(t->chain.ctx, p, rc);
	if (!rc && t->end_hook)
		t->end_hook(t->end_ctx);
	t->ps.pipeline = NULL;
	t->have_snapshot = false;
	t->nr_rows = 0;
	return rc;
}

static int top_begin(void *ctx, struct pipeline *p)
{
	struct top *t = ctx;
	t->ps.pipeline = p;
	return t->chain.begin ? t->chain.begin(t->chain.ctx, p) : 0;
}

static int top_event(void *ctx, struct pipeline *p, const struct perf_event *ev)
{
	struct top *t = ctx;
	return t->chain.event ? t->chain.event(t->chain.ctx, p, ev) : 0;
}

static int top_sample(void *ctx, struct pipeline *p, const struct resolved_sample *rs)
{
	struct top *t = ctx;
	if (t->chain.sample)
		return t->chain.sample(t->chain.ctx, p, rs);
	return profile_sink_sample(&t->ps, rs);
}

struct top *top_new(const struct top_config *c, char *msg, size_t msglen)
{
	struct top *t = xcalloc(1, sizeof(*t));
	t->cfg = *c;
	if (t->cfg.stdio_lines <= 0)
		t->cfg.stdio_lines = 20;
	struct profile_sink_config pc;
	profile_sink_config_init(&pc);
	report_sink_config(&pc);
	pc.filter.comms = c->comms;
	if (c->off_cpu)
		pc.filter.time_mode = OFFCPU_MODE_OFF_CPU;
	/* the annotation screen's counts: only annotate's hook is taken, the
	 * sink keeps report's configuration */
	annotate_config_init(&t->acfg);
	t->acfg.quiet = true;
	t->acfg.syms = &t->ann_sym;
	t->acfg.nr_syms = 1;
	{
		struct profile_sink_config asc = pc;
		struct pipeline_config apc;
		memset(&apc, 0, sizeof(apc));
		t->ann = annotate_new(&t->acfg, &asc, &apc);
		pc.on_sample = asc.on_sample;
		pc.on_sample_ctx = asc.on_sample_ctx;
	}
	if (profile_sink_init(&t->ps, &pc, c->off_cpu ? &t->chain : NULL)) {
		snprintf(msg, msglen, "%s", t->ps.errbuf);
		profile_sink_release(&t->ps);
		annotate_free(t->ann);
		free(t);
		return NULL;
	}
	t->sink = (struct sink){ .ctx = t, .begin = top_begin, .sample = top_sample, .end = top_end };
	if (c->off_cpu)
		t->sink.event = top_event;
	if (c->dsos) {
		size_t cap = 0;
		const char *q = c->dsos;
		while (*q) {
			const char *e = strchr(q, ',');
			size_t len = e ? (size_t)(e - q) : strlen(q);
			if (len && !ARRAY_GROW(t->dso_list, cap, t->nr_dso + 1, 4096))
				t->dso_list[t->nr_dso++] = xstrndup(q, len);
			q += len;
			if (*q)
				q++;
		}
	}
	return t;
}

void top_free(struct top *t)
{
	if (!t)
		return;
	report_entries_release(&t->es);
	free(t->ne);
	free(t->rows);
	free(t->dec);
	free(t->prev);
	free(t->snap_nodes);
	free(t->snap_frames);
	free(t->tree_text);
	annotate_free(t->ann);
	for (size_t i = 0; i < t->nr_dso; i++)
		free(t->dso_list[i]);
	free(t->dso_list);
	profile_sink_release(&t->ps);
	free(t);
}

struct sink *top_sink(struct top *t) { return &t->sink; }
void top_set_end_hook(struct top *t, void (*fn)(void *ctx), void *ctx)
{
	t->end_hook = fn;
	t->end_ctx = ctx;
}
bool top_paused(const struct top *t) { return t->paused; }

/* ---- the windows ---- */

static void decay(struct top *t)
{
	const struct profile *p = &t->ps.prof;
	if (ARRAY_GROW(t->dec, t->cap_dec, p->nr_nodes, PROFILE_MAX_NODES) ||
	    ARRAY_GROW(t->prev, t->cap_prev, p->nr_nodes, PROFILE_MAX_NODES))
		return; /* out of memory: keep the old window */
	for (size_t i = 0; i < p->nr_nodes; i++) {
		const struct pnode *n = &p->nodes[i];
		struct pnode *d = &t->dec[i];
		struct counts *pv = &t->prev[i];
		if (i >= t->nr_dec) {
			*d = *n;
			d->self_samples = d->self_period = d->samples = d->period = 0;
			memset(pv, 0, sizeof(*pv));
		} else {
			/* links of old nodes change when children are added */
			d->first_child = n->first_child;
			d->next_sibling = n->next_sibling;
			d->self_samples = d->self_samples * 7 / 8;
			d->self_period = d->self_period * 7 / 8;
			d->samples = d->samples * 7 / 8;
			d->period = d->period * 7 / 8;
		}
		d->self_samples += n->self_samples - pv->self_samples;
		d->self_period += n->self_period - pv->self_period;
		d->samples += n->samples - pv->samples;
		d->period += n->period - pv->period;
		*pv = (struct counts){ n->self_samples, n->self_period, n->samples, n->period };
	}
	t->nr_dec = p->nr_nodes;
}

static bool dso_shown(const struct top *t, const char *dso)
{
	if (!t->nr_dso && !t->zoom_dso)
		return true;
	if (t->zoom_dso && dso != t->zoom_dso)
		return false;
	if (!t->nr_dso)
		return true;
	const char *b = dso ? profile_basename(dso) : "[unknown]";
	for (size_t i = 0; i < t->nr_dso; i++)
		if (!strcmp(b, t->dso_list[i]))
			return true;
	return false;
}

static uint64_t entry_value(const struct top *t, const struct report_entry *x)
{
	return t->cfg.children ? x->total_period : x->self_period;
}

/* Entries again from the window shown, filtered; keep the selection. */
static void snapshot(struct top *t)
{
	report_entries_release(&t->es);
	free(t->ne);
	t->ne = NULL;
	const struct profile *src = &t->ps.prof;
	const struct pnode *nodes = t->cfg.since_start ? src->nodes : t->dec;
	size_t nn = t->cfg.since_start ? src->nr_nodes : t->nr_dec;
	memset(&t->view, 0, sizeof(t->view));
	if (ARRAY_GROW(t->snap_nodes, t->cap_snap_nodes, nn + 1, PROFILE_MAX_NODES) ||
	    ARRAY_GROW(t->snap_frames, t->cap_snap_frames, src->nr_frames + 1, PROFILE_MAX_FRAMES))
		nn = 0;
	if (nn) {
		memcpy(t->snap_nodes, nodes, nn * sizeof(*nodes));
		memcpy(t->snap_frames, src->frames, src->nr_frames * sizeof(*src->frames));
		t->view.nodes = t->snap_nodes;
		t->view.nr_nodes = nn;
		t->view.frames = t->snap_frames;
		t->view.nr_frames = src->nr_frames;
	}
	struct report_config rc;
	report_config_init(&rc);
	rc.children = t->cfg.children;
	if (report_entries(&t->view, &rc, &t->es, &t->ne))
		memset(&t->es, 0, sizeof(t->es));
	t->total = t->view.nr_nodes ? t->view.nodes[0].period : 0;
	t->nr_rows = 0;
	size_t sel = SIZE_MAX;
	for (size_t i = 0; i < t->es.n; i++) {
		const struct report_entry *x = &t->es.v[i];
		if (!entry_value(t, x))
			continue; /* aged out (decaying window) */
		if (t->zoom_comm && x->comm != t->zoom_comm)
			continue;
		if (!dso_shown(t, x->dso))
			continue;
		if (ARRAY_GROW(t->rows, t->cap_rows, t->nr_rows + 1, PROFILE_MAX_NODES))
			break;
		if (x->comm == t->sel_comm && x->dso == t->sel_dso && x->sym == t->sel_sym)
			sel = t->nr_rows;
		t->rows[t->nr_rows++] = i;
	}
	if (sel != SIZE_MAX)
		t->sel = sel;
	else if (t->sel >= t->nr_rows)
		t->sel = t->nr_rows ? t->nr_rows - 1 : 0;
	t->have_snapshot = true;
}

static void remember_sel(struct top *t)
{
	if (t->sel < t->nr_rows) {
		const struct report_entry *x = &t->es.v[t->rows[t->sel]];
		t->sel_comm = x->comm;
		t->sel_dso = x->dso;
		t->sel_sym = x->sym;
	}
}

void top_refresh(struct top *t)
{
	decay(t);
	if (!t->paused)
		snapshot(t);
}

/* ---- the call tree screen ---- */

static void build_tree_text(struct top *t, int width)
{
	free(t->tree_text);
	t->tree_text = NULL;
	t->tree_lines = t->tree_first = 0;
	if (t->sel >= t->nr_rows)
		return;
	size_t i = t->rows[t->sel];
	const struct report_entry *x = &t->es.v[i];
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return;
	struct report_config rc;
	report_config_init(&rc);
	rc.children = t->cfg.children;
	rc.width = width;
	rc.tree_limit = 0.5;
	double pct = t->total ? 100.0 * (double)entry_value(t, x) / (double)t->total : 0;
	fprintf(f, "%s  (%s)  %s %.2f%%  command %s\n\n", x->sym ? x->sym : "[unknown]",
		x->dso ? profile_basename(x->dso) : "[unknown]", t->cfg.children ? "children" : "self",
		pct, x->comm ? x->comm : "-");
	fprintf(f, "Calls (callees), %% of all samples:\n");
	report_write_entry_tree(f, &t->view, &t->es, t->ne, i, false, &rc, t->total);
	fprintf(f, "\nCalled from (callers):\n");
	report_write_entry_tree(f, &t->view, &t->es, t->ne, i, true, &rc, t->total);
	fclose(f);
	t->tree_text = text;
	for (size_t k = 0; k < len; k++)
		if (text[k] == '\n')
			t->tree_lines++;
}

/* The annotation of the selected symbol, as scorch annotate writes it, from
 * the samples since the start (only while the pipeline's strings live). */
static void build_ann_text(struct top *t)
{
	if (!t->ps.pipeline || !t->ann_sym)
		return;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return;
	annotate_write(t->ann, &t->ps, f);
	fclose(f);
	free(t->tree_text);
	t->tree_text = text;
	t->tree_lines = 0;
	for (size_t k = 0; k < len; k++)
		if (text[k] == '\n')
			t->tree_lines++;
	if (t->tree_first >= t->tree_lines)
		t->tree_first = t->tree_lines ? t->tree_lines - 1 : 0;
}

/* ---- keys ---- */

enum top_action top_key(struct top *t, int key, int height)
{
	int page = height > 6 ? height - 5 : 1;
	if (t->tree) {
		switch (key) {
		case 'q': case 'h': case 'a': case TOP_KEY_ESC: case TOP_KEY_LEFT: case TOP_KEY_ENTER: case 127:
			t->tree = false;
			t->ann_screen = false;
			return TOP_REDRAW;
		case TOP_KEY_UP: case 'k':
			if (t->tree_first)
				t->tree_first--;
			return TOP_REDRAW;
		case TOP_KEY_DOWN: case 'j':
			if (t->tree_first + 1 < t->tree_lines)
				t->tree_first++;
			return TOP_REDRAW;
		case TOP_KEY_PGUP:
			t->tree_first = t->tree_first > (size_t)page ? t->tree_first - (size_t)page : 0;
			return TOP_REDRAW;
		case TOP_KEY_PGDN:
			if (t->tree_first + (size_t)page < t->tree_lines)
				t->tree_first += (size_t)page;
			return TOP_REDRAW;
		case 'p':
			t->paused = !t->paused;
			return TOP_REDRAW;
		}
		return TOP_NONE;
	}
	switch (key) {
	case 'q':
		return TOP_QUIT;
	case TOP_KEY_UP: case 'k':
		if (t->sel)
			t->sel--;
		break;
	case TOP_KEY_DOWN: case 'j':
		if (t->sel + 1 < t->nr_rows)
			t->sel++;
		break;
	case TOP_KEY_PGUP:
		t->sel = t->sel > (size_t)page ? t->sel - (size_t)page : 0;
		break;
	case TOP_KEY_PGDN:
		t->sel += (size_t)page;
		if (t->sel >= t->nr_rows)
			t->sel = t->nr_rows ? t->nr_rows - 1 : 0;
		break;
	case TOP_KEY_HOME:
		t->sel = 0;
		break;
	case TOP_KEY_END:
		t->sel = t->nr_rows ? t->nr_rows - 1 : 0;
		break;
	case 's':
		t->cfg.children = !t->cfg.children;
		remember_sel(t);
		snapshot(t);
		return TOP_REDRAW;
	case 'w':
		t->cfg.since_start = !t->cfg.since_start;
		remember_sel(t);
		snapshot(t);
		return TOP_REDRAW;
	case 'c':
		if (t->zoom_comm)
			t->zoom_comm = NULL;
		else if (t->sel < t->nr_rows)
			t->zoom_comm = t->es.v[t->rows[t->sel]].comm;
		remember_sel(t);
		snapshot(t);
		return TOP_REDRAW;
	case 'd':
		if (t->zoom_dso)
			t->zoom_dso = NULL;
		else if (t->sel < t->nr_rows)
			t->zoom_dso = t->es.v[t->rows[t->sel]].dso;
		remember_sel(t);
		snapshot(t);
		return TOP_REDRAW;
	case 'p':
		t->paused = !t->paused;
		return TOP_REDRAW;
	case 'a':
		if (t->sel < t->nr_rows && t->es.v[t->rows[t->sel]].sym) {
			const struct report_entry *x = &t->es.v[t->rows[t->sel]];
			t->ann_sym = x->sym;
			t->acfg.dso = x->dso;
			t->tree = t->ann_screen = true;
			t->tree_first = 0;
			free(t->tree_text);
			t->tree_text = NULL; /* written at the next render */
			t->tree_lines = 0;
		}
		return TOP_REDRAW;
	case TOP_KEY_ENTER: case TOP_KEY_RIGHT:
		if (t->sel < t->nr_rows) {
			t->tree = true;
			t->tree_first = 0;
			free(t->tree_text);
			t->tree_text = NULL; /* built at the next render, at its width */
			t->tree_lines = 0;
		}
		return TOP_REDRAW;
	default:
		return TOP_NONE;
	}
	remember_sel(t);
	return TOP_REDRAW;
}

/* ---- rendering ---- */

static void put(struct buf *out, const char *s, size_t n)
{
	buf_append(out, s, n);
}

static void putf(struct buf *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct buf *out, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		put(out, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* s cut or padded to exactly w columns (control characters shown as '?'). */
static void put_cell(struct buf *out, const char *s, int w, bool pad)
{
	int n = 0;
	for (; s && *s && n < w; s++, n++) {
		char c = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
		put(out, &c, 1);
	}
	if (s && *s && n == w && w > 0) {
		out->len--; /* cut: the last column shows it */
		put(out, "+", 1);
	}
	while (pad && n++ < w)
		put(out, " ", 1);
}

static void header_line(const struct top *t, const struct top_status *st, char *line, size_t n)
{
	char freq[32];
	if (st->freq)
		snprintf(freq, sizeof(freq), "%" PRIu64 " Hz", st->freq);
	else
		snprintf(freq, sizeof(freq), "period");
	snprintf(line, n,
		 "scorch top: %s %s %s | %" PRIu64 " samples, %.0f/s | lost %" PRIu64
		 " | scorch CPU %.1f%%",
		 st->event ? st->event : "?", freq, st->call_graph ? st->call_graph : "none",
		 st->samples, st->rate, st->lost, st->cpu_pct);
}

static void mode_line(const struct top *t, const struct top_status *st, char *line, size_t n)
{
	char ref[32] = "";
	if (st)
		snprintf(ref, sizeof(ref), "refresh %u | ", st->refresh);
	snprintf(line, n, "%swindow: %s | sort: %s%s%s%s%s%s", ref,
		 t->cfg.since_start ? "since start" : "decaying",
		 t->cfg.children ? "children" : "self", t->zoom_comm ? " | command: " : "",
		 t->zoom_comm ? t->zoom_comm : "", t->zoom_dso ? " | dso: " : "",
		 t->zoom_dso ? profile_basename(t->zoom_dso) : "", t->paused ? " | PAUSED" : "");
}

/* One entry row (no newline), exactly width columns. */
static void entry_row(const struct top *t, size_t r, int width, struct buf *out)
{
	const struct report_entry *x = &t->es.v[t->rows[r]];
	double self = t->total ? 100.0 * (double)x->self_period / (double)t->total : 0;
	double chil = t->total ? 100.0 * (double)x->total_period / (double)t->total : 0;
	int wcomm = width >= 100 ? 16 : 12, wdso = width >= 100 ? 22 : 17;
	putf(out, "%7.2f%% %7.2f%%  ", self, chil);
	int used = 20;
	put_cell(out, x->comm ? x->comm : "-", wcomm, true);
	put(out, "  ", 2);
	put_cell(out, x->dso ? profile_basename(x->dso) : "[unknown]", wdso, true);
	put(out, "  ", 2);
	used += wcomm + wdso + 4;
	char sym[600];
	snprintf(sym, sizeof(sym), "%s%s", x->sym ? x->sym : "[unknown]",
		 x->kind == PF_KERNEL || x->kind == PF_GUEST_KERNEL ? " [k]" : "");
	put_cell(out, sym, width - used > 0 ? width - used : 0, true);
}

static const char col_head_fmt[] = "%8s %8s  %-*s  %-*s  %s";

void top_render(struct top *t, const struct top_status *st, int width, int height, struct buf *out)
{
	if (width < 40)
		width = 40;
	if (height < 6)
		height = 6;
	if (!t->have_snapshot)
		snapshot(t);
	char line[1024];
	put(out, "\033[H", 3);
	/* line 1: the header, reverse video */
	header_line(t, st, line, sizeof(line));
	put(out, "\033[7m", 4);
	put_cell(out, line, width, true);
	put(out, "\033[0m\033[K\r\n", 9);
	mode_line(t, st, line, sizeof(line));
	put_cell(out, line, width, false);
	put(out, "\033[K\r\n", 5);
	int body = height - 4; /* header, mode, column heads / title, footer */
	if (t->tree) {
		if (t->ann_screen && (!t->tree_text || !t->paused))
			build_ann_text(t);
		else if (!t->tree_text)
			build_tree_text(t, width);
		put(out, "\033[1m", 4);
		put_cell(out, t->ann_screen ? "Annotation, samples since the start (Up/Down scroll, Esc or a back)"
					    : "Call tree (Up/Down scroll, Esc or Enter back)",
			 width, false);
		put(out, "\033[0m\033[K\r\n", 9);
		const char *p = t->tree_text ? t->tree_text : "";
		for (size_t skip = t->tree_first; skip && *p; skip--) {
			const char *nl = strchr(p, '\n');
			p = nl ? nl + 1 : p + strlen(p);
		}
		for (int r = 0; r < body; r++) {
			if (*p) {
				const char *nl = strchr(p, '\n');
				size_t len = nl ? (size_t)(nl - p) : strlen(p);
				char tmp[1024];
				snprintf(tmp, sizeof(tmp), "%.*s", (int)(len < sizeof(tmp) ? len : sizeof(tmp) - 1), p);
				put_cell(out, tmp, width, false);
				p = nl ? nl + 1 : p + len;
			}
			put(out, "\033[K\r\n", 5);
		}
	} else {
		int wcomm = width >= 100 ? 16 : 12, wdso = width >= 100 ? 22 : 17;
		snprintf(line, sizeof(line), col_head_fmt, "Self", "Children", wcomm, "Command", wdso,
			 "Shared Object", "Symbol");
		put(out, "\033[1m", 4);
		put_cell(out, line, width, false);
		put(out, "\033[0m\033[K\r\n", 9);
		if (t->sel < t->first)
			t->first = t->sel;
		if (t->sel >= t->first + (size_t)body)
			t->first = t->sel - (size_t)body + 1;
		if (t->first && t->first + (size_t)body > t->nr_rows)
			t->first = t->nr_rows > (size_t)body ? t->nr_rows - (size_t)body : 0;
		for (int r = 0; r < body; r++) {
			size_t i = t->first + (size_t)r;
			if (i < t->nr_rows) {
				if (i == t->sel)
					put(out, "\033[7m", 4);
				entry_row(t, i, width, out);
				if (i == t->sel)
					put(out, "\033[0m", 4);
			} else if (r == 0) {
				put_cell(out, "  (no samples yet)", width, false);
			}
			put(out, "\033[K\r\n", 5);
		}
	}
	put(out, "\033[7m", 4);
	put_cell(out, t->tree ? "Up/Down scroll  Esc/Enter back  p pause"
			      : "Up/Down select  Enter call tree  a annotate  s self/children  w window  "
				"c command  d dso  p pause  q quit",
		 width, true);
	put(out, "\033[0m\033[J", 7);
}

void top_render_stdio(struct top *t, const struct top_status *st, int width, struct buf *out)
{
	if (width < 40)
		width = 40;
	if (!t->have_snapshot)
		snapshot(t);
	char line[1024];
	header_line(t, st, line, sizeof(line));
	putf(out, "# refresh %u at %.1f s: %s\n# ", st->refresh, st->elapsed, line);
	mode_line(t, NULL, line, sizeof(line));
	putf(out, "%s\n", line);
	int wcomm = width >= 100 ? 16 : 12, wdso = width >= 100 ? 22 : 17;
	snprintf(line, sizeof(line), col_head_fmt, "Self", "Children", wcomm, "Command", wdso,
		 "Shared Object", "Symbol");
	putf(out, "%s\n", line);
	size_t n = t->nr_rows < (size_t)t->cfg.stdio_lines ? t->nr_rows : (size_t)t->cfg.stdio_lines;
	for (size_t i = 0; i < n; i++) {
		size_t before = out->len;
		entry_row(t, i, width, out);
		while (out->len > before && out->data[out->len - 1] == ' ')
			out->len--;
		put(out, "\n", 1);
	}
	if (!n)
		put(out, "  (no samples yet)\n", 19);
	put(out, "\n", 1);
}
