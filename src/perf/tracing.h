/*
 * tracing.h: the tracing data perf stores for tracepoint events
 * (HEADER_TRACING_DATA feature or pipe record): the ftrace event formats, so
 * a tracepoint attr's config (the event id) can be named "system:name" and
 * its raw data described.
 *
 * Layout: "\x17\x08\x44tracing" version\0, endian u8, long_size u8,
 * page_size u32, "header_page\0" u64 size + text, "header_event\0" u64 size +
 * text, u32 n ftrace formats { u64 size, text }, u32 n systems { name\0,
 * u32 n { u64 size, format text } }, then kallsyms and printk (ignored).
 * A format text has lines "name: NAME", "ID: N", "format:" fields, "print fmt:".
 */
#ifndef SCORCH_PERF_TRACING_H
#define SCORCH_PERF_TRACING_H

#include "util/err.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tracing_event {
	uint64_t id;
	char *system;
	char *name;
	const char *format;   /* points into the tracing data */
	size_t format_len;
};

struct tracing_info {
	struct tracing_event *events;
	size_t nr;
	int big_endian;
	int long_size;
	uint32_t page_size;
};

int tracing_parse(const uint8_t *p, size_t n, struct tracing_info *ti, struct err *e);
void tracing_release(struct tracing_info *ti);
const struct tracing_event *tracing_find(const struct tracing_info *ti, uint64_t id);
/* The offset and size of field NAME in te's raw data, from its format text.
 * Returns 0, -ENOENT (no such field) or -EINVAL (a malformed line). */
int tracing_field(const struct tracing_event *te, const char *name, uint32_t *offset,
		  uint32_t *size);

#endif
