/*
 * fuzz_dwdie.c: libFuzzer harness for the CU function-range reader (a
 * binary's or debug file's .debug_info and .debug_abbrev are untrusted
 * input). The first byte picks whether types are walked, the next two give
 * the length of the .debug_abbrev part, the rest is .debug_info; every unit
 * in it is walked. Each reported range must come from a DIE inside the
 * unit.
 */
#include "analyze/dwdie.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct unit_bounds {
	uint64_t lo, hi;
};

static void on_range(void *ctx, uint64_t die_off, uint64_t lo, uint64_t hi)
{
	const struct unit_bounds *u = ctx;
	(void)lo, (void)hi;
	if (die_off < u->lo || die_off >= u->hi)
		abort();
}

static void on_ask(void *ctx, uint64_t die_off)
{
	on_range(ctx, die_off, 0, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	bool types = data[0] & 1;
	size_t alen = (size_t)data[1] | (size_t)data[2] << 8;
	if (alen > size - 3)
		return 0;
	struct dwdie_sections s = { data + 3 + alen, data + 3, size - 3 - alen, alen };
	uint64_t off = 0;
	for (int k = 0; k < 64 && off + 4 <= s.info_size; k++) {
		uint32_t len;
		memcpy(&len, s.info + off, 4);
		if (len >= 0xfffffff0 || len > s.info_size - off - 4)
			break;
		struct unit_bounds u = { off, off + 4 + len };
		struct dwdie_visitor v = { on_range, on_ask, &u };
		dwdie_functions(&s, off, types, &v);
		off += 4 + (uint64_t)len;
	}
	return 0;
}
