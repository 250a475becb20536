/*
 * tpformat.c: see tpformat.h. A thin layer over libtraceevent (Debian's
 * libtraceevent-dev, the library perf links): the tep handle is set up from
 * the tracing data as perf's trace_report() does (file byte order, long and
 * page size, header_page, ftrace and event formats, kallsyms functions,
 * printk strings) and each sample is printed with TEP_PRINT_INFO.
 */
#include "output/tpformat.h"
#include <event-parse.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <trace-seq.h>

#define TPFORMAT_TEXT_MAX (64u << 20) /* kallsyms / printk text copied for the library */

/* libtraceevent reads fields at the offsets the format gives (and dynamic
 * arrays at offsets in the data: 16 bits of offset, 16 of length) without
 * checking them against the record size. Each record is copied into a
 * zeroed scratch area that covers every offset a format or the data can
 * name, so a hostile file reads zeros, never past an allocation. */
#define TPFORMAT_DYN_REACH (1u << 17)
#define TPFORMAT_FIELD_REACH (1 << 20) /* a format naming more is not printed */

struct tpformat {
	struct tep_handle *tep;
	struct trace_seq seq;
	uint8_t *scratch;       /* all zero except while a record is in it */
	size_t scratch_cap;
};

static size_t fields_end(struct tep_format_field *f)
{
	size_t end = 0;
	for (; f; f = f->next) {
		if (f->offset < 0 || f->size < 0 || f->offset > TPFORMAT_FIELD_REACH ||
		    f->size > TPFORMAT_FIELD_REACH)
			return SIZE_MAX;
		size_t e = (size_t)f->offset + (size_t)f->size;
		if (e > end)
			end = e;
	}
	return end;
}

static char *text_dup(const struct tracing_text *t)
{
	if (!t->p || !t->len || t->len > TPFORMAT_TEXT_MAX)
		return NULL;
	return xstrndup(t->p, t->len);
}

struct tpformat *tpformat_new(const struct tracing_info *ti)
{
	struct tep_handle *tep = tep_alloc();
	if (!tep)
		return NULL;
	/* the library prints its parse complaints on stderr; perf's are
	 * quiet unless -v, and unparsed formats still print their fields */
	tep_set_loglevel(TEP_LOG_NONE);
	tep_set_file_bigendian(tep, ti->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? TEP_BIG_ENDIAN
									  : TEP_LITTLE_ENDIAN);
	if (ti->long_size == 4 || ti->long_size == 8)
		tep_set_long_size(tep, ti->long_size);
	if (ti->page_size)
		tep_set_page_size(tep, (int)ti->page_size);
	char *hp = text_dup(&ti->header_page);
	if (hp)
		tep_parse_header_page(tep, hp, ti->header_page.len,
				      ti->long_size == 4 || ti->long_size == 8 ? ti->long_size : 8);
	free(hp);
	for (size_t i = 0; i < ti->nr; i++) {
		const struct tracing_event *ev = &ti->events[i];
		if (ev->id == UINT64_MAX)
			continue;
		tep_parse_event(tep, ev->format, ev->format_len, ev->system);
	}
	char *ks = text_dup(&ti->kallsyms);
	if (ks)
		tep_parse_kallsyms(tep, ks);
	free(ks);
	char *pk = text_dup(&ti->printk);
	if (pk)
		tep_parse_printk_formats(tep, pk);
	free(pk);
	struct tpformat *tf = xcalloc(1, sizeof(*tf));
	tf->tep = tep;
	trace_seq_init(&tf->seq);
	return tf;
}

void tpformat_free(struct tpformat *tf)
{
	if (!tf)
		return;
	trace_seq_destroy(&tf->seq);
	tep_free(tf->tep);
	free(tf->scratch);
	free(tf);
}

int tpformat_print(struct tpformat *tf, uint64_t id, uint32_t cpu, const uint8_t *raw,
		   size_t raw_size, struct buf *out)
{
	if (!tf || id > INT32_MAX || !raw || !raw_size || raw_size > INT32_MAX)
		return 0;
	struct tep_event *ev = tep_find_event(tf->tep, (int)id);
	if (!ev)
		return 0;
	size_t need = fields_end(ev->format.common_fields);
	size_t own = fields_end(ev->format.fields);
	if (own > need)
		need = own;
	if (need == SIZE_MAX || raw_size > (size_t)TPFORMAT_FIELD_REACH)
		return 0;
	if (raw_size > need)
		need = raw_size;
	need += TPFORMAT_DYN_REACH;
	if (need > tf->scratch_cap) {
		free(tf->scratch);
		tf->scratch = calloc(1, need);
		tf->scratch_cap = tf->scratch ? need : 0;
		if (!tf->scratch)
			return -1;
	}
	memcpy(tf->scratch, raw, raw_size);
	struct tep_record rec;
	memset(&rec, 0, sizeof(rec));
	rec.cpu = (int)cpu;
	rec.size = (int)raw_size;
	rec.data = tf->scratch;
	trace_seq_reset(&tf->seq);
	tep_print_event(tf->tep, &tf->seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&tf->seq);
	memset(tf->scratch, 0, raw_size);
	if (tf->seq.len > 0 && buf_append(out, tf->seq.buffer, (size_t)tf->seq.len))
		return -1;
	return 0;
}
