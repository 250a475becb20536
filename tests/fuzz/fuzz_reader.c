/*
 * fuzz_reader.c: libFuzzer harness for the perf.data reader: the mapped file
 * path, the pipe (streaming) path and zstd (seeds include compressed files).
 * The first byte picks the path; the rest is the file. Runs the full
 * pipeline (decode, ordering, session, resolve, script output to /dev/null)
 * and the stats sink; bit 2 of the first byte runs the profile collector with
 * the off-CPU stage instead (--off-cpu, or --wall with bit 1: sched_switch
 * raw fields, switch records, intervals). Bit 3: block-parallel runs
 * (analyze/parallel/blocks.h, 2 threads, blocks of 2 records) against one pipeline,
 * script text per thread (bit 0 clear) or one sink fed in order (bit 0
 * set): the output, the result and the error must be the same, else
 * abort(); thread 0 reads the file and hands its records to the other
 * (analyze/parallel/feed.h).
 * Bit 4, on the pipe path: no temporary file can be made, so a file-format
 * stream is read into memory instead of kept in a file (input.c).
 */
#include "analyze/parallel/blocks.h"
#include "analyze/pipeline.h"
#include "output/profile.h"
#include "output/script.h"
#include "output/stats.h"
#include "fuzz_fd.h"
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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
	if (which & 16) /* no temporary file can be made there */
		c.tmpdir = "/nonexistent/scorch-fuzz";
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

static int text_sink(void *ctx, int i, FILE *out, struct sink *sink)
{
	(void)ctx, (void)i;
	return script_sink_init(sink, out, NULL);
}

static bool text_ok(void *ctx, const struct perf_header *h, const struct perf_evlist *el)
{
	(void)ctx, (void)h;
	struct script_opts o = { .show_inline = false };
	return script_blocks_ok(&o, el);
}

/* One pipeline, then blocks, on the same file: the same bytes, the same result. */
static void run_blocks(const uint8_t *data, size_t size, bool ordered)
{
	int fd = fuzz_fd(data, size, false);
	if (fd < 0)
		return;
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	struct pipeline_config c;
	pipeline_config_init(&c);
	c.input = path;
	c.order.buffer_size = 64 * 1024;
	c.order.max_buffer_size = 1 << 20;
	c.kallsyms = "/dev/null";
	char *s1 = NULL, *s2 = NULL;
	size_t n1 = 0, n2 = 0;
	FILE *f1 = open_memstream(&s1, &n1), *f2 = open_memstream(&s2, &n2);
	struct sink sink;
	struct err e1 = { 0 }, e2 = { 0 };
	script_sink_init(&sink, f1, NULL);
	int r1 = pipeline_run(&c, &sink, &e1);
	struct blocks_config bc = { .n = 2, .size = 2 };
	if (ordered) {
		script_sink_init(&sink, f2, NULL);
		bc.ordered = &sink;
	} else {
		bc.make_sink = text_sink;
		bc.out = f2;
		bc.eligible = text_ok;
	}
	int r2 = blocks_run(&c, &bc, &e2);
	if (r2 == 1) { /* blocks do not apply: one pipeline, as the commands do */
		if (!ordered)
			script_sink_init(&sink, f2, NULL);
		r2 = pipeline_run(&c, &sink, &e2);
	}
	fclose(f1);
	fclose(f2);
	/* and the same error: the first one pipeline meets (a damaged sample
	 * is decoded by its block's thread only) */
	bool same_err = r1 >= 0 || (e1.has_offset == e2.has_offset && e1.offset == e2.offset &&
				    !strcmp(e1.msg, e2.msg));
	if (r1 != r2 || n1 != n2 || (n1 && memcmp(s1, s2, n1)) || !same_err) {
		fprintf(stderr, "blocks (%s) differ from one pipeline: rc %d/%d, %zu/%zu bytes, error '%s'/'%s'\n",
			ordered ? "ordered" : "text", r1, r2, n1, n2, e1.msg, e2.msg);
		abort();
	}
	free(s1);
	free(s2);
	close(fd);
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
	if (mode & 8) {
		run_blocks(data, size, mode & 1);
		return 0;
	}
	/* a file-format stream is kept in a temporary file (c.tmpdir); bit 4:
	 * none can be made there, so it is read into memory and walked there */
	int fd = fuzz_fd(data, size, mode & 1);
	if (fd < 0)
		return 0;
	run(fd, mode & 22);
	close(fd);
	return 0;
}
