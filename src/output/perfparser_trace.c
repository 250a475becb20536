/*
 * perfparser_trace.c: tracepoint formats and field encoding for the
 * perfparser stream. The tracing data section is walked by perf/tracing.c
 * (the one parser of it); this file reads each format text's fields the way
 * hotspot-perfparser does. A malformed section ends the list, keeping what
 * was read.
 */
#include "output/perfparser_trace.h"
#include "output/qdatastream.h"
#include "perf/tracing.h"
#include <stdlib.h>
#include <string.h>

static bool has(const char *hay, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(hay + i, needle, k))
			return true;
	return false;
}

static char *trim(char *s, size_t *n)
{
	while (*n && (s[0] == ' ' || s[0] == '\t' || s[0] == '\r')) {
		s++;
		(*n)--;
	}
	while (*n && (s[*n - 1] == ' ' || s[*n - 1] == '\t' || s[*n - 1] == '\r'))
		(*n)--;
	return s;
}

/* Call fn(name, value) for each "name:value" chunk of a tab-separated line
 * (chunks with more or fewer than one ':' are skipped; value trimmed and
 * a trailing ';' dropped; name lower-cased). */
static void each_pair(const char *line, size_t n,
		      void (*fn)(void *, const char *, size_t, char *, size_t), void *ctx)
{
	size_t i = 0;
	while (i <= n) {
		size_t j = i;
		while (j < n && line[j] != '\t')
			j++;
		size_t colons = 0, at = 0;
		for (size_t k = i; k < j; k++)
			if (line[k] == ':') {
				if (!colons)
					at = k;
				colons++;
			}
		if (colons == 1) {
			char name[64];
			size_t nn = at - i < sizeof(name) - 1 ? at - i : sizeof(name) - 1;
			for (size_t k = 0; k < nn; k++) {
				char c = line[i + k];
				name[k] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
			}
			name[nn] = 0;
			char *v = xstrndup(line + at + 1, j - at - 1);
			size_t vn = strlen(v); /* the text may hold a NUL */
			char *tv = trim(v, &vn);
			if (vn && tv[vn - 1] == ';')
				vn--;
			fn(ctx, name, nn, tv, vn);
			free(v);
		}
		i = j + 1;
	}
}

struct field_ctx {
	struct perfparser_trace_field *f;
	char *type;
	size_t type_len;
	uint32_t long_size;
};

static void field_pair(void *ctx, const char *name, size_t nn, char *value, size_t vn)
{
	struct field_ctx *c = ctx;
	struct perfparser_trace_field *f = c->f;
	(void)nn;
	if (!strcmp(name, "field")) {
		/* split by single spaces, the last segment is the name */
		char *v = xstrndup(value, vn);
		size_t n = strlen(v);
		char *t = trim(v, &n);
		t[n] = 0;
		char *sp = strrchr(t, ' ');
		char *fname = sp ? sp + 1 : t;
		size_t tn = sp ? (size_t)(sp - t) : 0;
		if (fname[0] == '*') {
			f->flags |= PPT_FIELD_IS_POINTER;
			fname++;
		}
		size_t fl = strlen(fname);
		if (fl && fname[fl - 1] == ']') {
			char *open = strrchr(fname, '[');
			if (open) {
				f->flags |= PPT_FIELD_IS_ARRAY;
				f->arraylen = (uint32_t)strtoul(open + 1, NULL, 10);
				*open = 0;
			}
		}
		free(f->name);
		f->name = xstrdup(fname);
		/* a trailing "[]" segment of the type marks an array */
		if (tn >= 2 && t[tn - 1] == ']' && t[tn - 2] == '[' && (tn == 2 || t[tn - 3] == ' ')) {
			f->flags |= PPT_FIELD_IS_ARRAY;
			tn = tn >= 3 ? tn - 3 : 0;
		}
		free(c->type);
		c->type = xstrndup(t, tn);
		c->type_len = tn;
		free(v);
	} else if (!strcmp(name, "offset")) {
		f->offset = (uint32_t)strtoul(value, NULL, 10);
	} else if (!strcmp(name, "size")) {
		f->size = (uint32_t)strtoul(value, NULL, 10);
	} else if (!strcmp(name, "signed")) {
		if (strtol(value, NULL, 10) != 0)
			f->flags |= PPT_FIELD_IS_SIGNED;
	}
}

static void read_field(const char *line, size_t n, uint32_t long_size, struct perfparser_trace_field *f)
{
	memset(f, 0, sizeof(*f));
	f->name_id = -1;
	struct field_ctx c = { f, NULL, 0, long_size };
	each_pair(line, n, field_pair, &c);
	const char *type = c.type ? c.type : "";
	size_t tl = c.type_len;
	if (!strncmp(type, "__data_loc", 10))
		f->flags |= PPT_FIELD_IS_DYNAMIC;
	if (has(type, tl, "long"))
		f->flags |= PPT_FIELD_IS_LONG;
	if (f->flags & PPT_FIELD_IS_ARRAY) {
		if (has(type, tl, "char") || has(type, tl, "u8") || has(type, tl, "s8")) {
			f->flags |= PPT_FIELD_IS_STRING;
			f->elementsize = 1;
		} else if (f->arraylen > 0) {
			f->elementsize = f->size / f->arraylen;
		} else if (has(type, tl, "u16") || has(type, tl, "s16")) {
			f->elementsize = 2;
		} else if (has(type, tl, "u32") || has(type, tl, "s32")) {
			f->elementsize = 4;
		} else if (has(type, tl, "u64") || has(type, tl, "s64")) {
			f->elementsize = 8;
		} else if (f->flags & PPT_FIELD_IS_LONG) {
			f->elementsize = long_size;
		}
	} else {
		f->elementsize = f->size;
	}
	if (!f->name)
		f->name = xstrdup("");
	free(c.type);
}

