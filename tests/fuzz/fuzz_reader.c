/*
 * fuzz_reader.c: libFuzzer harness for the perf.data reader: the mapped file
 * path, the pipe (streaming) path and zstd (seeds include compressed files).
 * The first byte picks the path; the rest is the file. Runs the full
 * pipeline (decode, ordering, session, resolve, script output to /dev/null)
 * and the stats sink.
 */
#include "analyze/pipeline.h"
#include "output/script.h"
#include "output/stats.h"
#include "fuzz_fd.h"
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static FILE *devnull;

static void run(int fd, int which)
{
	struct pipeline_config c;
	pipeline_config_init(&c);
	c.input = "fuzz";
	c.input_fd = fd;
	c.order.buffer_size = 64 * 1024;
	c.order.max_buffer_size = 1 << 20;
	/* the kernel symbol table is not what is fuzzed here, and loading it per
	 * input would be most of the time spent */
	c.kallsyms = "/dev/null";
	struct sink sink;
	if (which)
		stats_sink_init(&sink, devnull);
	else
		script_sink_init(&sink, devnull, NULL);
	struct err e = { 0 };
	pipeline_run(&c, &sink, &e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > (1 << 20))
		return 0;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	uint8_t mode = data[0];
	data++;
	size--;
	int fd = fuzz_fd(data, size, mode & 1);
	if (fd < 0)
		return 0;
	run(fd, mode & 2);
	close(fd);
	return 0;
}
