/*
 * cmd_perfparser.c: `scorch perfparser` (also run as build/scorch-perfparser),
 * a drop-in for hotspot's hotspot-perfparser: its options, its exit codes,
 * the perfparser stream on stdout (or --output), or --print-stats.
 *
 * This file holds the options; the run is output/perfparser_run.c (which
 * also names the exit codes).
 */
#include "cli/analysis_opts.h"
#include "cli/cli.h"
#include "cli/env.h"
#include "cli/opts.h"
#include "analyze/pipeline.h"
#include "output/perfparser_run.h"
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

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
	"                                       their outer frames come from other\n"
	"                                       samples of the thread).\n"
	"  --stack-limit <bytes>                Unwind only the first <bytes> of each\n"
	"                                       sample's stack copy (scorch).\n";

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

	struct pipeline_config cfg;
	pipeline_config_init(&cfg);
	cfg.exit_after = true; /* one run: the caches stored, nothing freed */
	cli_env_apply(&cfg);
	if (a.input && !a.host) {
		cfg.input = a.input;
		cli_archive_input(&cfg);
	}
	return perfparser_run(&a, &cfg);
}
