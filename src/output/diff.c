/*
 * diff.c: see diff.h.
 *
 * Canonical copy: one pass over the collected profile's frames (fold the
 * name, intern name and DSO basename, intern the frame), then one pass over
 * its nodes in index order (a child always follows its parent), so a
 * node's canonical parent is known when it is reached. The table is two
 * report_entries() calls (report.c's grouping by comm/dso/sym, children
 * counted once per sample) joined by their key pointers after sorting both
 * by those pointers; the rest is formatting.
 */
#include "output/diff.h"
#include "output/folded.h"
#include "output/report.h"
#include "util/buf.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void diff_init(struct diff *d)
{
	memset(d, 0, sizeof(*d));
	profile_init(&d->names);
	profile_init(&d->side[0].prof);
	profile_init(&d->side[1].prof);
}

void diff_release(struct diff *d)
{
	profile_release(&d->side[0].prof);
	profile_release(&d->side[1].prof);
	profile_release(&d->names);
	memset(d, 0, sizeof(*d));
}

/* ---- names ---- */

/* A component of a clone suffix: GCC's cold/isra/part/constprop/lto_priv/
 * clone/localalias/..., LLVM's llvm, and their numbers. */
static bool clone_word(const char *s, size_t n)
{
	static const char *const words[] = {
		"cold", "isra", "part", "constprop", "lto_priv", "clone", "localalias",
		"llvm", "specialized", "mergedfunc",
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == n && !memcmp(words[i], s, n))
			return true;
	return false;
}

static bool all_digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* Length of name without a trailing ".word[.N]..." clone suffix: the
 * first '.' from which every component is a clone word or a number, the
 * first of them a word. */
static size_t fold_dots(const char *name, size_t len)
{
	for (size_t i = 1; i < len; i++) {
		if (name[i] != '.')
			continue;
		size_t j = i + 1, k;
		bool ok = true, first = true;
		while (j <= len) {
			for (k = j; k < len && name[k] != '.'; k++)
				;
			size_t n = k - j;
			if (!(clone_word(name + j, n) || (!first && all_digits(name + j, n)))) {
				ok = false;
				break;
			}
			first = false;
			j = k + 1;
		}
		if (ok)
			return i;
	}
	return len;
}

size_t diff_fold_name(const char *name, char *out, size_t n)
{
	if (!n)
		return 0;
	size_t len = strlen(name);
	if (name[0] != '[' && strncmp(name, "0x", 2)) {
		/* " [clone .isra.0]" (a demangler with parameters), repeated */
		static const char tag[] = " [clone .";
		for (;;) {
			if (len < sizeof(tag) || name[len - 1] != ']')
				break;
			const char *t = NULL;
			for (size_t i = len; i-- > 0;)
				if (name[i] == ' ' && !strncmp(name + i, tag, sizeof(tag) - 1)) {
					t = name + i;
					break;
				}
			if (!t)
				break;
			len = (size_t)(t - name);
		}
		len = fold_dots(name, len);
	}
	if (len >= n)
		len = n - 1;
	memcpy(out, name, len);
	out[len] = 0;
	return len;
}

/* ---- canonical copy ---- */

static const char *intern(struct diff *d, const char *s)
{
	return profile_str(&d->names, s);
}

int diff_take(struct diff *d, int side, const struct profile_sink *s, const char *input)
{
	if (side != DIFF_BASE && side != DIFF_NEW)
		return -EINVAL;
	struct diff_side *ds = &d->side[side];
	const struct profile *p = &s->prof;
	profile_release(&ds->prof);
	profile_init(&ds->prof);
	ds->input = input;
	ds->event = intern(d, s->event_name ? s->event_name : "");
	ds->unit_ns = profile_sink_period_is_ns(s);
	ds->samples_filtered = s->samples_filtered;
	ds->samples_other_event = s->samples_other_event;
	uint32_t *fmap = xcalloc(p->nr_frames ? p->nr_frames : 1, sizeof(uint32_t));
	char name[1024];
	for (size_t i = 0; i < p->nr_frames; i++) {
		const struct pframe *f = &p->frames[i];
		struct pframe cf = { .kind = f->kind, .unknown = f->unknown };
		if (f->kind == PF_COMM || f->kind == PF_THREAD) {
			/* threads differ between runs: match per command */
			cf.kind = PF_COMM;
			cf.name = intern(d, f->name);
		} else {
			diff_fold_name(f->name, name, sizeof(name));
			cf.name = intern(d, name);
			cf.dso = f->dso ? intern(d, profile_basename(f->dso)) : NULL;
		}
		fmap[i] = profile_frame(&ds->prof, &cf);
	}
	uint32_t *nmap = xcalloc(p->nr_nodes, sizeof(uint32_t));
	nmap[0] = 0;
	for (size_t i = 1; i < p->nr_nodes; i++) {
		const struct pnode *n = &p->nodes[i];
		uint32_t par = nmap[n->parent], cf = fmap[n->frame];
		if (n->parent && ds->prof.nodes[par].frame == cf && p->nodes[n->parent].frame != n->frame)
			nmap[i] = par; /* "f" -> "f.cold": one function */
		else
			nmap[i] = profile_child(&ds->prof, par, cf);
		if (n->self_samples || n->self_period)
			profile_add(&ds->prof, nmap[i], n->self_samples, n->self_period);
	}
	free(nmap);
	free(fmap);
	ds->taken = true;
	return 0;
}

