/*
 * tpformat.h: a tracepoint sample's fields as text, the way perf script
 * prints them (its TRACE field): libtraceevent evaluates the event's
 * "print fmt" over the raw data; where it cannot, it prints field=value
 * pairs. The formats, the byte order, long size, header page, kallsyms and
 * printk strings all come from the recording's tracing data (never the
 * running kernel's), so recordings from other machines print right.
 *
 * Built lazily by the first tracepoint sample: recordings without
 * tracepoints never load a format. libtraceevent runs in a helper process
 * (see tpformat.c): a hostile format cannot crash scorch.
 */
#ifndef SCORCH_OUTPUT_TPFORMAT_H
#define SCORCH_OUTPUT_TPFORMAT_H

#include "perf/tracing.h"
#include "util/buf.h"
#include <stddef.h>
#include <stdint.h>

struct tpformat;

/* Parse ti's formats (ti and its data need not outlive the call). */
struct tpformat *tpformat_new(const struct tracing_info *ti);
void tpformat_free(struct tpformat *tf);
/* Append event id's text for raw data to out (nothing when the id has no
 * format). Returns 0, -1 when out reached its cap, or -2 (once) when the
 * helper process died: nothing more is printed. */
int tpformat_print(struct tpformat *tf, uint64_t id, uint32_t cpu, const uint8_t *raw,
		   size_t raw_size, struct buf *out);

#endif
