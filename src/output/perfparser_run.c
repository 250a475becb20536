/*
 * perfparser_run.c: see perfparser_run.h. The output sink is wrapped to
 * remember whether the header was read (errors before are header errors,
 * after are data errors) and to check the architecture as
 * hotspot-perfparser does before reading data.
 */
#include "output/perfparser_run.h"
#include "analyze/parallel/blocks.h"
#include "analyze/pipeline.h"
#include "output/perfparser.h"
#include "output/perfparser_sink.h"
#include "output/perfparser_stats.h"
#include "util/err.h"
#include "util/parse.h"
#include "util/tcp.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PP_ERR_NO_ARCH (-100000)

/* PerfRegisterInfo::archByName: is this an architecture perfparser knows? */
static bool arch_known(const char *a)
{
	if (!a)
		return false;
	if (!strcmp(a, "aarch64") || !strcmp(a, "arm64") || !strncmp(a, "arm", 3) ||
	    !strncmp(a, "powerpc", 7) || !strncmp(a, "s390", 4) || !strncmp(a, "sh", 2) ||
	    !strncmp(a, "sparc", 5) || !strncmp(a, "x86", 3) || !strcmp(a, "amd64") ||
	    !strncmp(a, "mips", 4))
		return true;
	return strlen(a) == 4 && a[0] == 'i' && a[1] >= '3' && a[1] <= '7' && !strcmp(a + 2, "86");
}

/* QString::toUInt and toInt: decimal, blanks around it, a sign. */
static bool parse_uint(const char *s, uint32_t *out)
{
	uint64_t v;
	if (parse_u64(s, PARSE_NUL, PARSE_BLANKS, UINT32_MAX, &v))
		return false;
	*out = (uint32_t)v;
	return true;
}

static bool parse_int(const char *s, int32_t *out)
{
	int64_t v;
	if (parse_i64(s, PARSE_NUL, PARSE_BLANKS, INT32_MIN, INT32_MAX, &v))
		return false;
	*out = (int32_t)v;
	return true;
}

/* Each failed connection try, as the reference reports it. */
static void socket_error(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "scorch perfparser: socket error: %s\n", msg);
}

/* Wraps the output sink: remembers whether the header was read (errors
 * before are header errors, after are data errors) and checks the
 * architecture as hotspot-perfparser does before reading data. */
struct wrap {
	struct sink inner;
	const char *arch;
	bool begun;
};

static int wrap_begin(void *ctx, struct pipeline *p)
{
	struct wrap *w = ctx;
	w->begun = true;
	const struct perf_header *h = input_header(pipeline_input(p));
	const char *arch = h->arch ? h->arch : w->arch;
	if (!arch_known(arch)) {
		fprintf(stderr, "No information about CPU architecture found. Cannot unwind.\n");
		return PP_ERR_NO_ARCH;
	}
	return w->inner.begin ? w->inner.begin(w->inner.ctx, p) : 0;
}

static int wrap_event(void *ctx, struct pipeline *p, const struct perf_event *ev)
{
	struct wrap *w = ctx;
	return w->inner.event(w->inner.ctx, p, ev);
}

static int wrap_sample(void *ctx, struct pipeline *p, const struct resolved_sample *rs)
{
	struct wrap *w = ctx;
	return w->inner.sample(w->inner.ctx, p, rs);
}

static int wrap_end(void *ctx, struct pipeline *p, int rc)
{
	struct wrap *w = ctx;
	return w->inner.end ? w->inner.end(w->inner.ctx, p, rc) : 0;
}

/* One run: its descriptors, its stream writer and its numbers. */
struct run {
	int out_fd, in_fd;
	struct perfparser *pp; /* NULL with --print-stats */
	uint32_t buffer_kb, max_buffer_kb, jobs, block_records;
	int32_t max_frames;
};

static void run_close(struct run *r)
{
	if (r->in_fd >= 0)
		close(r->in_fd);
	if (r->out_fd != 1)
		close(r->out_fd);
}

/* The reference's message for an option value it cannot parse. */
static bool bad_value(const char *name, const char *expected, const char *v)
{
	fprintf(stderr, "Failed to parse %s argument. Expected %s, got: \"%s\"\n", name, expected, v);
	return false;
}