uint32_t *diff_match(const struct diff *d, int from)
{
	const struct profile *a = &d->side[from].prof, *b = &d->side[!from].prof;
	uint32_t *fm = xcalloc(a->nr_frames ? a->nr_frames : 1, sizeof(uint32_t));
	for (size_t i = 0; i < a->nr_frames; i++)
		fm[i] = profile_frame_find(b, &a->frames[i]);
	uint32_t *m = xcalloc(a->nr_nodes, sizeof(uint32_t));
	m[0] = 0;
	for (size_t i = 1; i < a->nr_nodes; i++) {
		uint32_t par = m[a->nodes[i].parent];
		m[i] = par == PROFILE_NONE ? PROFILE_NONE : profile_child_find(b, par, fm[a->nodes[i].frame]);
	}
	free(fm);
	return m;
}

/* ---- the table ---- */

void diff_config_init(struct diff_config *c)
{
	memset(c, 0, sizeof(*c));
	c->sort = "dso,sym";
	c->top = -1;
	c->width = 100;
}

int diff_check_config(const struct diff_config *c, char *err, size_t errlen)
{
	struct report_config rc;
	report_config_init(&rc);
	rc.sort = c->sort;
	return report_check_config(&rc, err, errlen);
}

static int cmp_key(const void *a, const void *b)
{
	const struct report_entry *x = a, *y = b;
	if (x->comm != y->comm)
		return (uintptr_t)x->comm < (uintptr_t)y->comm ? -1 : 1;
	if (x->dso != y->dso)
		return (uintptr_t)x->dso < (uintptr_t)y->dso ? -1 : 1;
	if (x->sym != y->sym)
		return (uintptr_t)x->sym < (uintptr_t)y->sym ? -1 : 1;
	return 0;
}

static int cmp_row(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;
	double dx = fabs(x->delta), dy = fabs(y->delta);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	double mx = fmax(x->base_pct, x->new_pct), my = fmax(y->base_pct, y->new_pct);
	if (mx != my)
		return mx > my ? -1 : 1;
	int r = strcmp(x->sym ? x->sym : "", y->sym ? y->sym : "");
	if (!r)
		r = strcmp(x->dso ? x->dso : "", y->dso ? y->dso : "");
	if (!r)
		r = strcmp(x->comm ? x->comm : "", y->comm ? y->comm : "");
	return r;
}

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

int diff_rows(const struct diff *d, bool children, const char *sort, bool absolute,
	      struct diff_rows *out)
{
	struct report_config rc;
	struct report_entries e[2];
	memset(out, 0, sizeof(*out));
	report_config_init(&rc);
	rc.children = children;
	rc.sort = sort;
	for (int s = 0; s < 2; s++) {
		int r = report_entries(&d->side[s].prof, &rc, &e[s], NULL);
		if (r) {
			if (s)
				report_entries_release(&e[0]);
			return r;
		}
		if (e[s].n)
			qsort(e[s].v, e[s].n, sizeof(*e[s].v), cmp_key);
	}
	uint64_t bt = d->side[0].prof.period, nt = d->side[1].prof.period;
	size_t cap = e[0].n + e[1].n;
	out->v = xcalloc(cap ? cap : 1, sizeof(*out->v));
	size_t i = 0, j = 0;
	while (i < e[0].n || j < e[1].n) {
		const struct report_entry *x = i < e[0].n ? &e[0].v[i] : NULL;
		const struct report_entry *y = j < e[1].n ? &e[1].v[j] : NULL;
		int c = !x ? 1 : !y ? -1 : cmp_key(x, y);
		const struct report_entry *k = c <= 0 ? x : y;
		struct diff_row *row = &out->v[out->n++];
		*row = (struct diff_row){ .comm = k->comm, .dso = k->dso, .sym = k->sym, .kind = k->kind };
		if (c <= 0) {
			row->base = children ? x->total_period : x->self_period;
			i++;
		}
		if (c >= 0) {
			row->new = children ? y->total_period : y->self_period;
			j++;
		}
		/* report's entries include callers with no self time */
		row->in_base = row->base > 0;
		row->in_new = row->new > 0;
		if (!row->in_base && !row->in_new) {
			out->n--;
			continue;
		}
		row->base_pct = pct(row->base, bt);
		row->new_pct = pct(row->new, absolute ? bt : nt);
		row->delta = row->new_pct - row->base_pct;
	}
	report_entries_release(&e[0]);
	report_entries_release(&e[1]);
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), cmp_row);
	return 0;
}

