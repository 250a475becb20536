/*
 * annotate.c: see annotate.h.
 *
 * Counting: per DSO (the resolver's dso_handle), per symbol (the resolver's
 * name pointer: interned, so one pointer per symbol), per address; three
 * exact-key hash maps, no string work per sample. Addresses are the DSO's
 * file offsets (rel) for ELF frames, the absolute ip for the rest (perf
 * maps, the kernel).
 *
 * Writing opens the ELF files again through a struct symbols of its own
 * (symbols.h), with the same search paths and the header's build ids:
 * the resolver's caches are private to it.
 */
#include "output/annotate.h"
#include "analyze/dwarf/inlines.h"
#include "analyze/kernel/kcore.h"
#include "analyze/kernel/kident.h"
#include "analyze/symbols/symbols.h"
#include "output/disasm.h"
#include "util/hash.h"
#include "util/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ANNOTATE_MAX_SYM_BYTES (16u << 20) /* a larger "function" is not disassembled */
#define ANNOTATE_MAX_SOURCE (64u << 20)    /* source files larger than this are not read */

struct acount {
	uint64_t addr, samples, period;
};

struct asym {
	uint32_t dso;
	const char *name;
	uint64_t start;          /* rel (ELF) or address */
	uint64_t samples, period;
	struct hmap at;          /* addr -> index + 1 in c */
	struct acount *c;
	size_t n, cap;
};

struct adso {
	const void *handle;
	const char *name;        /* as the frames name it */
	const char *filename;    /* the map's file (ELF frames), else NULL */
	uint8_t bid[20], bid_size;
	uint8_t kind;            /* enum frame_kind */
	bool elf;                /* an ELF DSO (dso_ident != 0) */
	uint64_t nosym_samples, nosym_period;
	struct hmap syms;        /* name pointer -> index + 1 in a->syms */
	char *reason;            /* why its file was not used (symbols' warning) */
};

struct annotate {
	const struct annotate_config *cfg;
	bool time_mode;          /* --off-cpu, --wall: weights are rs->time_ns */
	struct adso *dsos;
	size_t nr_dsos, cap_dsos;
	struct hmap dso_at;      /* handle -> index + 1 */
	struct asym *syms;
	size_t nr_syms, cap_syms;
	/* writing */
	struct symbols *files;
	struct hmap sources;     /* hash of path -> struct source */
	struct disasm *dis;
	char dis_why[128];
	unsigned dis_machine;
	const char *warn_name;   /* the DSO being opened (its warning's owner) */
	char *warn_msg;
	/* kernel code: the memory image, once decided usable (kcore_why: why not) */
	struct kcore *kcore;
	bool kcore_tried;
	char kcore_why[400];
};

void annotate_config_init(struct annotate_config *c)
{
	memset(c, 0, sizeof(*c));
	c->percent = ANNOTATE_LOCAL_PERIOD;
	c->percent_limit = 0.5;
	c->kcore = "/proc/kcore";
	c->kernel_notes = "/sys/kernel/notes";
}

int annotate_percent_parse(const char *v)
{
	static const char *const names[] = { "local-period", "global-period", "local-hits",
					     "global-hits" };
	for (int i = 0; i < 4; i++)
		if (!strcmp(v, names[i]))
			return i;
	return -1;
}

static const char *percent_name(enum annotate_percent p)
{
	switch (p) {
	case ANNOTATE_GLOBAL_PERIOD: return "global period";
	case ANNOTATE_LOCAL_HITS: return "local hits";
	case ANNOTATE_GLOBAL_HITS: return "global hits";
	default: return "local period";
	}
}

/* ---- collecting ---- */

static uint32_t dso_of(struct annotate *a, const struct frame *fr)
{
	const void *h = fr->dso_handle ? fr->dso_handle : (const void *)fr->dso;
	uintptr_t i = (uintptr_t)hmap_get(&a->dso_at, (uintptr_t)h);
	if (i)
		return (uint32_t)(i - 1);
	if (a->nr_dsos == a->cap_dsos) {
		a->cap_dsos = a->cap_dsos ? a->cap_dsos * 2 : 16;
		a->dsos = xrealloc(a->dsos, a->cap_dsos * sizeof(*a->dsos));
	}
	struct adso *d = &a->dsos[a->nr_dsos];
	memset(d, 0, sizeof(*d));
	d->handle = h;
	d->name = fr->dso;
	d->kind = fr->kind;
	d->elf = fr->dso_ident != 0;
	if (d->elf && fr->map) {
		d->filename = fr->map->filename;
		d->bid_size = fr->map->build_id_size <= 20 ? fr->map->build_id_size : 20;
		memcpy(d->bid, fr->map->build_id, d->bid_size);
	}
	hmap_init(&d->syms);
	hmap_put(&a->dso_at, (uintptr_t)h, (void *)(uintptr_t)(a->nr_dsos + 1));
	return (uint32_t)a->nr_dsos++;
}