/* The numeric options, as QString parses them; false: message printed. */
static bool parse_numbers(const struct pp_args *a, struct run *r)
{
	if (!parse_uint(a->buffer_size, &r->buffer_kb))
		return bad_value("buffer-size", "unsigned integer", a->buffer_size);
	if (!parse_uint(a->max_buffer_size, &r->max_buffer_kb))
		return bad_value("buffer-size", "unsigned integer", a->max_buffer_size);
	if (!parse_int(a->max_frames, &r->max_frames))
		return bad_value("max-frames", "integer", a->max_frames);
	if (!parse_uint(a->jobs, &r->jobs) || r->jobs > 4096)
		return bad_value("jobs", "unsigned integer", a->jobs);
	if (a->block_records && (!parse_uint(a->block_records, &r->block_records) || !r->block_records))
		return bad_value("block-records", "positive integer", a->block_records);
	return true;
}

/* The input: a TCP connection (--host), a file that must open and not be
 * a folder, or stdin. PPX_NO_ERROR or the exit code (message printed). */
static int open_input(const struct pp_args *a, struct pipeline_config *cfg, struct run *r)
{
	if (a->host) {
		r->in_fd = tcp_connect(a->host, a->port, 10, socket_error, NULL);
		if (r->in_fd < 0)
			return PPX_TCP_SOCKET_ERROR;
		cfg->input = a->host;
		cfg->input_fd = r->in_fd;
	} else if (a->input) {
		int fd = open(cfg->input_file ? cfg->input_file : a->input, O_RDONLY | O_CLOEXEC);
		struct stat sb;
		if (fd < 0 || fstat(fd, &sb) || S_ISDIR(sb.st_mode)) {
			fprintf(stderr, "scorch perfparser: %s: %s\n", a->input,
				fd < 0 ? strerror(errno) : "is a directory");
			if (fd >= 0)
				close(fd);
			return PPX_CANNOT_OPEN;
		}
		close(fd);
		cfg->input = a->input;
	} else {
		cfg->input = "-";
	}
	return PPX_NO_ERROR;
}

/* The analysis as the options ask (the input is set). */
static void configure(const struct pp_args *a, const struct run *r, struct pipeline_config *cfg)
{
	cfg->sysroot = a->sysroot;
	cfg->debug_paths = a->debug;
	cfg->extra_paths = a->extra;
	cfg->app_path = a->app;
	cfg->kallsyms = a->kallsyms;
	/* -1: as many as possible (bounded like `scorch script --max-frames -1`) */
	cfg->max_frames = r->max_frames < 0 || r->max_frames > PIPELINE_FRAMES_ALL
				  ? PIPELINE_FRAMES_ALL
				  : r->max_frames ? r->max_frames : 1;
	/* 0: buffer until FINISHED_ROUND, as with hotspot-perfparser */
	cfg->order.buffer_size = (uint64_t)r->buffer_kb * 1024;
	if (r->max_buffer_kb)
		cfg->order.max_buffer_size = (uint64_t)r->max_buffer_kb * 1024;
	if (cfg->order.buffer_size > cfg->order.max_buffer_size)
		cfg->order.buffer_size = cfg->order.max_buffer_size;
	cfg->resolve = true;
	cfg->stitch = !a->no_stitch;
}

/* --print-stats: replay hotspot-perfparser's buffering over the records. */
static int print_stats(const struct pipeline_config *cfg, const struct pp_args *a,
		       const struct run *r)
{
	struct err e;
	memset(&e, 0, sizeof(e));
	struct input *in = cfg->input_fd >= 0 ? input_open_fd(cfg->input_fd, cfg->input, cfg->tmpdir, &e)
					      : input_open_named(pipeline_input_file(cfg), cfg->input, cfg->tmpdir, &e);
	if (!in) {
		err_print(cfg->input, &e);
		return PPX_HEADER_ERROR;
	}
	const struct perf_header *h = input_header(in);
	if (!arch_known(h->arch ? h->arch : a->arch)) {
		fprintf(stderr, "No information about CPU architecture found. Cannot unwind.\n");
		input_free(in);
		return PPX_MISSING_DATA;
	}
	struct perfparser_stats *st = perfparser_stats_new(r->buffer_kb * 1024u,
							   r->max_buffer_kb * 1024u);
	int rc = perfparser_stats_run(st, in, &e);
	int code = PPX_NO_ERROR;
	if (rc < 0) {
		err_print(cfg->input, &e);
		code = PPX_DATA_ERROR;
	} else {
		FILE *f = fdopen(dup(r->out_fd), "w");
		if (f) {
			perfparser_stats_print(st, f);
			if (fclose(f))
				code = PPX_DATA_ERROR;
		}
	}
	perfparser_stats_free(st);
	input_free(in);
	return code;
}

