/*
 * flame.c: see flame.h. The HTML is the template with its data line
 * replaced by the profile as JSON: frames [name, dso, kind] and the tree in
 * preorder as [frame, depth, weight, samples] quadruples, siblings sorted by
 * name (flame graph convention: the x order means nothing, so sort for a
 * stable picture). The SVG is laid out here with the same order.
 *
 * A differential graph (flame_config.diff) uses the same template: lines
 * ending in " //D" exist only in it, lines ending in " //N" only in the plain
 * graph, " //T" lines (notes on the template) in neither; the marker is
 * cut. So both share the drawing, search and zoom code
 * and the plain graph's bytes do not depend on the diff code. Its data adds
 * the baseline's weight and self weight per node and the baseline's callees
 * that have no node in the new profile ("gone").
 */
#include "output/flame.h"
#include "util/fmt.h"
#include "util/buf.h"
#include "util/xalloc.h"
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char flame_html[] = {
#include "flame_html.h"
	0
};

#define DATA_MARK "/*SCORCH_DATA*/"
/* Off-CPU pages: after DATA, the palette (blues, hashed by name as the
 * template's colours are) and a legend entry; the template's fill statement
 * then asks it first for nodes flagged in DATA.off. */
#define FILL_STMT "let fill = i === 0 ? \"#e8e8e8\" : colorOf(f);"
#define FILL_OFF                                                                  \
	"let fill = i === 0 ? \"#e8e8e8\" : DATA.off && DATA.off[i] ? offColorOf(F[f] ? " \
	"F[f][0] : \"\") : colorOf(f);"
#define OFF_JS                                                                    \
	"function offColorOf(name) {\n"                                              \
	"  let h = 2166136261 >>> 0;\n"                                              \
	"  for (let i = 0; i < name.length; i++) { h ^= name.charCodeAt(i); "        \
	"h = Math.imul(h, 16777619) >>> 0; }\n"                                      \
	"  const a = (h & 0xff) / 255, b = ((h >>> 8) & 0xff) / 255;\n"             \
	"  return \"rgb(\" + ((40 + 60 * a) | 0) + \",\" + ((90 + 70 * b) | 0) + " \
	"\",\" + ((205 + 50 * a) | 0) + \")\";\n"                                     \
	"}\n"                                                                        \
	"{ const sw = document.createElement(\"span\"); sw.style.background = "   \
	"\"#4a78e6\"; sw.style.color = \"#fff\"; sw.textContent = \"off-CPU\"; "      \
	"const lg = document.querySelector(\".legend\"); if (lg) lg.appendChild(sw); }\n"

void flame_config_init(struct flame_config *c)
{
	memset(c, 0, sizeof(*c));
	c->title = "Flame graph";
	c->svg_width = 1200;
	c->svg_min_px = 0.5;
}

void json_put_str(FILE *out, const char *s)
{
	putc('"', out);
	for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
		switch (*c) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '<':
			fputs("\\u003c", out);
			break;
		case '>':
			fputs("\\u003e", out);
			break;
		case '&':
			fputs("\\u0026", out);
			break;
		default:
			if (*c < 0x20)
				fprintf(out, "\\u%04x", *c);
			else
				putc(*c, out);
		}
	}
	putc('"', out);
}

static int kind_code(const struct pframe *f)
{
	int k = f->kind == PF_THREAD ? PF_COMM : f->kind;
	if (f->inlined)
		k |= 32;
	if (f->unknown)
		k |= 64;
	return k;
}

static uint64_t weight(const struct pnode *n, const struct flame_config *c)
{
	return c->by_samples ? n->samples : n->period;
}

/* Per node: true when more than half its weight is under PF_OFFCPU leaves
 * (children follow their parent: one reverse pass adds up). NULL when off
 * (then nothing is coloured apart). */
static bool *off_nodes(const struct profile *p, const struct flame_config *c)
{
	if (!c->off_colours || !p->nr_nodes)
		return NULL;
	uint64_t *off = xcalloc(p->nr_nodes, sizeof(*off));
	bool *flag = xcalloc(p->nr_nodes, sizeof(*flag));
	for (size_t i = p->nr_nodes; i-- > 1;) {
		const struct pnode *n = &p->nodes[i];
		if (p->frames[n->frame].kind == PF_OFFCPU)
			off[i] += c->by_samples ? n->self_samples : n->self_period;
		flag[i] = off[i] * 2 > weight(n, c);
		if (n->parent != PROFILE_NONE)
			off[n->parent] += off[i];
	}
	flag[0] = off[0] * 2 > weight(&p->nodes[0], c);
	free(off);
	return flag;
}