static struct asym *sym_of(struct annotate *a, uint32_t di, const struct frame *fr)
{
	struct adso *d = &a->dsos[di];
	uintptr_t i = (uintptr_t)hmap_get(&d->syms, (uintptr_t)fr->sym);
	if (i)
		return &a->syms[i - 1];
	if (a->nr_syms == a->cap_syms) {
		a->cap_syms = a->cap_syms ? a->cap_syms * 2 : 64;
		a->syms = xrealloc(a->syms, a->cap_syms * sizeof(*a->syms));
	}
	struct asym *y = &a->syms[a->nr_syms];
	memset(y, 0, sizeof(*y));
	y->dso = di;
	y->name = fr->sym;
	y->start = d->elf ? fr->sym_start : fr->ip - fr->sym_off;
	hmap_init(&y->at);
	hmap_put(&d->syms, (uintptr_t)fr->sym, (void *)(uintptr_t)(a->nr_syms + 1));
	return &a->syms[a->nr_syms++];
}

static void count_at(struct asym *y, uint64_t addr, uint64_t period)
{
	uintptr_t i = (uintptr_t)hmap_get(&y->at, addr);
	if (!i) {
		if (y->n == y->cap) {
			y->cap = y->cap ? y->cap * 2 : 16;
			y->c = xrealloc(y->c, y->cap * sizeof(*y->c));
		}
		y->c[y->n] = (struct acount){ .addr = addr };
		i = ++y->n;
		hmap_put(&y->at, addr, (void *)i);
	}
	y->c[i - 1].samples++;
	y->c[i - 1].period += period;
	y->samples++;
	y->period += period;
}

/* The sample's weight as the profile counted it (profile_sink_sample). */
static uint64_t weight_of(const struct annotate *a, const struct resolved_sample *rs)
{
	if (a->time_mode)
		return rs->time_ns;
	uint64_t period = rs->ev ? rs->ev->s.period : 0;
	if (!period && rs->attr && !rs->attr->attr.freq)
		period = rs->attr->attr.sample_period;
	return period ? period : 1;
}

static void on_sample(void *ctx, uint32_t leaf, const struct resolved_sample *rs)
{
	struct annotate *a = ctx;
	(void)leaf;
	if (!rs->nr_frames)
		return;
	/* the sampled ip's own function: the outermost frame at that ip */
	uint32_t k = 0;
	while (k + 1 < rs->nr_frames && rs->frames[k].inlined && rs->frames[k + 1].ip == rs->frames[0].ip)
		k++;
	const struct frame *fr = &rs->frames[k];
	if (!fr->dso)
		return;
	uint64_t w = weight_of(a, rs);
	uint32_t di = dso_of(a, fr);
	if (!fr->sym) {
		a->dsos[di].nosym_samples++;
		a->dsos[di].nosym_period += w;
		return;
	}
	struct asym *y = sym_of(a, di, fr);
	count_at(y, a->dsos[di].elf ? fr->rel : fr->ip, w);
}

struct annotate *annotate_new(const struct annotate_config *c, struct profile_sink_config *sc,
			      struct pipeline_config *pc)
{
	struct annotate *a = xcalloc(1, sizeof(*a));
	a->cfg = c;
	a->time_mode = sc->filter.time_mode != OFFCPU_MODE_NONE;
	hmap_init(&a->dso_at);
	hmap_init(&a->sources);
	sc->root = PROFILE_ROOT_NONE;
	sc->inline_frames = false;
	sc->kernel = true;
	sc->by_addr = false;
	sc->on_sample = on_sample;
	sc->on_sample_ctx = a;
	/* the sampled ip is all annotate reads of a sample */
	pc->ip_only = true;
	pc->no_inline = true;
	pc->no_srclines = true;
	return a;
}

/* ---- source files ---- */

struct source {
	char *data;        /* NULL: not readable */
	size_t len;
	uint32_t *line;    /* offset of each line's start */
	uint32_t nlines;
};

static const struct source *source_get(struct annotate *a, const char *path)
{
	uint64_t k = hash_bytes(path, strlen(path));
	struct source *s = hmap_get(&a->sources, k);
	if (s)
		return s;
	s = xcalloc(1, sizeof(*s));
	hmap_put(&a->sources, k, s);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return s;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > ANNOTATE_MAX_SOURCE) {
		close(fd);
		return s;
	}
	s->data = xmalloc_input((size_t)st.st_size + 1, ANNOTATE_MAX_SOURCE + 1);
	if (!s->data) {
		close(fd);
		return s;
	}
	ssize_t got = pread(fd, s->data, (size_t)st.st_size, 0);
	close(fd);
	s->len = got > 0 ? (size_t)got : 0;
	s->data[s->len] = 0;
	size_t n = 1;
	for (size_t i = 0; i < s->len; i++)
		n += s->data[i] == '\n';
	s->line = xmalloc(n * sizeof(*s->line));
	s->line[s->nlines++] = 0;
	for (size_t i = 0; i < s->len; i++)
		if (s->data[i] == '\n')
			s->line[s->nlines++] = (uint32_t)(i + 1);
	return s;
}

