/*
 * fuzz_tracing.c: libFuzzer harness for the tracing data parser
 * (perf/tracing.c, HEADER_TRACING_DATA) and what reads its result: the
 * tracepoint naming lookup, the perfparser stream's format parser and field
 * encoder, and `scorch script`'s libtraceevent printing (output/tpformat.c).
 * Input: byte 0 = n, then 2n bytes of raw sample data, then the tracing
 * data. Every format gets the raw data. libtraceevent runs in a forked
 * helper (tpformat.c), slow to start: only inputs with n % 16 == 1 take
 * that path, so most executions exercise the parsers at full speed.
 */
#include "output/perfparser_trace.h"
#include "output/tpformat.h"
#include "perf/tracing.h"
#include "util/buf.h"
#include <stdint.h>
#include <string.h>

/* libtraceevent (Debian's 1.7) leaks a few bytes on some error paths of
 * its format parser; those are its own, reported upstream's way, not ours */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > (1 << 20))
		return 0;
	size_t rl = (size_t)data[0] * 2;
	if (rl > size - 1)
		rl = size - 1;
	const uint8_t *raw = data + 1, *td = data + 1 + rl;
	size_t tn = size - 1 - rl;

	struct tracing_info ti;
	struct err e = { 0 };
	tracing_parse(td, tn, &ti, &e);
	for (size_t i = 0; i < ti.nr; i++)
		if (tracing_find(&ti, ti.events[i].id) == NULL && ti.events[i].id != UINT64_MAX)
			__builtin_trap(); /* every parsed id must be found */

	struct buf out;
	buf_init(&out, 1 << 24);
	struct perfparser_trace *t = perfparser_trace_parse(td, tn);
	for (size_t i = 0; t && i < t->nr; i++) {
		struct perfparser_trace_format *f = &t->formats[i];
		for (uint32_t k = 0; k < f->nr_fields; k++)
			f->fields[k].name_id = (int32_t)k;
		out.len = 0;
		perfparser_trace_encode_fields(t, f, raw, rl, &out);
	}
	perfparser_trace_free(t);

	if (ti.header_ok && data[0] % 16 == 1) {
		struct tpformat *tf = tpformat_new(&ti);
		for (size_t i = 0; tf && i < ti.nr && i < 64; i++) {
			out.len = 0;
			tpformat_print(tf, ti.events[i].id, 0, raw, rl, &out);
		}
		tpformat_free(tf);
	}
	buf_release(&out);
	tracing_release(&ti);
	return 0;
}