/* Write the template's text [s, e) keeping the lines of one variant. */
static void put_template(FILE *out, const char *s, const char *e, bool diff)
{
	while (s < e) {
		const char *nl = memchr(s, '\n', (size_t)(e - s));
		const char *le = nl ? nl : e; /* line end, without the newline */
		size_t len = (size_t)(le - s);
		bool d = len >= 4 && !memcmp(le - 4, " //D", 4);
		bool nm = len >= 4 && !memcmp(le - 4, " //N", 4);
		bool t = len >= 4 && !memcmp(le - 4, " //T", 4);
		if ((d && !diff) || (nm && diff) || t) {
			s = nl ? nl + 1 : e;
			continue;
		}
		fwrite(s, 1, d || nm ? len - 4 : len, out);
		if (nl)
			putc('\n', out);
		s = nl ? nl + 1 : e;
	}
}

static uint64_t self_weight(const struct pnode *n, const struct flame_config *c)
{
	return c->by_samples ? n->self_samples : n->self_period;
}

/* The diff part of the data: per emitted node the baseline's weight and
 * self weight (-1 when the stack is not in the baseline), and per emitted
 * node its baseline callees with no node in the new profile. */
static void put_diff_data(const struct profile *p, const struct flame_config *c,
			  const uint32_t *order, const bool *emit, FILE *out)
{
	const struct flame_diff *df = c->diff;
	const struct profile *b = df->base;
	fputs(",\n\"diff\":{\"absolute\":", out);
	fputs(df->absolute ? "true" : "false", out);
	fputs(",\"baseName\":", out);
	json_put_str(out, df->base_name ? df->base_name : "baseline");
	fprintf(out, ",\"baseTotal\":%" PRIu64 ",\"baseSamples\":%" PRIu64 ",\n\"base\":[",
		weight(&b->nodes[0], c), b->nodes[0].samples);
	size_t k = 0;
	for (size_t i = 0; i < p->nr_nodes; i++) {
		if (!emit[i])
			continue;
		uint32_t bn = df->base_node[order[i]];
		if (k)
			putc(',', out);
		if (k % 16 == 15)
			putc('\n', out);
		if (bn == PROFILE_NONE)
			fputs("-1,-1", out);
		else
			fprintf(out, "%" PRIu64 ",%" PRIu64, weight(&b->nodes[bn], c),
				self_weight(&b->nodes[bn], c));
		k++;
	}
	fputs("],\n\"gone\":[", out);
	uint64_t min = (uint64_t)((double)weight(&b->nodes[0], c) * c->min_percent / 100.0);
	size_t idx = 0, ng = 0;
	for (size_t i = 0; i < p->nr_nodes && ng < 100000; i++) {
		if (!emit[i])
			continue;
		uint32_t bn = df->base_node[order[i]];
		if (bn != PROFILE_NONE) {
			for (uint32_t ch = b->nodes[bn].first_child; ch != PROFILE_NONE;
			     ch = b->nodes[ch].next_sibling) {
				const struct pnode *cn = &b->nodes[ch];
				if (df->new_node[ch] != PROFILE_NONE || !weight(cn, c) || weight(cn, c) < min)
					continue;
				const struct pframe *f = &b->frames[cn->frame];
				fprintf(out, "%s[%zu,%" PRIu64 ",", ng ? ",\n" : "", idx, weight(cn, c));
				json_put_str(out, f->name);
				putc(',', out);
				json_put_str(out, f->dso);
				putc(']', out);
				ng++;
			}
		}
		idx++;
	}
	fputs("]}", out);
}

/* The line panel's data: per function [frame, weight, samples, lines],
 * each line [file, line, weight, samples, text or null]. */