/* Where the source file named path (by the debug information) is read:
 * with --prefix, an absolute path loses its first prefix_strip directories
 * (the '/' before what is left stays) and gets the prefix in front, as
 * objdump's --prefix and --prefix-strip (perf annotate's). Returns path
 * itself or buf. */
static const char *source_path(const struct annotate *a, const char *path, char *buf, size_t cap)
{
	const char *pre = a->cfg->prefix;
	if (!pre || path[0] != '/')
		return path;
	const char *rest = path;
	unsigned level = 0;
	for (const char *p = path + 1; *p && level < a->cfg->prefix_strip; p++)
		if (*p == '/') {
			rest = p;
			level++;
		}
	if ((size_t)snprintf(buf, cap, "%s%s", pre, rest) >= cap)
		return path;
	return buf;
}

/* Line l (1-based) of path without its newline and leading blanks, or "". */
static void source_line(struct annotate *a, const char *path, uint32_t l, char *out, size_t cap)
{
	out[0] = 0;
	if (!path || !l)
		return;
	char buf[4096];
	const struct source *s = source_get(a, source_path(a, path, buf, sizeof(buf)));
	if (!s->data || l > s->nlines)
		return;
	const char *p = s->data + s->line[l - 1];
	const char *e = l < s->nlines ? s->data + s->line[l] - 1 : s->data + s->len;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	size_t n = (size_t)(e - p);
	if (n >= cap)
		n = cap - 1;
	for (size_t i = 0; i < n; i++)
		out[i] = p[i] == '\t' || (unsigned char)p[i] < ' ' ? ' ' : p[i];
	out[n] = 0;
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p;
}

/* ---- writing ---- */

struct totals {
	uint64_t samples, period;
	const char *event;
};

static double share(const struct annotate *a, const struct totals *t, const struct asym *y,
		    uint64_t samples, uint64_t period)
{
	uint64_t den;
	uint64_t num;
	switch (a->cfg->percent) {
	case ANNOTATE_GLOBAL_PERIOD: num = period, den = t->period; break;
	case ANNOTATE_LOCAL_HITS: num = samples, den = y->samples; break;
	case ANNOTATE_GLOBAL_HITS: num = samples, den = t->samples; break;
	default: num = period, den = y->period; break;
	}
	return den ? 100.0 * (double)num / (double)den : 0;
}

static void put_value(const struct annotate *a, FILE *out, const struct totals *t,
		      const struct asym *y, uint64_t samples, uint64_t period)
{
	if (a->cfg->show_nr)
		fprintf(out, "%8" PRIu64 " :", samples);
	else
		fprintf(out, "%8.2f :", share(a, t, y, samples, period));
}

/* One decoded instruction with its counts and source position. */
struct row {
	uint64_t rel, svma;
	uint64_t samples, period;
	struct disasm_insn in;
	const char *file, *func;  /* innermost position; func: the inlined function or NULL */
	const char *call_file;    /* where func was inlined */
	uint32_t line, call_line;
	uint8_t bytes[16];
};

struct lineagg {
	const char *file;
	uint32_t line;
	uint64_t samples, period;
};