/* The stream: the records through the output sink (wrapped), on -j N
 * threads for a file. The exit code. */
static int stream(const struct pp_args *a, struct pipeline_config *cfg, struct run *r)
{
	struct sink out_sink;
	perfparser_sink_init(r->pp, a->arch, cfg, &out_sink);
	struct wrap w = { out_sink, a->arch, false };
	struct sink sink = { .ctx = &w, .begin = wrap_begin, .event = wrap_event,
			     .sample = out_sink.sample ? wrap_sample : NULL, .end = wrap_end,
			     .jobs = out_sink.jobs };
	struct err e;
	memset(&e, 0, sizeof(e));
	/* -j N on a file: thread 0 reads and orders it for all, each
	 * resolves the blocks given to it; the stream is made in record
	 * order from what they keep (analyze/parallel/blocks.h); from a
	 * pipe, one thread */
	struct blocks_config bc = { .n = (int)r->jobs, .size = r->block_records, .ordered = &sink };
	int rc = r->jobs != 1 ? blocks_run(cfg, &bc, &e) : 1;
	if (rc == 1)
		rc = pipeline_run(cfg, &sink, &e);
	int code = PPX_NO_ERROR;
	if (rc == PP_ERR_NO_ARCH) {
		code = PPX_MISSING_DATA;
	} else if (rc < 0) {
		if (e.set)
			err_print(cfg->input, &e);
		else
			fprintf(stderr, "scorch perfparser: %s: %s\n", cfg->input, strerror(-rc));
		if (r->pp && perfparser_error_state(r->pp) && w.begun)
			code = PPX_DATA_ERROR; /* the reader went away */
		else
			code = w.begun ? PPX_DATA_ERROR : PPX_HEADER_ERROR;
	}
	if (r->pp && perfparser_flush(r->pp, true) && code == PPX_NO_ERROR)
		code = PPX_DATA_ERROR;
	return code;
}

int perfparser_run(const struct pp_args *a, struct pipeline_config *cfg)
{
	struct run r = { .out_fd = 1, .in_fd = -1 };
	/* output first, like the reference: it cannot be opened -> 2 */
	if (a->output) {
		r.out_fd = open(a->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (r.out_fd < 0) {
			fprintf(stderr, "scorch perfparser: %s: %s\n", a->output, strerror(errno));
			return PPX_CANNOT_OPEN;
		}
	}
	if (!parse_numbers(a, &r))
		return PPX_INVALID_OPTION;
	if (!a->print_stats) {
		struct perfparser_opts o;
		perfparser_opts_init(&o);
		o.fd = r.out_fd;
		r.pp = perfparser_new(&o);
		perfparser_flush(r.pp, false); /* the magic goes out at once, as with the reference */
	}
	int code = open_input(a, cfg, &r);
	if (code != PPX_NO_ERROR) {
		perfparser_free(r.pp);
		return code;
	}
	configure(a, &r, cfg);
	uint32_t lim;
	if (a->stack_limit && !parse_uint(a->stack_limit, &lim)) {
		bad_value("stack-limit", "unsigned integer", a->stack_limit);
		code = PPX_TCP_SOCKET_ERROR;
	} else {
		if (a->stack_limit)
			cfg->stack_limit = lim;
		code = a->print_stats ? print_stats(cfg, a, &r) : stream(a, cfg, &r);
	}
	perfparser_free(r.pp);
	run_close(&r);
	return code;
}
