/*
 * cmd_perfparser.c: `scorch perfparser` (also run as build/scorch-perfparser),
 * a drop-in for hotspot's hotspot-perfparser: its options, its exit codes,
 * the perfparser stream on stdout (or --output), or --print-stats.
 *
 * Exit codes are hotspot-perfparser's (hotspot names them when it reports a
 * failure): 0 no error, 1 TCP socket error (and, as with Qt's command line
 * parser, an unknown option or a missing value), 2 cannot open, 3 bad magic
 * (unused by the reference: a bad magic is a header error), 4 header error,
 * 5 data error, 6 missing data (no usable architecture), 7 invalid option
 * value.
 */
#include "cli/cli.h"
#include "cli/env.h"
#include "cli/opts.h"
#include "analyze/parallel/blocks.h"
#include "analyze/pipeline.h"
#include "output/perfparser.h"
#include "output/perfparser_sink.h"
#include "output/perfparser_stats.h"
#include "util/parse.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum pp_exit {
	PPX_NO_ERROR = 0,
	PPX_TCP_SOCKET_ERROR = 1,
	PPX_CANNOT_OPEN = 2,
	PPX_BAD_MAGIC = 3,
	PPX_HEADER_ERROR = 4,
	PPX_DATA_ERROR = 5,
	PPX_MISSING_DATA = 6,
	PPX_INVALID_OPTION = 7,
};

#define PP_ERR_NO_ARCH (-100000)

static const char usage_text[] =
	"Usage: %s [options]\n"
	"Perf data parser and unwinder (scorch, compatible with hotspot-perfparser).\n"
	"\n"
	"Options:\n"
	"  -h, --help                           Displays help on commandline options.\n"
	"  -v, --version                        Displays version information.\n"
	"  --input <file>                       Read perf data from <file> instead of\n"
	"                                       stdin.\n"
	"  --host <host>                        Read perf data from remote <host>\n"
	"                                       instead of stdin.\n"
	"  --port <port>                        When reading from remote host, connect\n"
	"                                       to <port> (default: 9327).\n"
	"  --output <file>                      Write b2qt data to <file> instead of\n"
	"                                       stdout.\n"
	"  --sysroot <path>                     Look for system libraries in <path>\n"
	"                                       (default: /).\n"
	"  --debug <path>                       Look for debug information in <path>.\n"
	"                                       You can specify multiple paths separated\n"
	"                                       by ':'. The default is:\n"
	"                                       <sysroot>/usr/lib/debug:~/.debug:.debug .\n"
	"  --extra <path>                       Look for additional libraries in <path>\n"
	"                                       (default: .).\n"
	"  --app <path>                         Look for application binary in <path>\n"
	"                                       (default: .).\n"
	"  --arch <arch>                        Set the fallback architecture, in case\n"
	"                                       the architecture is not given in the data\n"
	"                                       itself, to <arch>. The default is: x86\n"
	"  --kallsyms <path>                    Path to kallsyms mapping to resolve\n"
	"                                       kernel symbols. The default is:\n"
	"                                       <sysroot>/proc/kallsyms .\n"
	"  --print-stats                        Print statistics instead of converting\n"
	"                                       the data.\n"
	"  --buffer-size <buffer-size>          Initial size of event buffer in\n"
	"                                       kilobytes (default 32768; 0: buffer\n"
	"                                       until FINISHED_ROUND).\n"
	"  --max-buffer-size <max-buffer-size>  Maximum size of event buffer in\n"
	"                                       kilobytes. The default value is 1GB\n"
	"  --max-frames <max-frames>            Maximum number of frames that will be\n"
	"                                       unwound. -1: as many as possible.\n"
	"                                       Default value is 64.\n"
	"  -j, --jobs <n>                       Unwind and symbolize on <n> threads\n"
	"                                       (scorch; the output is the same for\n"
	"                                       any <n>). Default 1; 0: the online\n"
	"                                       CPUs - 1, one thread with 2 or fewer.\n"
	"  --block-records <n>                  With -j from a file: records in a block\n"
	"                                       (scorch; default 256; the output is\n"
	"                                       the same for any <n>).\n"
	"  --no-stitch                          Stacks cut at the end of their stack\n"
	"                                       copy stay cut (scorch; by default\n"
	"                                       their outer frames come from earlier\n"
	"                                       samples of the thread).\n"
	"  --stack-limit <bytes>                Unwind only the first <bytes> of each\n"
	"                                       sample's stack copy (scorch).\n";