static int cmp_line_key(const void *x, const void *y)
{
	const struct lineagg *a = x, *b = y;
	if (a->file != b->file)
		return (uintptr_t)a->file < (uintptr_t)b->file ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

static int cmp_line_weight(const void *x, const void *y)
{
	const struct lineagg *a = x, *b = y;
	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return cmp_line_key(x, y);
}

static void symbols_warned(void *ctx, const char *msg)
{
	struct annotate *a = ctx;
	free(a->warn_msg);
	a->warn_msg = xstrdup(msg);
}

/* The reason a DSO's file is not used, without its leading "NAME: ". */
static const char *dso_reason(struct annotate *a, struct adso *d, struct dso *dd)
{
	if (d->reason)
		return d->reason;
	const char *m = a->warn_msg;
	size_t n = d->filename ? strlen(d->filename) : 0;
	if (m && n && !strncmp(m, d->filename, n) && !strncmp(m + n, ": ", 2))
		m += n + 2;
	if (m && !strncmp(m, "not found, its frames are [unknown]", 35))
		m = "binary not found";
	if (!m && dd && !dd->elf)
		m = dd->debug_elf ? "only its debug file was found (no code in it)" : "binary not found";
	d->reason = xstrdup(m ? m : "binary not usable");
	free(a->warn_msg);
	a->warn_msg = NULL;
	return d->reason;
}

static struct dso *open_dso(struct annotate *a, struct adso *d)
{
	if (!d->elf || !d->filename)
		return NULL;
	free(a->warn_msg);
	a->warn_msg = NULL;
	struct dso *dd = symbols_dso(a->files, d->filename, d->bid_size ? d->bid : NULL, d->bid_size);
	if (dd->missing || !dd->elf)
		dso_reason(a, d, dd);
	return dd;
}

/* The "<sym+0xoff>" of a target svma in dd, into b ("" when none). */
static void target_name(struct dso *dd, uint64_t svma, char *b, size_t cap)
{
	uint64_t rel;
	b[0] = 0;
	if (!dd || !dso_svma_to_rel(dd, svma, &rel))
		return;
	const struct sym *y = dso_find_sym(dd, rel);
	if (!y)
		return;
	int n;
	if (rel == y->start)
		n = snprintf(b, cap, "<%s>", y->name);
	else
		n = snprintf(b, cap, "<%s+0x%" PRIx64 ">", y->name, rel - y->start);
	if (n > 0 && (size_t)n >= cap && cap > 5)
		memcpy(b + cap - 5, "...>", 5); /* a name cut short still closes */
}

static void write_head(struct annotate *a, FILE *out, const struct totals *t, const struct asym *y,
		       const struct adso *d)
{
	fprintf(out, "\n## %s  [%s]\n", y->name, d->name ? d->name : "?");
	fprintf(out, "## %" PRIu64 " samples, %.2f%% of %" PRIu64 " samples of %s (percent: %s)\n",
		y->samples, t->period ? 100.0 * (double)y->period / (double)t->period : 0.0,
		t->samples, t->event, percent_name(a->cfg->percent));
}

/* Samples shown by address only (no bytes or no disassembler). */
static int cmp_count_addr(const void *x, const void *y)
{
	const struct acount *a = x, *b = y;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static void write_addresses(struct annotate *a, FILE *out, const struct totals *t,
			    struct asym *y, struct dso *dd, const char *why)
{
	fprintf(out, "## not disassembled: %s\n", why);
	/* a sorted copy: y->c's order is what y->at indexes (scorch top
	 * keeps counting after a write) */
	struct acount *c = xmalloc((y->n ? y->n : 1) * sizeof(*c));
	memcpy(c, y->c, y->n * sizeof(*c));
	qsort(c, y->n, sizeof(*c), cmp_count_addr);
	for (size_t i = 0; i < y->n; i++) {
		uint64_t addr = c[i].addr;
		if (dd && a->dsos[y->dso].elf)
			dso_rel_to_svma(dd, addr, &addr);
		put_value(a, out, t, y, c[i].samples, c[i].period);
		fprintf(out, "   %" PRIx64 "\n", addr);
	}
	free(c);
}

static void write_lines_summary(struct annotate *a, FILE *out, const struct totals *t,
				const struct asym *y, const struct row *r, size_t n)
{
	struct lineagg *l = xmalloc((n ? n : 1) * sizeof(*l));
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (r[i].file && r[i].samples)
			l[m++] = (struct lineagg){ r[i].file, r[i].line, r[i].samples, r[i].period };
	qsort(l, m, sizeof(*l), cmp_line_key);
	size_t k = 0;
	for (size_t i = 0; i < m; i++) {
		if (k && l[k - 1].file == l[i].file && l[k - 1].line == l[i].line) {
			l[k - 1].samples += l[i].samples;
			l[k - 1].period += l[i].period;
		} else {
			l[k++] = l[i];
		}
	}
	qsort(l, k, sizeof(*l), cmp_line_weight);
	size_t show = a->cfg->print_line ? k : (k < 5 ? k : 5);
	if (show)
		fprintf(out, "## hottest lines:\n");
	for (size_t i = 0; i < show; i++) {
		char text[200];
		source_line(a, l[i].file, l[i].line, text, sizeof(text));
		if (a->cfg->show_nr)
			fprintf(out, "## %8" PRIu64, l[i].samples);
		else
			fprintf(out, "## %7.2f%%", share(a, t, y, l[i].samples, l[i].period));
		fprintf(out, "  %s:%u  %s\n", base_name(l[i].file), l[i].line, text);
	}
	free(l);
}

static void write_insns(struct annotate *a, FILE *out, const struct totals *t, struct asym *y,
			struct dso *dd, const uint8_t *code, size_t len, uint64_t svma0,
			const char *trailer)
{
	struct row *r = xmalloc((len ? len : 1) * sizeof(*r));
	size_t n = 0;
	uint64_t matched = 0;
	size_t bad = 0;
	for (size_t off = 0; off < len;) {
		struct row *w = &r[n++];
		memset(w, 0, sizeof(*w));
		w->rel = y->start + off;
		w->svma = svma0 + off;
		disasm_one(a->dis, code + off, len - off, w->svma, &w->in);
		uint32_t sz = w->in.size ? w->in.size : 1;
		bad += !w->in.size;
		memcpy(w->bytes, code + off, sz < 16 ? sz : 16);
		/* samples anywhere inside the instruction count for it */
		for (uint32_t b = 0; b < sz; b++) {
			uintptr_t i = (uintptr_t)hmap_get(&y->at, w->rel + b);
			if (i) {
				w->samples += y->c[i - 1].samples;
				w->period += y->c[i - 1].period;
			}
		}
		matched += w->samples;
		const struct inline_entry *e;
		unsigned ne = dd ? dso_inlines(dd, w->rel, &e) : 0;
		if (ne) {
			w->file = e[0].file;
			w->line = e[0].line;
			if (ne > 1) {
				w->func = e[0].name;
				w->call_file = e[1].file;
				w->call_line = e[1].line;
			}
		}
		off += sz;
	}
	write_lines_summary(a, out, t, y, r, n);
	/* with the file cut short (trailer), samples past its end are listed
	 * by address after the instructions */
	uint64_t past = 0;
	for (size_t i = 0; trailer && i < y->n; i++)
		if (y->c[i].addr >= y->start + len)
			past += y->c[i].samples;
	if (past)
		fprintf(out, "## %" PRIu64 " samples are past the end of the file's bytes (by address "
			     "at the end)\n", past);
	if (matched + past < y->samples)
		fprintf(out, "## %" PRIu64 " samples fall outside the symbol's bytes\n",
			y->samples - matched - past);
	if (bad)
		fprintf(out, "## %zu bytes were no instruction the disassembler knows (the text after "
			     "them may be out of step)\n", bad);
	if (trailer)
		fprintf(out, "## %s\n", trailer);
	fprintf(out, "%s |  Source code & Disassembly of %s\n", a->cfg->show_nr ? " Samples" : " Percent",
		y->name);
	fprintf(out, "---------+------------------------------------------------------------\n");
	int aw = 1;
	for (uint64_t v = svma0 + len; v >= 16; v >>= 4)
		aw++;
	const char *pf = NULL, *pfunc = NULL;
	uint32_t pl = 0;
	for (size_t i = 0; i < n; i++) {
		const struct row *w = &r[i];
		if (!a->cfg->no_source && w->file &&
		    (w->file != pf || w->line != pl || w->func != pfunc)) {
			if (w->func != pfunc) {
				if (w->func)
					fprintf(out, "         :  %s() inlined at %s:%u\n", w->func,
						base_name(w->call_file), w->call_line);
				else
					fprintf(out, "         :  %s()\n", y->name);
			}
			char text[200];
			source_line(a, w->file, w->line, text, sizeof(text));
			fprintf(out, "         :  %s:%u  %s\n", base_name(w->file), w->line, text);
			pf = w->file, pl = w->line, pfunc = w->func;
		}
		put_value(a, out, t, y, w->samples, w->period);
		fprintf(out, "   %*" PRIx64 ":   ", aw, w->svma);
		if (a->cfg->asm_raw) {
			uint32_t sz = w->in.size ? w->in.size : 1;
			char hex[64];
			size_t h = 0;
			for (uint32_t b = 0; b < sz && b < 16 && h + 4 < sizeof(hex); b++)
				h += (size_t)snprintf(hex + h, sizeof(hex) - h, "%02x ", w->bytes[b]);
			fprintf(out, "%-21s ", hex);
		}
		fputs(w->in.text, out);
		char tn[1024];
		if (w->in.ref == DISASM_REF_BRANCH) {
			target_name(dd, w->in.ref_addr, tn, sizeof(tn));
			if (tn[0])
				fprintf(out, " %s", tn);
		} else if (w->in.ref == DISASM_REF_RIP) {
			target_name(dd, w->in.ref_addr, tn, sizeof(tn));
			fprintf(out, "        # %" PRIx64 "%s%s", w->in.ref_addr, tn[0] ? " " : "", tn);
		}
		fputc('\n', out);
	}
	if (past) {
		/* a sorted copy: y->c's order is what y->at indexes */
		struct acount *pc = xmalloc((y->n ? y->n : 1) * sizeof(*pc));
		size_t np = 0;
		for (size_t i = 0; i < y->n; i++)
			if (y->c[i].addr >= y->start + len)
				pc[np++] = y->c[i];
		qsort(pc, np, sizeof(*pc), cmp_count_addr);
		for (size_t i = 0; i < np; i++) {
			put_value(a, out, t, y, pc[i].samples, pc[i].period);
			fprintf(out, "   %*" PRIx64 "\n", aw, svma0 + (pc[i].addr - y->start));
		}
		free(pc);
	}
	free(r);
}

/* The symbol's code: its bytes at their file offsets in the binary. */
static void write_elf_sym(struct annotate *a, FILE *out, const struct totals *t, struct asym *y)
{
	struct adso *d = &a->dsos[y->dso];
	struct dso *dd = open_dso(a, d);
	if (!dd || dd->missing || !dd->elf) {
		write_addresses(a, out, t, y, NULL, d->reason ? d->reason : "binary not found");
		return;
	}
	uint64_t end = 0;
	const struct sym *s = dso_find_sym(dd, y->start);
	if (s && s->start == y->start)
		end = s->end;
	for (size_t i = 0; i < y->n; i++)
		if (y->c[i].addr + 1 > end)
			end = y->c[i].addr + 1;
	uint64_t svma0;
	if (!dso_rel_to_svma(dd, y->start, &svma0)) {
		write_addresses(a, out, t, y, NULL, "the symbol is in no loaded segment of the file");
		return;
	}
	GElf_Ehdr eh;
	unsigned machine = gelf_getehdr(dd->elf, &eh) ? eh.e_machine : 0;
	if (!a->dis || a->dis_machine != machine) {
		disasm_free(a->dis);
		a->dis = disasm_new(machine, a->cfg->intel, a->dis_why, sizeof(a->dis_why));
		a->dis_machine = machine;
	}
	if (!a->dis) {
		write_addresses(a, out, t, y, dd, a->dis_why);
		return;
	}
	uint64_t len = end - y->start;
	if (len > ANNOTATE_MAX_SYM_BYTES) {
		write_addresses(a, out, t, y, dd, "the symbol is too large to disassemble");
		return;
	}
	/* the bytes the file holds (a PT_LOAD's memsz beyond its filesz is
	 * zeros the file does not have) */
	uint64_t have = 0;
	for (unsigned i = 0; i < dd->nr_segs; i++) {
		const struct load_seg *g = &dd->segs[i];
		if (y->start >= g->off && y->start < g->off + g->filesz) {
			have = g->off + g->filesz - y->start;
			break;
		}
	}
	uint8_t *code = xmalloc_input(len ? len : 1, ANNOTATE_MAX_SYM_BYTES);
	if (!code) {
		write_addresses(a, out, t, y, dd, "no memory for the symbol's bytes");
		return;
	}
	ssize_t got = dd->fd >= 0 && have ? pread(dd->fd, code, len < have ? len : have,
						  (off_t)y->start) : -1;
	char trailer[160];
	const char *tr = NULL;
	if (got <= 0) {
		free(code);
		write_addresses(a, out, t, y, dd, "the binary holds none of its bytes");
		return;
	}
	if ((uint64_t)got < len) {
		snprintf(trailer, sizeof(trailer),
			 "the file ends inside the function: %zd of its %" PRIu64 " bytes", got, len);
		tr = trailer;
		len = (uint64_t)got;
	}
	write_insns(a, out, t, y, dd, code, len, svma0, tr);
	free(code);
}

static void hexid(char *out, const uint8_t *id, size_t n)
{
	for (size_t i = 0; i < n && i < 20; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * (n < 20 ? n : 20)] = 0;
}

/* Once: the kernel memory image, when it holds the recording's kernel:
 * the kernel build id the recording names ([kernel.kallsyms] in its
 * build ids) is the image's own (a VMCOREINFO BUILD-ID) or, without one,
 * the running kernel's (kernel_notes). Else kcore_why says why not. */
static void kcore_prepare(struct annotate *a, struct profile_sink *s)
{
	const struct annotate_config *c = a->cfg;
	a->kcore_tried = true;
	const uint8_t *rid = NULL;
	size_t rn = 0;
	const struct perf_header *h = s->pipeline ? input_header(pipeline_input(s->pipeline)) : NULL;
	for (uint32_t i = 0; h && i < h->nr_build_ids; i++)
		if (h->build_ids[i].filename && !strcmp(h->build_ids[i].filename, "[kernel.kallsyms]")) {
			rid = h->build_ids[i].id;
			rn = h->build_ids[i].size <= 20 ? h->build_ids[i].size : 20;
		}
	char why[300];
	if (!c->kcore) {
		snprintf(a->kcore_why, sizeof(a->kcore_why), "kernel code (no kernel memory image to read)");
		return;
	}
	struct kcore *k = kcore_open(c->kcore, why, sizeof(why));
	if (!k) {
		snprintf(a->kcore_why, sizeof(a->kcore_why), "kernel code (%s)", why);
		return;
	}
	uint8_t id[20];
	size_t idn = kcore_build_id(k, id);
	if (!idn && (!c->kernel_notes || kident_running_build_id(c->kernel_notes, id, &idn)))
		idn = 0;
	char rh[41], ih[41];
	if (!rn || !idn) {
		snprintf(a->kcore_why, sizeof(a->kcore_why),
			 "kernel code (%s: no kernel build id %s to tell whether %s holds the recorded kernel)",
			 c->kcore, rn ? "of the image" : "in the recording", c->kcore);
	} else if (rn != idn || memcmp(rid, id, rn)) {
		hexid(rh, rid, rn);
		hexid(ih, id, idn);
		snprintf(a->kcore_why, sizeof(a->kcore_why),
			 "kernel code (the recording's kernel, build id %s, is not the one in %s, %s)", rh,
			 c->kcore, ih);
	} else {
		a->kcore = k;
		return;
	}
	kcore_free(k);
}

/* A kernel symbol's code from the kernel memory image (kcore.h). */
static void write_kernel_sym(struct annotate *a, FILE *out, const struct totals *t,
			     struct asym *y, struct profile_sink *s)
{
	if (!a->kcore_tried)
		kcore_prepare(a, s);
	if (!a->kcore) {
		write_addresses(a, out, t, y, NULL, a->kcore_why);
		return;
	}
	uint64_t end = 0;
	const struct sym *ks = symbols_kernel_find(a->files, y->start);
	if (ks && ks->start == y->start)
		end = ks->end;
	for (size_t i = 0; i < y->n; i++)
		if (y->c[i].addr + 1 > end)
			end = y->c[i].addr + 1;
	uint64_t len = end - y->start;
	if (len > ANNOTATE_MAX_SYM_BYTES) {
		write_addresses(a, out, t, y, NULL, "the symbol is too large to disassemble");
		return;
	}
	unsigned machine = kcore_machine(a->kcore);
	if (!a->dis || a->dis_machine != machine) {
		disasm_free(a->dis);
		a->dis = disasm_new(machine, a->cfg->intel, a->dis_why, sizeof(a->dis_why));
		a->dis_machine = machine;
	}
	if (!a->dis) {
		write_addresses(a, out, t, y, NULL, a->dis_why);
		return;
	}
	uint8_t *code = xmalloc_input(len ? len : 1, ANNOTATE_MAX_SYM_BYTES);
	if (!code) {
		write_addresses(a, out, t, y, NULL, "no memory for the symbol's bytes");
		return;
	}
	size_t got = kcore_read(a->kcore, y->start, code, (size_t)len);
	if (!got) {
		char why[200];
		snprintf(why, sizeof(why), "kernel code (%s maps no memory at %" PRIx64 ")", a->cfg->kcore,
			 y->start);
		free(code);
		write_addresses(a, out, t, y, NULL, why);
		return;
	}
	char trailer[200];
	const char *tr = NULL;
	if (got < len) {
		snprintf(trailer, sizeof(trailer),
			 "%s ends inside the function: %zu of its %" PRIu64 " bytes", a->cfg->kcore, got, len);
		tr = trailer;
	}
	/* kernel addresses: rel and svma are the address itself */
	write_insns(a, out, t, y, NULL, code, got, y->start, tr);
	free(code);
}

static int cmp_sym_weight(const void *x, const void *y, void *arg)
{
	const struct annotate *a = arg;
	const struct asym *p = &a->syms[*(const uint32_t *)x], *q = &a->syms[*(const uint32_t *)y];
	bool hits = a->cfg->percent == ANNOTATE_LOCAL_HITS || a->cfg->percent == ANNOTATE_GLOBAL_HITS;
	uint64_t u = hits ? p->samples : p->period, v = hits ? q->samples : q->period;
	if (u != v)
		return u > v ? -1 : 1;
	int c = strcmp(p->name, q->name);
	return c ? c : (p->start < q->start ? -1 : p->start > q->start);
}

static bool dso_matches(const char *want, const struct adso *d)
{
	if (!want)
		return true;
	if (!d->name)
		return false;
	return !strcmp(want, d->name) || !strcmp(want, base_name(d->name));
}

static bool wanted(const struct annotate *a, const struct totals *t, const struct asym *y)
{
	const struct annotate_config *c = a->cfg;
	if (!dso_matches(c->dso, &a->dsos[y->dso]))
		return false;
	if (c->nr_syms) {
		for (size_t i = 0; i < c->nr_syms; i++)
			if (!strcmp(c->syms[i], y->name))
				return true;
		return false;
	}
	double p = t->period ? 100.0 * (double)y->period / (double)t->period : 0;
	return p >= c->percent_limit;
}

int annotate_write(struct annotate *a, struct profile_sink *s, FILE *out)
{
	const struct annotate_config *c = a->cfg;
	struct totals t = { s->prof.samples, s->prof.period,
			    s->event_name && *s->event_name ? s->event_name : "samples" };
	if (s->offcpu)
		t.event = c->pc && s->cfg.filter.time_mode == OFFCPU_MODE_WALL ? "wall time"
									    : "off-CPU time";
	if (!a->files) {
		struct symbols_config sc = { 0 };
		if (c->pc) {
			sc.sysroot = c->pc->sysroot;
			sc.debug_paths = c->pc->debug_paths;
			sc.extra_paths = c->pc->extra_paths;
			sc.app_path = c->pc->app_path;
			sc.kallsyms = c->pc->kallsyms;
			sc.buildid_dir = c->pc->buildid_dir;
			sc.debuginfod = c->pc->debuginfod;
		}
		sc.warn = symbols_warned;
		sc.warn_ctx = a;
		a->files = symbols_new(&sc);
		if (s->pipeline) {
			const struct perf_header *h = input_header(pipeline_input(s->pipeline));
			for (uint32_t i = 0; h && i < h->nr_build_ids; i++)
				symbols_add_build_id(a->files, h->build_ids[i].filename,
						     h->build_ids[i].id, h->build_ids[i].size);
		}
		for (uint32_t i = 0; c->pc && i < c->pc->nr_build_ids; i++) {
			const struct perf_build_id *b = &c->pc->build_ids[i];
			symbols_add_build_id(a->files, b->filename, b->id, b->size);
		}
	}
	/* samples in DSOs whose functions are unknown: why, once per DSO */
	for (size_t i = 0; i < a->nr_dsos; i++) {
		struct adso *d = &a->dsos[i];
		double p = t.period ? 100.0 * (double)d->nosym_period / (double)t.period : 0;
		if (!d->nosym_samples || !dso_matches(c->dso, d) || c->nr_syms || p < c->percent_limit)
			continue;
		const char *why = "no symbol covers them (a stripped binary?)";
		if (d->kind != FRAME_USER && d->kind != FRAME_GUEST_USER)
			why = "no kernel symbol covers them";
		else if (!d->elf)
			why = "anonymous memory without a perf map";
		else {
			struct dso *dd = open_dso(a, d);
			if (d->reason)
				why = d->reason;
			else if (dd && !dd->symtab.nr)
				why = "the binary has no symbol table (stripped)";
		}
		fprintf(out, "## %" PRIu64 " samples (%.2f%%) in %s not annotated: %s\n",
			d->nosym_samples, p, d->name, why);
	}
	uint32_t *order = xmalloc((a->nr_syms ? a->nr_syms : 1) * sizeof(*order));
	for (size_t i = 0; i < a->nr_syms; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, a->nr_syms, sizeof(*order), cmp_sym_weight, a);
	size_t shown = 0;
	for (size_t k = 0; k < a->nr_syms; k++) {
		struct asym *y = &a->syms[order[k]];
		if (!wanted(a, &t, y))
			continue;
		struct adso *d = &a->dsos[y->dso];
		write_head(a, out, &t, y, d);
		shown++;
		if (d->kind == FRAME_KERNEL)
			write_kernel_sym(a, out, &t, y, s);
		else if (d->kind != FRAME_USER && d->kind != FRAME_GUEST_USER)
			write_addresses(a, out, &t, y, NULL, "guest or hypervisor code (no image of its memory)");
		else if (!d->elf)
			write_addresses(a, out, &t, y, NULL,
					"JIT code named by a perf map: its bytes are not in the recording");
		else
			write_elf_sym(a, out, &t, y);
		if (ferror(out))
			break;
	}
	free(order);
	if (!shown && c->nr_syms && !c->quiet)
		fprintf(stderr, "scorch: annotate: no samples in %s%s\n", c->syms[0],
			c->nr_syms > 1 ? " or the other symbols asked for" : "");
	return ferror(out) ? -EIO : 0;
}

void annotate_free(struct annotate *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nr_syms; i++) {
		hmap_release(&a->syms[i].at);
		free(a->syms[i].c);
	}
	for (size_t i = 0; i < a->nr_dsos; i++) {
		hmap_release(&a->dsos[i].syms);
		free(a->dsos[i].reason);
	}
	for (size_t i = 0; i < a->sources.cap; i++)
		if (hmap_used(&a->sources, i)) {
			struct source *s = a->sources.slot[i].val;
			free(s->data);
			free(s->line);
			free(s);
		}
	hmap_release(&a->sources);
	hmap_release(&a->dso_at);
	free(a->syms);
	free(a->dsos);
	disasm_free(a->dis);
	kcore_free(a->kcore);
	if (a->files)
		symbols_free(a->files);
	free(a->warn_msg);
	free(a);
}
