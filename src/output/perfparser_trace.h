/*
 * perfparser_trace.h: tracepoint formats for the perfparser stream.
 *
 * perf stores the kernel's ftrace "format" files in HEADER_TRACING_DATA:
 *
 *   "\x17\x08\x44tracing" version\0 endian(u8) long_size(u8) page_size(u32)
 *   "header_page\0" u64 size, text   "header_event\0" u64 size, text
 *   u32 n, n * { u64 size, format text }                 (system "ftrace")
 *   u32 systems, systems * { name\0, u32 n, n * { u64 size, format text } }
 *   u32 size, kallsyms   u32 size, printk   [>= 0.6: u64 size, cmdlines]
 *
 * A format text has "name: X", "ID: N", then "format:" followed by the
 * common fields, a blank line, the event's own fields, a blank line.
 * Each field line: "\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;".
 *
 * The stream carries one TracePointFormat per format and, for samples of a
 * tracepoint attr (config = format id), the event's own fields decoded from
 * the raw data as QVariants, the way hotspot-perfparser decodes them.
 */
#ifndef SCORCH_OUTPUT_PERFPARSER_TRACE_H
#define SCORCH_OUTPUT_PERFPARSER_TRACE_H

#include "util/buf.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	PPT_FIELD_IS_ARRAY = 1 << 0,
	PPT_FIELD_IS_POINTER = 1 << 1,
	PPT_FIELD_IS_SIGNED = 1 << 2,
	PPT_FIELD_IS_STRING = 1 << 3,
	PPT_FIELD_IS_DYNAMIC = 1 << 4,
	PPT_FIELD_IS_LONG = 1 << 5,
};

enum {
	PPT_EVENT_FL_ISFTRACE = 0x01,
	PPT_EVENT_FL_ISBPRINT = 0x04,
};

struct perfparser_trace_field {
	char *name;
	uint32_t offset, size, elementsize, arraylen, flags;
	int32_t name_id;        /* string id in the stream (set by the writer) */
};

struct perfparser_trace_format {
	int32_t id;
	char *system, *name;
	uint32_t flags;
	struct perfparser_trace_field *common, *fields;
	uint32_t nr_common, nr_fields;
};

struct perfparser_trace {
	struct perfparser_trace_format *formats;
	size_t nr, cap;
	bool big_endian;
	uint32_t long_size;
};

/* Parse tracing data; formats read before a parse problem are kept (as
 * hotspot-perfparser does). Returns NULL only when nothing could be read. */
struct perfparser_trace *perfparser_trace_parse(const uint8_t *data, size_t size);
void perfparser_trace_free(struct perfparser_trace *t);
struct perfparser_trace_format *perfparser_trace_find(struct perfparser_trace *t, int32_t id);
/* Encode the QHash<qint32, QVariant> of f's own fields for raw data. */
void perfparser_trace_encode_fields(const struct perfparser_trace *t, const struct perfparser_trace_format *f,
			    const uint8_t *raw, size_t raw_size, struct buf *out);

/* In perfparser.c: send the formats of tracing data / encode a sample's fields. */
struct perfparser;
void perfparser_trace_formats(struct perfparser *pp, const uint8_t *data, size_t size);
void perfparser_trace_fields(struct perfparser *pp, uint64_t config, const uint8_t *raw,
			     size_t raw_size, struct buf *out);

#endif