static int add_field(struct perfparser_trace_field **arr, uint32_t *nr, const struct perfparser_trace_field *f)
{
	if (*nr >= 4096)
		return -1;
	*arr = xrealloc(*arr, (*nr + 1) * sizeof(**arr));
	(*arr)[(*nr)++] = *f;
	return 0;
}

struct hdr_ctx {
	struct perfparser_trace_format *fmt;
	int32_t id;
	bool seen_id, in_format;
};

static void hdr_pair(void *ctx, const char *name, size_t nn, char *value, size_t vn)
{
	struct hdr_ctx *c = ctx;
	(void)nn;
	if (!strcmp(name, "name")) {
		free(c->fmt->name);
		c->fmt->name = xstrndup(value, vn);
		if ((c->fmt->flags & PPT_EVENT_FL_ISFTRACE) && vn == 6 && !memcmp(value, "bprint", 6))
			c->fmt->flags |= PPT_EVENT_FL_ISBPRINT;
	} else if (!strcmp(name, "id")) {
		c->id = (int32_t)strtol(value, NULL, 10);
		c->seen_id = true;
	} else if (!strcmp(name, "format")) {
		c->in_format = true;
	}
}

static void format_release(struct perfparser_trace_format *f)
{
	for (uint32_t i = 0; i < f->nr_common; i++)
		free(f->common[i].name);
	for (uint32_t i = 0; i < f->nr_fields; i++)
		free(f->fields[i].name);
	free(f->common);
	free(f->fields);
	free(f->system);
	free(f->name);
}

static bool parse_format(struct perfparser_trace *t, const char *system, size_t sysn, const char *text,
			 size_t n)
{
	struct perfparser_trace_format fmt;
	memset(&fmt, 0, sizeof(fmt));
	fmt.system = xstrndup(system, sysn);
	if (sysn == 6 && !memcmp(system, "ftrace", 6))
		fmt.flags |= PPT_EVENT_FL_ISFTRACE;
	enum { BEFORE, COMMON, OWN, AFTER } stage = BEFORE;
	struct hdr_ctx hc = { &fmt, -1, false, false };
	size_t i = 0;
	while (i <= n) {
		size_t j = i;
		while (j < n && text[j] != '\n')
			j++;
		const char *line = text + i;
		size_t ln = j - i;
		struct perfparser_trace_field f;
		switch (stage) {
		case COMMON:
		case OWN:
			/* the common fields, a blank line, the event's own ones */
			if (!ln) {
				stage = stage == COMMON ? OWN : AFTER;
			} else {
				bool own = stage == OWN;
				read_field(line, ln, t->long_size, &f);
				if (add_field(own ? &fmt.fields : &fmt.common,
					      own ? &fmt.nr_fields : &fmt.nr_common, &f))
					free(f.name);
			}
			break;
		case BEFORE:
		case AFTER:
			hc.in_format = false;
			each_pair(line, ln, hdr_pair, &hc);
			if (hc.in_format && stage == BEFORE)
				stage = COMMON;
			break;
		}
		i = j + 1;
	}
	if (!fmt.name)
		fmt.name = xstrdup("");
	if (!hc.seen_id) {
		format_release(&fmt);
		return false;
	}
	fmt.id = hc.id;
	struct perfparser_trace_format *old = perfparser_trace_find(t, fmt.id);
	if (old) {
		format_release(old);
		*old = fmt;
		return true;
	}
	if (ARRAY_GROW(t->formats, t->cap, t->nr + 1, 1 << 20)) {
		format_release(&fmt);
		return false;
	}
	t->formats[t->nr++] = fmt;
	return true;
}

struct perfparser_trace *perfparser_trace_parse(const uint8_t *data, size_t size)
{
	struct tracing_info ti;
	struct err e = { 0 };
	tracing_parse(data, size, &ti, &e); /* keeps what was read before damage */
	if (!ti.header_ok) {
		tracing_release(&ti);
		return NULL;
	}
	struct perfparser_trace *t = xcalloc(1, sizeof(*t));
	t->big_endian = ti.big_endian != 0;
	t->long_size = (uint32_t)ti.long_size;
	/* formats in file order; the first one without an ID ends the list,
	 * as in hotspot-perfparser */
	for (size_t i = 0; i < ti.nr; i++) {
		const struct tracing_event *ev = &ti.events[i];
		if (!parse_format(t, ev->system, strlen(ev->system), ev->format, ev->format_len))
			break;
	}
	tracing_release(&ti);
	return t;
}