struct pp_args {
	const char *input, *host, *port, *output, *sysroot, *debug, *extra, *app, *arch, *kallsyms;
	const char *buffer_size, *max_buffer_size, *max_frames, *jobs, *block_records;
	const char *stack_limit;
	bool print_stats, no_stitch;
	const char *self; /* the name in the usage */
};

/* Qt's command line parser's messages and exit status 1 for unknown
 * options, missing values and operands. */
static int set(void *ctx, struct opts *p, int id, const char *v)
{
	struct pp_args *a = ctx;
	switch (id) {
	case O_HELP:
	case O_HELP_ALL:
		printf(usage_text, a->self);
		return OPTS_DONE;
	case O_VERSION:
		printf("perfparser 4.12 (scorch 0.1)\n");
		return OPTS_DONE;
	case O_INPUT: a->input = v; break;
	case O_HOST: a->host = v; break;
	case O_PORT: a->port = v; break;
	case O_OUTPUT: a->output = v; break;
	case O_SYSROOT: a->sysroot = v; break;
	case O_DEBUG: a->debug = v; break;
	case O_EXTRA: a->extra = v; break;
	case O_APP: a->app = v; break;
	case O_ARCH: a->arch = v; break;
	case O_KALLSYMS: a->kallsyms = v; break;
	case O_PRINT_STATS: a->print_stats = true; break;
	case O_BUFFER_SIZE: a->buffer_size = v; break;
	case O_MAX_BUFFER_SIZE: a->max_buffer_size = v; break;
	case O_MAX_FRAMES: a->max_frames = v; break;
	case O_JOBS: a->jobs = v; break;
	case O_BLOCK_RECORDS: a->block_records = v; break;
	case O_NO_STITCH: a->no_stitch = true; break;
	case O_STACK_LIMIT: a->stack_limit = v; break;
	case O_MISSING:
		fprintf(stderr, "Missing value after '%s'.\n", v);
		return PPX_TCP_SOCKET_ERROR;
	case O_UNKNOWN:
		fprintf(stderr, "Unknown option '%s'.\n", v + 1 + (v[1] == '-'));
		return PPX_TCP_SOCKET_ERROR;
	case O_OPERAND:
		fprintf(stderr, "Unexpected argument '%s'.\n", v);
		return PPX_TCP_SOCKET_ERROR;
	}
	return 0;
}

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

/* Connect to host:port, retrying with growing delays like hotspot-perfparser
 * (up to 10 more tries). Returns the socket or -1. */
static int tcp_connect(const char *host, const char *port)
{
	for (int tries = 0; tries <= 10; tries++) {
		struct addrinfo hints, *res = NULL;
		memset(&hints, 0, sizeof(hints));
		hints.ai_family = AF_UNSPEC;
		hints.ai_socktype = SOCK_STREAM;
		int rc = getaddrinfo(host, port, &hints, &res);
		if (rc == 0) {
			for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
				int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
				if (fd < 0)
					continue;
				if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
					freeaddrinfo(res);
					return fd;
				}
				close(fd);
			}
			freeaddrinfo(res);
			fprintf(stderr, "scorch perfparser: socket error: cannot connect to %s:%s: %s\n",
				host, port, strerror(errno));
		} else {
			fprintf(stderr, "scorch perfparser: socket error: %s: %s\n", host,
				gai_strerror(rc));
		}
		if (tries == 10)
			break;
		long ms = 1L << (tries + 1); /* 2 ms .. 1 s, about 2 s in all */
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
	return -1;
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

