/*
 * fuzz_perfparser.c: libFuzzer harness for `scorch perfparser`'s own
 * parsing: the first byte picks the path, the rest is the input.
 *   mode 0: the whole pipeline into the perfparser stream sink (file path)
 *   mode 1: the --print-stats replay (file path)
 *   mode 2: the tracing data parser and field encoder on the raw bytes
 *   mode 3: the perfparser sink through a pipe (streaming input)
 * The stream goes to /dev/null; a memory error or leak is a finding.
 */
#include "analyze/pipeline.h"
#include "output/perfparser.h"
#include "output/perfparser_sink.h"
#include "output/perfparser_stats.h"
#include "output/perfparser_trace.h"
#include "fuzz_fd.h"
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int devnull = -1;

static void run_stream(int fd)
{
	struct perfparser_opts o;
	perfparser_opts_init(&o);
	o.fd = devnull;
	struct perfparser *pp = perfparser_new(&o);
	struct pipeline_config c;
	pipeline_config_init(&c);
	c.input = "fuzz";
	c.input_fd = fd;
	c.order.buffer_size = 64 * 1024;
	c.order.max_buffer_size = 1 << 20;
	struct sink sink;
	perfparser_sink_init(pp, NULL, &c, &sink);
	struct err e = { 0 };
	pipeline_run(&c, &sink, &e);
	perfparser_free(pp);
}

static void run_stats(int fd)
{
	struct err e = { 0 };
	struct input *in = input_open_fd(fd, "fuzz", NULL, &e);
	if (!in)
		return;
	struct perfparser_stats *st = perfparser_stats_new(64 * 1024, 1 << 20);
	perfparser_stats_run(st, in, &e);
	perfparser_stats_free(st);
	input_free(in);
}

static void run_trace(const uint8_t *data, size_t size)
{
	struct perfparser_trace *t = perfparser_trace_parse(data, size);
	if (!t)
		return;
	struct buf out;
	buf_init(&out, 1 << 24);
	for (size_t i = 0; i < t->nr; i++) {
		struct perfparser_trace_format *f = &t->formats[i];
		for (uint32_t k = 0; k < f->nr_fields; k++)
			f->fields[k].name_id = (int32_t)k;
		out.len = 0;
		/* the tail of the input as a raw sample record */
		size_t n = size > 256 ? 256 : size;
		perfparser_trace_encode_fields(t, f, data + size - n, n, &out);
	}
	buf_release(&out);
	perfparser_trace_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > (1 << 20))
		return 0;
	if (devnull < 0)
		devnull = open("/dev/null", O_WRONLY);
	uint8_t mode = data[0] & 3;
	data++;
	size--;
	if (mode == 2) {
		run_trace(data, size);
		return 0;
	}
	int fd = fuzz_fd(data, size, mode == 3);
	if (fd < 0)
		return 0;
	if (mode == 0 || mode == 3)
		run_stream(fd);
	else
		run_stats(fd);
	close(fd);
	return 0;
}