static void put_lines(const struct flame_config *c, FILE *out)
{
	fputs(",\n\"lines\":[", out);
	for (size_t i = 0; i < c->nr_lines; i++) {
		const struct fline_func *f = &c->lines[i];
		fprintf(out, "%s[%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",[", i ? ",\n" : "", f->frame,
			f->weight, f->samples);
		for (size_t k = 0; k < f->nr_lines; k++) {
			const struct fline *l = &f->lines[k];
			if (k)
				putc(',', out);
			putc('[', out);
			json_put_str(out, l->file);
			fprintf(out, ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",", l->line, l->weight,
				l->samples);
			if (l->text)
				json_put_str(out, l->text);
			else
				fputs("null", out);
			putc(']', out);
		}
		fputs("]]", out);
	}
	putc(']', out);
}

int flame_write_html(const struct profile *p, const struct flame_config *c, FILE *out)
{
	const char *tpl = (const char *)flame_html;
	const char *mark = strstr(tpl, DATA_MARK);
	if (!mark)
		return -EINVAL;
	const char *line_start = mark;
	while (line_start > tpl && line_start[-1] != '\n')
		line_start--;
	const char *line_end = strchr(mark, '\n');
	if (!line_end)
		return -EINVAL;
	put_template(out, tpl, line_start, c->diff != NULL);
	/* off-CPU colours: the template's fill choice, patched (the template
	 * itself, and so every other page, stays as it is) */
	const char *fill = c->off_colours && !c->diff ? strstr(line_end, FILL_STMT) : NULL;

	fputs("const DATA = {\"title\":", out);
	json_put_str(out, c->title);
	fputs(",\"event\":", out);
	json_put_str(out, c->event ? c->event : "");
	fprintf(out, ",\"unit\":\"%s\",\"icicle\":%s,\n\"frames\":[",
		c->unit_ns && !c->by_samples ? "ns" : "", c->icicle ? "true" : "false");
	for (size_t i = 0; i < p->nr_frames; i++) {
		const struct pframe *f = &p->frames[i];
		if (i)
			putc(',', out);
		if (i % 64 == 63)
			putc('\n', out);
		putc('[', out);
		json_put_str(out, f->name);
		putc(',', out);
		json_put_str(out, f->kind == PF_COMM || f->kind == PF_THREAD ? "" : f->dso);
		char b[24];
		int k = 0;
		b[k++] = ',';
		k += fmt_sdec(b + k, kind_code(f), 0);
		b[k++] = ']';
		fwrite(b, 1, (size_t)k, out);
	}
	fputs("],\n\"nodes\":[", out);
	bool *off = off_nodes(p, c);
	uint8_t *offv = NULL;
	size_t nr_off = 0;
	if (off)
		offv = xcalloc(p->nr_nodes, 1);
	uint32_t *order = profile_preorder(p, PROFILE_ORDER_NAME);
	uint64_t total = weight(&p->nodes[0], c);
	uint64_t min = (uint64_t)((double)total * c->min_percent / 100.0);
	size_t emitted = 0;
	bool *emit = c->diff ? xcalloc(p->nr_nodes, sizeof(bool)) : NULL;
	for (size_t i = 0; i < p->nr_nodes; i++) {
		const struct pnode *n = &p->nodes[order[i]];
		if (n->depth && weight(n, c) < min) {
			/* skip the subtree: its nodes follow with a larger depth */
			while (i + 1 < p->nr_nodes && p->nodes[order[i + 1]].depth > n->depth)
				i++;
			continue;
		}
		if (emitted)
			putc(',', out);
		if (emitted % 16 == 15)
			putc('\n', out);
		/* "%d,%u,%" PRIu64 ",%" PRIu64 by hand: fprintf's format parsing
		 * per node was 9% of `scorch flame` */
		char b[96];
		int k = fmt_sdec(b, n->depth ? (int)n->frame : -1, 0);
		b[k++] = ',';
		k += fmt_dec(b + k, n->depth, 0, 0);
		b[k++] = ',';
		k += fmt_dec(b + k, weight(n, c), 0, 0);
		b[k++] = ',';
		k += fmt_dec(b + k, n->samples, 0, 0);
		fwrite(b, 1, (size_t)k, out);
		if (offv)
			offv[nr_off++] = off[order[i]];
		emitted++;
		if (emit)
			emit[i] = true;
	}
	fputs("]", out);
	if (c->diff)
		put_diff_data(p, c, order, emit, out);
	free(emit);
	free(order);
	if (offv) {
		/* per emitted node: 1 when drawn in the off-CPU palette */
		fputs(",\n\"off\":[", out);
		for (size_t i = 0; i < nr_off; i++)
			fprintf(out, i ? ",%u" : "%u", offv[i]);
		fputs("]", out);
	}
	free(offv);
	free(off);
	if (c->nr_lines && !c->diff)
		put_lines(c, out);
	fputs("};\n", out);
	const char *tend = line_end + 1 + strlen(line_end + 1);
	if (fill) {
		fputs(OFF_JS, out);
		put_template(out, line_end + 1, fill, false);
		fputs(FILL_OFF, out);
		put_template(out, fill + strlen(FILL_STMT), tend, false);
	} else {
		put_template(out, line_end + 1, tend, c->diff != NULL);
	}
	return ferror(out) ? -EIO : 0;
}

/* ---- SVG ---- */

static void xml_put(FILE *out, const char *s, size_t max)
{
	size_t n = 0;
	for (const char *c = s ? s : ""; *c && n < max; c++, n++) {
		switch (*c) {
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			if ((unsigned char)*c >= 0x20)
				putc(*c, out);
		}
	}
}

static void svg_color(const struct pframe *f, bool off, char *buf, size_t n)
{
	uint64_t h = hash_bytes(f->name, strlen(f->name));
	double a = (double)(h & 0xff) / 255, b = (double)((h >> 8) & 0xff) / 255;
	int r, g, bl;
	if (off) {
		r = 40 + (int)(60 * a), g = 90 + (int)(70 * b), bl = 205 + (int)(50 * a);
	} else if (f->unknown || f->kind == PF_TRUNCATED) {
		r = g = bl = 200 + (int)(20 * a);
	} else if (f->kind == PF_COMM || f->kind == PF_THREAD) {
		r = 225 + (int)(10 * a), g = r, bl = 170 + (int)(20 * b);
	} else if (f->inlined) {
		r = 80 + (int)(50 * a), g = 200 + (int)(40 * b), bl = 185 + (int)(40 * a);
	} else if (f->kind == PF_KERNEL || f->kind == PF_GUEST_KERNEL || f->kind == PF_HV) {
		r = 95 + (int)(50 * a), g = 150 + (int)(45 * a), bl = 215 + (int)(35 * b);
	} else {
		r = 225 + (int)(30 * a), g = 90 + (int)(120 * b), bl = 30 + (int)(40 * a);
	}
	snprintf(buf, n, "rgb(%d,%d,%d)", r, g, bl);
}

/* The change of node id against the baseline: in shares (fraction of each
 * side's total) or, absolute, in fractions of the baseline's total. */
static double diff_delta(const struct profile *p, const struct flame_config *c, uint32_t id)
{
	const struct flame_diff *df = c->diff;
	uint32_t bn = df->base_node[id];
	double nv = (double)weight(&p->nodes[id], c);
	double bv = bn == PROFILE_NONE ? 0 : (double)weight(&df->base->nodes[bn], c);
	double nt = (double)weight(&p->nodes[0], c), bt = (double)weight(&df->base->nodes[0], c);
	if (df->absolute)
		return bt > 0 ? (nv - bv) / bt : 0;
	return (nt > 0 ? nv / nt : 0) - (bt > 0 ? bv / bt : 0);
}

/* Red for growth, blue for shrinkage, white-grey for none; the same
 * formula as diffColor() in flame.html. */
static void diff_color(double d, double maxd, char *buf, size_t n)
{
	double t = fabs(d) / maxd;
	if (t > 1)
		t = 1;
	if (t < 0.02) {
		snprintf(buf, n, "rgb(235,235,235)");
		return;
	}
	int v = (int)(60 + 175 * (1 - t) + 0.5);
	if (d > 0)
		snprintf(buf, n, "rgb(255,%d,%d)", v, v);
	else
		snprintf(buf, n, "rgb(%d,%d,255)", v, v);
}

int flame_write_svg(const struct profile *p, const struct flame_config *c, FILE *out)
{
	const int row = 16, top = 36, bottom = 8;
	int width = c->svg_width > 100 ? c->svg_width : 1200;
	double inner = width - 20;
	uint32_t *order = profile_preorder(p, PROFILE_ORDER_NAME);
	uint64_t total = weight(&p->nodes[0], c);
	double scale = total ? inner / (double)total : 0;
	/* the depth actually drawn */
	uint32_t maxd = 0;
	for (size_t i = 0; i < p->nr_nodes; i++) {
		const struct pnode *n = &p->nodes[order[i]];
		if ((double)weight(n, c) * scale >= c->svg_min_px && n->depth > maxd)
			maxd = n->depth;
	}
	int height = top + (int)(maxd + 1) * row + bottom;
	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		     "<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		     "xmlns=\"http://www.w3.org/2000/svg\">\n"
		     "<style>text { font-family: monospace; font-size: 11px; fill: #000; } "
		     "rect:hover { stroke: #000; stroke-width: 0.5; }</style>\n"
		     "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fbfbf6\"/>\n"
		     "<text x=\"%d\" y=\"22\" text-anchor=\"middle\" style=\"font-size:15px\">",
		width, height, width, height, width, height, width / 2);
	xml_put(out, c->title, 200);
	fprintf(out, " (%" PRIu64 " samples)</text>\n", p->nodes[0].samples);
	double maxdelta = 0.005; /* half a point: noise below it stays pale */
	if (c->diff)
		for (size_t i = 1; i < p->nr_nodes; i++)
			maxdelta = fmax(maxdelta, fabs(diff_delta(p, c, (uint32_t)i)));
	double *cursor = xcalloc(maxd + 2, sizeof(double));
	bool *off = off_nodes(p, c);
	for (size_t i = 0; i < p->nr_nodes; i++) {
		const struct pnode *n = &p->nodes[order[i]];
		double w = (double)weight(n, c) * scale;
		if (n->depth > maxd || w < c->svg_min_px) {
			while (i + 1 < p->nr_nodes && p->nodes[order[i + 1]].depth > n->depth) {
				i++;
			}
			if (n->depth && n->depth <= maxd)
				cursor[n->depth] += w;
			continue;
		}
		double x = n->depth ? cursor[n->depth] : 0;
		if (n->depth)
			cursor[n->depth] += w;
		cursor[n->depth + 1] = x;
		int y = c->icicle ? top + (int)n->depth * row : top + (int)(maxd - n->depth) * row;
		const struct pframe *f = n->depth ? &p->frames[n->frame] : NULL;
		char col[48];
		if (f && c->diff)
			diff_color(diff_delta(p, c, order[i]), maxdelta, col, sizeof(col));
		else if (f)
			svg_color(f, off && off[order[i]], col, sizeof(col));
		else
			snprintf(col, sizeof(col), "#e0e0e0");
		fputs("<g><title>", out);
		xml_put(out, f ? f->name : "all", 4096);
		if (f && f->dso && f->kind != PF_COMM && f->kind != PF_THREAD) {
			fputs(" [", out);
			xml_put(out, profile_basename(f->dso), 512);
			fputs("]", out);
		}
		if (f && f->inlined)
			fputs(" (inlined)", out);
		fprintf(out, " (%" PRIu64 " samples, %.2f%%)", n->samples,
			total ? 100.0 * (double)weight(n, c) / (double)total : 0.0);
		bool only_new = false;
		if (c->diff) {
			uint32_t bn = c->diff->base_node[order[i]];
			uint64_t bt = weight(&c->diff->base->nodes[0], c);
			only_new = bn == PROFILE_NONE;
			if (only_new)
				fputs(" baseline: none (only in new)", out);
			else
				fprintf(out, " baseline: %" PRIu64 " samples, %.2f%%",
					c->diff->base->nodes[bn].samples,
					bt ? 100.0 * (double)weight(&c->diff->base->nodes[bn], c) / (double)bt : 0.0);
			fprintf(out, ", change %+.2f points%s", 100.0 * diff_delta(p, c, order[i]),
				c->diff->absolute ? " of the baseline's total" : "");
		}
		fputs("</title>", out);
		fprintf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" rx=\"2\"%s/>",
			10 + x, y, w > 0.6 ? w - 0.3 : w, row - 1, col,
			only_new && n->depth ? " stroke=\"#7a00a0\" stroke-dasharray=\"3,2\"" : "");
		int chars = (int)((w - 6) / 6.6);
		if (chars >= 3) {
			const char *name = f ? f->name : "all";
			size_t len = strlen(name);
			fprintf(out, "<text x=\"%.1f\" y=\"%d\"%s>", 10 + x + 3, y + row - 4,
				f && f->inlined ? " font-style=\"italic\"" : "");
			if ((int)len <= chars) {
				xml_put(out, name, len);
			} else {
				xml_put(out, name, (size_t)chars - 2);
				fputs("..", out);
			}
			fputs("</text>", out);
		}
		fputs("</g>\n", out);
	}
	free(cursor);
	free(off);
	free(order);
	fputs("</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}