void diff_rows_release(struct diff_rows *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

static void fmt_time(char *buf, size_t n, uint64_t v, bool ns)
{
	if (!ns)
		snprintf(buf, n, "%" PRIu64, v);
	else if (v >= 1000000000ull)
		snprintf(buf, n, "%.3f s", (double)v / 1e9);
	else if (v >= 1000000)
		snprintf(buf, n, "%.1f ms", (double)v / 1e6);
	else
		snprintf(buf, n, "%.1f us", (double)v / 1e3);
}

/* Print s in w columns, cut with ".." when longer (last: no padding). */
static void put_col(FILE *out, const char *s, int w, bool last)
{
	int len = (int)strlen(s);
	if (len > w && w > 2)
		fprintf(out, "%.*s..", w - 2, s);
	else if (last)
		fputs(s, out);
	else
		fprintf(out, "%-*s", w, s);
}

/* CSV field (RFC 4180: quoted when it holds a comma, quote or newline). */
static void csv_put(FILE *out, const char *s)
{
	s = s ? s : "";
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	putc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', out);
		putc(*s, out);
	}
	putc('"', out);
}

struct layout {
	bool comm, dso, sym, ns;
	int wcomm, wdso, width;
};

static void text_header(FILE *out, const struct layout *l, bool children)
{
	fprintf(out, "#%s      New     Delta  %10s  %10s", children ? " Base tot" : " Baseline",
		"Base time", "New time");
	if (l->comm)
		fprintf(out, "  %-*s", l->wcomm, "Command");
	if (l->dso && l->sym)
		fprintf(out, "  %-*s", l->wdso, "Shared Object");
	else if (l->dso)
		fputs("  Shared Object", out);
	if (l->sym)
		fputs("  Symbol", out);
	putc('\n', out);
}

static const char *kind_tag(uint8_t kind)
{
	return kind == PF_KERNEL || kind == PF_GUEST_KERNEL ? "[k] " : kind == PF_HV ? "[H] " : "[.] ";
}

static void text_row(FILE *out, const struct layout *l, const struct diff_row *r)
{
	char b[32], n[32], tb[32], tn[32], line[160];
	snprintf(b, sizeof(b), r->in_base ? "%.2f%%" : "-", r->base_pct);
	snprintf(n, sizeof(n), r->in_new ? "%.2f%%" : "-", r->new_pct);
	if (r->in_base)
		fmt_time(tb, sizeof(tb), r->base, l->ns);
	else
		snprintf(tb, sizeof(tb), "-");
	if (r->in_new)
		fmt_time(tn, sizeof(tn), r->new, l->ns);
	else
		snprintf(tn, sizeof(tn), "-");
	int o = snprintf(line, sizeof(line), "  %8s %8s  %+7.2f%%  %10s  %10s", b, n, r->delta, tb, tn);
	fputs(line, out);
	if (l->comm) {
		fputs("  ", out);
		put_col(out, r->comm ? r->comm : "", l->wcomm, false);
		o += 2 + l->wcomm;
	}
	if (l->dso) {
		fputs("  ", out);
		put_col(out, r->dso ? r->dso : "[unknown]", l->wdso, !l->sym);
		o += 2 + l->wdso;
	}
	if (l->sym) {
		char sym[1100];
		snprintf(sym, sizeof(sym), "%s%s", kind_tag(r->kind), r->sym ? r->sym : "");
		int w = l->width - o - 2;
		fputs("  ", out);
		put_col(out, sym, w < 16 ? 16 : w, true);
	}
	putc('\n', out);
}

static void csv_header(FILE *out, const struct layout *l)
{
	fprintf(out, "%ssymbol,dso,base_pct,new_pct,delta_pct,base_ns,new_ns\n", l->comm ? "comm," : "");
}

static void csv_row(FILE *out, const struct layout *l, const struct diff_row *r)
{
	if (l->comm) {
		csv_put(out, r->comm);
		putc(',', out);
	}
	csv_put(out, l->sym ? r->sym : "");
	putc(',', out);
	csv_put(out, l->dso ? (r->dso ? r->dso : "[unknown]") : "");
	fprintf(out, ",%.4f,%.4f,%.4f,%" PRIu64 ",%" PRIu64 "\n", r->base_pct, r->new_pct, r->delta,
		r->base, r->new);
}

