/*
 * fuzz_header.c: libFuzzer harness for the perf.data file header parser
 * alone (perf/header.c, perf_file_header_parse): magic and byte order, the
 * attrs and their ids, the feature table and every feature section, as the
 * reader parses a mapped file. The first byte is the seeds' mode byte
 * (tests/e2e/fuzz.sh) and is skipped; the rest is the file. What was parsed
 * is then read back (the attrs' ids and names, the data section's place),
 * so a result that claims more than was checked shows up under ASan.
 */
#include "perf/event.h"
#include "perf/header.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > (1 << 20))
		return 0;
	data++;
	size--;
	/* a copy of exactly the file's bytes: a read past them is caught */
	uint8_t *m = malloc(size ? size : 1);
	if (!m)
		return 0;
	memcpy(m, data, size);
	struct perf_header h;
	struct perf_evlist el;
	struct err e = { 0 };
	perf_header_init(&h);
	perf_evlist_init(&el);
	int rc = perf_file_header_parse(&h, &el, m, size, &e);
	if (rc == 0 && !h.pipe) {
		if (h.data_offset > size || h.data_size > size - h.data_offset)
			abort(); /* the data section must lie inside the file */
		volatile uint64_t sum = 0;
		for (size_t i = 0; i < el.nr; i++) {
			const struct perf_attr *a = &el.attrs[i];
			for (size_t k = 0; k < a->nr_ids; k++)
				sum += a->ids[k];
			if (a->name)
				sum += strlen(a->name);
		}
	}
	perf_header_release(&h);
	perf_evlist_release(&el);
	free(m);
	return 0;
}