/* --print-stats: replay hotspot-perfparser's buffering over the records. */
static int print_stats(const struct pipeline_config *cfg, const struct pp_args *a,
		       uint32_t buffer_kb, uint32_t max_buffer_kb, int out_fd)
{
	struct err e;
	memset(&e, 0, sizeof(e));
	struct input *in = cfg->input_fd >= 0 ? input_open_fd(cfg->input_fd, cfg->input, cfg->tmpdir, &e)
					      : input_open(cfg->input, cfg->tmpdir, &e);
	if (!in) {
		cli_print_err(cfg->input, &e);
		return PPX_HEADER_ERROR;
	}
	const struct perf_header *h = input_header(in);
	if (!arch_known(h->arch ? h->arch : a->arch)) {
		fprintf(stderr, "No information about CPU architecture found. Cannot unwind.\n");
		input_free(in);
		return PPX_MISSING_DATA;
	}
	struct perfparser_stats *st = perfparser_stats_new(buffer_kb * 1024u, max_buffer_kb * 1024u);
	int rc = perfparser_stats_run(st, in, &e);
	int code = PPX_NO_ERROR;
	if (rc < 0) {
		cli_print_err(cfg->input, &e);
		code = PPX_DATA_ERROR;
	} else {
		FILE *f = fdopen(dup(out_fd), "w");
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

int cmd_perfparser(int argc, char **argv)
{
	struct pp_args a;
	memset(&a, 0, sizeof(a));
	a.port = "9327";
	a.arch = "x86";
	a.buffer_size = "32768";
	a.max_buffer_size = "1048576";
	a.max_frames = "64";
	a.jobs = "1"; /* -j 2 takes about twice the memory (docs/resolve.md) */
	/* hotspot starts its parser with options of its own: `scorch hotspot -j N`
	 * asks for threads through the environment (-j still decides) */
	if (cli_env()->perfparser_jobs)
		a.jobs = cli_env()->perfparser_jobs;
	a.self = argv[0] && strstr(argv[0], "perfparser") ? argv[0] : "scorch perfparser";
	struct opts p = { .cmd = OC_PERFPARSER, .prefix = "scorch perfparser", .set = set, .ctx = &a };
	if (!opts_parse(&p, argc, argv))
		return p.status;

	/* output first, like the reference: it cannot be opened -> 2 */
	int out_fd = 1;
	if (a.output) {
		out_fd = open(a.output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (out_fd < 0) {
			fprintf(stderr, "scorch perfparser: %s: %s\n", a.output, strerror(errno));
			return PPX_CANNOT_OPEN;
		}
	}

	uint32_t buffer_kb, max_buffer_kb, jobs, block_records = 0;
	int32_t max_frames;
	if (!parse_uint(a.buffer_size, &buffer_kb)) {
		fprintf(stderr, "Failed to parse buffer-size argument. Expected unsigned integer, got: \"%s\"\n",
			a.buffer_size);
		return PPX_INVALID_OPTION;
	}
	if (!parse_uint(a.max_buffer_size, &max_buffer_kb)) {
		fprintf(stderr, "Failed to parse buffer-size argument. Expected unsigned integer, got: \"%s\"\n",
			a.max_buffer_size);
		return PPX_INVALID_OPTION;
	}
	if (!parse_int(a.max_frames, &max_frames)) {
		fprintf(stderr, "Failed to parse max-frames argument. Expected integer, got: \"%s\"\n",
			a.max_frames);
		return PPX_INVALID_OPTION;
	}
	if (!parse_uint(a.jobs, &jobs) || jobs > 4096) {
		fprintf(stderr, "Failed to parse jobs argument. Expected unsigned integer, got: \"%s\"\n",
			a.jobs);
		return PPX_INVALID_OPTION;
	}
	if (a.block_records && (!parse_uint(a.block_records, &block_records) || !block_records)) {
		fprintf(stderr, "Failed to parse block-records argument. Expected positive integer, got: \"%s\"\n",
			a.block_records);
		return PPX_INVALID_OPTION;
	}

	struct perfparser *pp = NULL;
	if (!a.print_stats) {
		struct perfparser_opts o;
		perfparser_opts_init(&o);
		o.fd = out_fd;
		pp = perfparser_new(&o);
		perfparser_flush(pp, false); /* the magic goes out at once, as with the reference */
	}

	struct pipeline_config cfg;
	pipeline_config_init(&cfg);
	int in_fd = -1;
	if (a.host) {
		in_fd = tcp_connect(a.host, a.port);
		if (in_fd < 0) {
			perfparser_free(pp);
			return PPX_TCP_SOCKET_ERROR;
		}
		cfg.input = a.host;
		cfg.input_fd = in_fd;
	} else if (a.input) {
		int fd = open(a.input, O_RDONLY | O_CLOEXEC);
		struct stat sb;
		if (fd < 0 || fstat(fd, &sb) || S_ISDIR(sb.st_mode)) {
			fprintf(stderr, "scorch perfparser: %s: %s\n", a.input,
				fd < 0 ? strerror(errno) : "is a directory");
			if (fd >= 0)
				close(fd);
			perfparser_free(pp);
			return PPX_CANNOT_OPEN;
		}
		close(fd);
		cfg.input = a.input;
	} else {
		cfg.input = "-";
	}
	cfg.sysroot = a.sysroot;
	cfg.debug_paths = a.debug;
	cfg.extra_paths = a.extra;
	cfg.app_path = a.app;
	cfg.kallsyms = a.kallsyms;
	/* -1: as many as possible (bounded like `scorch script --max-frames -1`) */
	cfg.max_frames = max_frames < 0 || max_frames > PIPELINE_FRAMES_ALL ? PIPELINE_FRAMES_ALL
									  : max_frames ? max_frames : 1;
	/* 0: buffer until FINISHED_ROUND, as with hotspot-perfparser */
	cfg.order.buffer_size = (uint64_t)buffer_kb * 1024;
	if (max_buffer_kb)
		cfg.order.max_buffer_size = (uint64_t)max_buffer_kb * 1024;
	if (cfg.order.buffer_size > cfg.order.max_buffer_size)
		cfg.order.buffer_size = cfg.order.max_buffer_size;
	cfg.resolve = true;
	cfg.stitch = !a.no_stitch;
	if (a.stack_limit) {
		uint32_t lim;
		if (!parse_uint(a.stack_limit, &lim)) {
			fprintf(stderr, "Failed to parse stack-limit argument. Expected unsigned integer, got: \"%s\"\n",
				a.stack_limit);
			return PPX_TCP_SOCKET_ERROR;
		}
		cfg.stack_limit = lim;
	}
	cfg.jobs = (int)jobs;
	/* -j: samples resolve on workers; the stream keeps the record order */
	cfg.parallel_ordered = true;
	cfg.exit_after = true; /* one run: the caches stored, nothing freed */
	cli_env_apply(&cfg);
	if (a.print_stats) {
		int code = print_stats(&cfg, &a, buffer_kb, max_buffer_kb, out_fd);
		if (in_fd >= 0)
			close(in_fd);
		if (out_fd != 1)
			close(out_fd);
		return code;
	}

	struct sink out_sink;
	perfparser_sink_init(pp, a.arch, &cfg, &out_sink);
	struct wrap w = { out_sink, a.arch, false };
	struct sink sink = { .ctx = &w, .begin = wrap_begin, .event = wrap_event,
			     .sample = out_sink.sample ? wrap_sample : NULL, .end = wrap_end,
			     .jobs = out_sink.jobs };
	struct err e;
	memset(&e, 0, sizeof(e));
	/* -j N on a file: thread 0 reads and orders it for all, each
	 * resolves the blocks given to it; the stream is made in record
	 * order from what they keep (analyze/parallel/blocks.h); else worker threads
	 * (analyze/parallel/workers.h) */
	struct blocks_config bc = { .n = (int)jobs, .size = block_records, .ordered = &sink };
	int rc = jobs >= 2 ? blocks_run(&cfg, &bc, &e) : 1;
	if (rc == 1)
		rc = pipeline_run(&cfg, &sink, &e);
	int code = PPX_NO_ERROR;
	if (rc == PP_ERR_NO_ARCH) {
		code = PPX_MISSING_DATA;
	} else if (rc < 0) {
		if (e.set)
			cli_print_err(cfg.input, &e);
		else
			fprintf(stderr, "scorch perfparser: %s: %s\n", cfg.input, strerror(-rc));
		if (pp && perfparser_error_state(pp) && w.begun)
			code = PPX_DATA_ERROR; /* the reader went away */
		else
			code = w.begun ? PPX_DATA_ERROR : PPX_HEADER_ERROR;
	}
	if (pp && perfparser_flush(pp, true) && code == PPX_NO_ERROR)
		code = PPX_DATA_ERROR;
	perfparser_free(pp);
	if (in_fd >= 0)
		close(in_fd);
	if (out_fd != 1)
		close(out_fd);
	return code;
}
