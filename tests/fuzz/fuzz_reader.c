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
	if (mode & 1) {
		/* pipe: the whole input fits the pipe buffer, written up front */
		int p[2];
		if (pipe(p))
			return 0;
		fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
		fcntl(p[1], F_SETFL, O_NONBLOCK);
		size_t off = 0;
		while (off < size) {
			ssize_t w = write(p[1], data + off, size - off);
			if (w <= 0)
				break;
			off += (size_t)w;
		}
		close(p[1]);
		run(p[0], mode & 2);
		close(p[0]);
	} else {
		int fd = memfd_create("fuzz", 0);
		if (fd < 0)
			return 0;
		if (write(fd, data, size) != (ssize_t)size) {
			close(fd);
			return 0;
		}
		lseek(fd, 0, SEEK_SET);
		run(fd, mode & 2);
		close(fd);
	}
	return 0;
}
