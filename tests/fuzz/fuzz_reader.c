/*
 * fuzz_reader.c: libFuzzer harness for the perf.data reader: the mapped file
 * path, the pipe (streaming) path and zstd (seeds include compressed files).
 * The first byte picks the path; the rest is the file. Runs the full
 * pipeline (decode, ordering, session, resolve, script output to /dev/null)
 * and the stats sink; bit 2 of the first byte runs the profile collector with
 * the off-CPU stage instead (--off-cpu, or --wall with bit 1: sched_switch
 * raw fields, switch records, intervals).
 */
#include "analyze/pipeline.h"
#include "output/profile.h"
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
	struct err e = { 0 };
	if (which & 4) {
		struct profile_sink_config sc;
		struct profile_sink ps;
		profile_sink_config_init(&sc);
		sc.filter.time_mode = which & 2 ? OFFCPU_MODE_WALL : OFFCPU_MODE_OFF_CPU;
		if (!profile_sink_init(&ps, &sc, &sink))
			pipeline_run(&c, &sink, &e);
		profile_sink_release(&ps);
		return;
	}
	if (which & 2)
		stats_sink_init(&sink, devnull);
	else
		script_sink_init(&sink, devnull, NULL);
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
	run(fd, mode & 6);
	close(fd);
	return 0;
}
