/*
 * tracing.h: the tracing data perf stores for tracepoint events
 * (HEADER_TRACING_DATA feature or pipe record): the ftrace event formats, so
 * a tracepoint attr's config (the event id) can be named "system:name" and
 * its raw data decoded. The one parser of this section: the header (naming),
 * `scorch script` (libtraceevent) and the perfparser stream read its result.
 *
 * Layout:
 *   "\x17\x08\x44tracing" version\0 endian(u8) long_size(u8) page_size(u32)
 *   "header_page\0" u64 size, text   "header_event\0" u64 size, text
 *   u32 n, n * { u64 size, format text }                 (system "ftrace")
 *   u32 systems, systems * { name\0, u32 n, n * { u64 size, format text } }
 *   u32 size, kallsyms text   u32 size, printk formats
 *   [version >= 0.6: u64 size, saved cmdlines]
 * Integers are in the file's byte order (the endian byte: 1 = big).
 * A format text has lines "name: NAME", "ID: N", "format:" fields, "print fmt:".
 *
 * The parse is lenient the way perf and hotspot-perfparser are: what was read
 * before a damaged part is kept (and the error says where it stopped).
 * Strings and texts point into the caller's data, which must outlive the
 * tracing_info; names are copies.
 */
#ifndef SCORCH_PERF_TRACING_H
#define SCORCH_PERF_TRACING_H

#include "util/err.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tracing_event {
	uint64_t id;          /* UINT64_MAX: the format has no "ID:" line */
	char *system;         /* "ftrace" for the ftrace formats */
	char *name;
	const char *format;   /* points into the tracing data */
	size_t format_len;
};

struct tracing_text {
	const char *p;        /* NULL when absent; not NUL-terminated */
	size_t len;
};

struct tracing_info {
	struct tracing_event *events; /* ftrace formats first, then each system's */
	size_t nr;
	bool header_ok;       /* magic and version read: the rest may still be partial */
	bool complete;        /* everything up to the printk formats was read */
	char version[8];
	int big_endian;
	int long_size;
	uint32_t page_size;
	struct tracing_text header_page, header_event, kallsyms, printk;
};

/* Parse n bytes at p. Returns 0, or a negative code with e filled; ti then
 * holds what was read before the problem (release it either way). */
int tracing_parse(const uint8_t *p, size_t n, struct tracing_info *ti, struct err *e);
void tracing_release(struct tracing_info *ti);
const struct tracing_event *tracing_find(const struct tracing_info *ti, uint64_t id);
/* The offset and size of field NAME in te's raw data, from its format text.
 * Returns 0, -ENOENT (no such field) or -EINVAL (a malformed line). */
int tracing_field(const struct tracing_event *te, const char *name, uint32_t *offset,
		  uint32_t *size);

#endif
