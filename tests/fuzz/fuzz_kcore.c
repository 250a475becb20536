/*
 * fuzz_kcore.c: libFuzzer harness for the kernel memory image reader
 * (analyze/kernel/kcore.h): annotate reads /proc/kcore or a file given with
 * --kcore, whose ELF header, program headers and notes are input. The
 * input is the image; each segment found is read at its start, inside and
 * past its end, and every read must stay within what was asked.
 */
#include "analyze/kernel/kcore.h"
#include "fuzz_fd.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = fuzz_fd(data, size, false);
	if (fd < 0)
		return 0;
	char path[64], why[512];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct kcore *k = kcore_open(path, why, sizeof(why));
	close(fd);
	if (!k) {
		if (!memchr(why, 0, sizeof(why)))
			abort();
		return 0;
	}
	uint8_t id[20], buf[256];
	if (kcore_build_id(k, id) > 20)
		abort();
	/* addresses from the input: the bytes after the ELF header */
	for (size_t at = 64; at + 8 <= size && at < 64 + 8 * 16; at += 8) {
		uint64_t va;
		memcpy(&va, data + at, 8);
		for (int d = -1; d <= 1; d++)
			if (kcore_read(k, va + (uint64_t)(int64_t)d * 16, buf, sizeof(buf)) > sizeof(buf))
				abort();
	}
	kcore_free(k);
	return 0;
}
