/*
 * tpinfo.h: the tracing data perf stores for tracepoint events
 * (HEADER_TRACING_DATA in a file, PERF_RECORD_HEADER_TRACING_DATA in a pipe):
 * the event format files from tracefs, without which perf cannot decode a
 * tracepoint's raw data and refuses the file. Layout, version 0.6:
 *
 *   "\027\010\104tracing" "0.6\0" u8 big_endian u8 sizeof(long) u32 page_size
 *   "header_page\0"  u64 size, events/header_page
 *   "header_event\0" u64 size, events/header_event
 *   u32 nr ftrace formats (0)
 *   u32 nr systems, per system: "sys\0" u32 nr, per event: u64 size, format
 *   u32 kallsyms size (0, as perf writes today)
 *   u32 size, printk_formats
 *   u64 size, saved_cmdlines
 */
#ifndef SCORCH_RECORD_TPINFO_H
#define SCORCH_RECORD_TPINFO_H

#include "util/buf.h"
#include "util/err.h"
#include <stddef.h>

/* names: "sys:event" strings. Returns 0 or a negative code with e filled. */
int tpinfo_build(struct buf *out, const char *const *names, size_t n, struct err *e);

#endif