static void side_line(FILE *out, const char *label, const struct diff_side *s)
{
	char t[32];
	fprintf(out, "# %s %s: %" PRIu64 " samples of '%s'", label, s->input ? s->input : "?",
		s->prof.samples, s->event && s->event[0] ? s->event : "?");
	if (s->unit_ns) {
		fmt_time(t, sizeof(t), s->prof.period, true);
		fprintf(out, ", %s", t);
	} else {
		fprintf(out, ", event count %" PRIu64, s->prof.period);
	}
	putc('\n', out);
}

int diff_write(const struct diff *d, const struct diff_config *c, FILE *out, FILE *err,
	       size_t *nfailed)
{
	struct diff_rows rows;
	int rc = diff_rows(d, c->children, c->sort, c->absolute, &rows);
	if (rc)
		return rc;
	if (nfailed)
		*nfailed = 0;
	struct layout l = { .ns = d->side[0].unit_ns && d->side[1].unit_ns, .width = c->width,
			    .wcomm = 7, .wdso = 13 };
	l.comm = strstr(c->sort, "comm") != NULL;
	l.dso = strstr(c->sort, "dso") != NULL;
	l.sym = strstr(c->sort, "sym") != NULL;
	int top = c->top < 0 ? (c->csv ? 0 : 40) : c->top;
	size_t shown = 0, limit = rows.n;
	for (size_t i = 0; i < rows.n; i++) {
		const struct diff_row *r = &rows.v[i];
		if (fmax(r->base_pct, r->new_pct) < c->percent_limit)
			continue;
		if (top > 0 && shown >= (size_t)top) {
			limit = i;
			break;
		}
		if (r->comm && (int)strlen(r->comm) > l.wcomm)
			l.wcomm = (int)strlen(r->comm);
		if (r->dso && (int)strlen(r->dso) > l.wdso)
			l.wdso = (int)strlen(r->dso);
		shown++;
	}
	if (l.wcomm > 15)
		l.wcomm = 15;
	if (l.wdso > 20)
		l.wdso = 20;
	if (c->csv) {
		csv_header(out, &l);
	} else {
		fprintf(out, "# scorch diff%s\n", c->absolute ? " --absolute" : "");
		side_line(out, "Baseline:", &d->side[0]);
		side_line(out, "New:     ", &d->side[1]);
		fprintf(out, "# %s time per %s; Delta in points of %s;\n"
			"# sorted by the absolute change\n#\n",
			c->children ? "Total (children)" : "Self",
			l.sym ? "symbol" : l.dso ? "shared object" : "command",
			c->absolute ? "the baseline's total (time)" : "each side's total (shares)");
		text_header(out, &l, c->children);
	}
	shown = 0;
	for (size_t i = 0; i < limit; i++) {
		const struct diff_row *r = &rows.v[i];
		if (fmax(r->base_pct, r->new_pct) < c->percent_limit)
			continue;
		if (c->csv)
			csv_row(out, &l, r);
		else
			text_row(out, &l, r);
		shown++;
	}
	if (!c->csv && shown < rows.n)
		fprintf(out, "# (%zu more below %s: --top, --percent-limit)\n", rows.n - shown,
			limit < rows.n ? "the top" : "the limit");
	if (c->fail_set) {
		/* always on self time, whatever the table shows */
		struct diff_rows self;
		if (c->children) {
			rc = diff_rows(d, false, c->sort, c->absolute, &self);
			if (rc) {
				diff_rows_release(&rows);
				return rc;
			}
		} else {
			self = rows;
		}
		size_t nf = 0;
		for (size_t i = 0; i < self.n; i++)
			if (self.v[i].delta > c->fail_above)
				nf++;
		if (nf && err) {
			fprintf(err, "scorch: diff: %zu %s grew by more than %g points of self time "
				"(--fail-above):\n", nf, nf == 1 ? "entry" : "entries", c->fail_above);
			if (c->csv)
				csv_header(err, &l);
			else
				text_header(err, &l, false);
			for (size_t i = 0; i < self.n; i++) {
				if (self.v[i].delta <= c->fail_above)
					continue;
				if (c->csv)
					csv_row(err, &l, &self.v[i]);
				else
					text_row(err, &l, &self.v[i]);
			}
		}
		if (nfailed)
			*nfailed = nf;
		if (c->children)
			diff_rows_release(&self);
	}
	diff_rows_release(&rows);
	return ferror(out) ? -EIO : 0;
}

/* ---- folded ---- */

int diff_write_folded(const struct diff *d, bool by_period, bool annotate, FILE *out)
{
	uint32_t *n2b = diff_match(d, DIFF_NEW), *b2n = diff_match(d, DIFF_BASE);
	struct folded_config fc = { .period = by_period, .annotate = annotate };
	int rc = folded_write_diff(&d->side[DIFF_BASE].prof, &d->side[DIFF_NEW].prof, n2b, b2n, &fc, out);
	free(n2b);
	free(b2n);
	return rc;
}