void perfparser_trace_free(struct perfparser_trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr; i++)
		format_release(&t->formats[i]);
	free(t->formats);
	free(t);
}

struct perfparser_trace_format *perfparser_trace_find(struct perfparser_trace *t, int32_t id)
{
	for (size_t i = 0; t && i < t->nr; i++)
		if (t->formats[i].id == id)
			return &t->formats[i];
	return NULL;
}

static uint64_t raw_uint(const uint8_t *p, unsigned n, bool big)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v = (v << 8) | p[big ? i : n - 1 - i];
	return v;
}

/* One integer item as a QVariant; bool false if the size is not 1/2/4/8. */
static void put_item(struct buf *out, const uint8_t *p, uint32_t size, bool is_signed, bool big)
{
	if (size != 1 && size != 2 && size != 4 && size != 8) {
		qds_put_u32(out, 0); /* QVariant::Invalid */
		qds_put_u8(out, 1);
		return;
	}
	uint64_t v = raw_uint(p, size, big);
	if (size < 4) {
		/* qint8/quint8/qint16/quint16 become QVariant(int) */
		int32_t iv;
		if (is_signed)
			iv = size == 1 ? (int8_t)v : (int16_t)v;
		else
			iv = (int32_t)v;
		qds_put_u32(out, QDS_V_INT);
		qds_put_u8(out, 0);
		qds_put_u32(out, (uint32_t)iv);
	} else if (size == 4) {
		qds_put_u32(out, is_signed ? QDS_V_INT : QDS_V_UINT);
		qds_put_u8(out, 0);
		qds_put_u32(out, (uint32_t)v);
	} else {
		qds_put_u32(out, is_signed ? QDS_V_LONGLONG : QDS_V_ULONGLONG);
		qds_put_u8(out, 0);
		qds_put_u64(out, v);
	}
}

static void put_field(struct buf *out, const struct perfparser_trace_field *f, const uint8_t *raw,
		      size_t raw_size, bool big, int depth)
{
	uint64_t end = (uint64_t)f->offset + f->size;
	if (f->offset > INT32_MAX || f->size > INT32_MAX || end > INT32_MAX || end > raw_size ||
	    depth > 2) {
		qds_put_u32(out, 0);
		qds_put_u8(out, 1);
		return;
	}
	if (f->flags & PPT_FIELD_IS_ARRAY) {
		if (f->flags & PPT_FIELD_IS_DYNAMIC) {
			uint32_t ofs_size = 0;
			if (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8)
				ofs_size = (uint32_t)raw_uint(raw + f->offset, f->size, big);
			struct perfparser_trace_field nf = *f;
			nf.offset = ofs_size & 0xffff;
			nf.size = ofs_size >> 16;
			nf.flags &= ~(uint32_t)PPT_FIELD_IS_DYNAMIC;
			put_field(out, &nf, raw, raw_size, big, depth + 1);
			return;
		}
		if (f->flags & PPT_FIELD_IS_STRING) {
			qds_put_u32(out, QDS_V_BYTEARRAY);
			qds_put_u8(out, 0);
			qds_put_bytes(out, raw + f->offset, f->size);
			return;
		}
		qds_put_u32(out, QDS_V_LIST);
		qds_put_u8(out, 0);
		uint32_t n = 0;
		if (f->elementsize)
			n = (f->size + f->elementsize - 1) / f->elementsize;
		qds_put_u32(out, n);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t at = f->offset + i * f->elementsize;
			if ((uint64_t)at + f->elementsize > raw_size) {
				qds_put_u32(out, 0);
				qds_put_u8(out, 1);
				continue;
			}
			put_item(out, raw + at, f->elementsize, f->flags & PPT_FIELD_IS_SIGNED, big);
		}
		return;
	}
	put_item(out, raw + f->offset, f->size, f->flags & PPT_FIELD_IS_SIGNED, big);
}

void perfparser_trace_encode_fields(const struct perfparser_trace *t, const struct perfparser_trace_format *f,
			    const uint8_t *raw, size_t raw_size, struct buf *out)
{
	if (!f) {
		qds_put_u32(out, 0);
		return;
	}
	/* a QHash: one value per distinct name id, the last field wins */
	uint32_t n = 0;
	size_t at = out->len;
	qds_put_u32(out, 0);
	for (uint32_t i = 0; i < f->nr_fields; i++) {
		bool dup = false;
		for (uint32_t j = i + 1; j < f->nr_fields; j++)
			if (f->fields[j].name_id == f->fields[i].name_id)
				dup = true;
		if (dup)
			continue;
		qds_put_u32(out, (uint32_t)f->fields[i].name_id);
		put_field(out, &f->fields[i], raw ? raw : (const uint8_t *)"", raw ? raw_size : 0,
			  t->big_endian, 0);
		n++;
	}
	if (out->len >= at + 4) {
		out->data[at] = (uint8_t)(n >> 24);
		out->data[at + 1] = (uint8_t)(n >> 16);
		out->data[at + 2] = (uint8_t)(n >> 8);
		out->data[at + 3] = (uint8_t)n;
	}
}
