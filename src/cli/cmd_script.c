/* cmd_script.c: `scorch script` — samples in perf script's default format. */
#include "cli/cli.h"
#include "cli/analysis_opts.h"
#include "analyze/parallel/blocks.h"
#include "output/script.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f, void *ctx)
{
	fprintf(f, "usage: scorch script [-i FILE] [options]\n%s"
		   "  --no-inline             do not print inline frames\n"
		   "  --headers-only          only the header line of each sample\n"
		   "  --raw                   per sample: comm pid tid time(ns) period ip cpu event\n"
		   "  --ip                    ip, symbol and DSO for every event type, tracepoints\n"
		   "                          too (perf script's +ip,+sym,+dso fields)\n"
		   "  -F, --fields LIST       the fields to print, as perf script -F: comm,tid,pid,\n"
		   "                          time,cpu,event,trace,ip,sym,dso,addr,symoff,period,\n"
		   "                          data_src,weight,ins_lat; each name with a + or a -\n"
		   "                          before it: perf's fields plus or less those\n"
		   "  -G, --hide-call-graph   no call chains: the sample's ip on its line\n"
		   "  --pid PIDS, --tid TIDS  only these processes' / threads' samples (1,2,...)\n"
		   "  -c, --comms COMMS       only the samples of these commands (--comm too)\n"
		   "  -C, --cpu CPUS          only the samples taken on these CPUs (0-3,5)\n"
		   "  --time START,STOP       only the samples in this time (seconds, as printed;\n"
		   "                          either may be empty)\n"
		   "  --ns                    times with 9 decimals\n"
		   "  --reltime               times since the first sample shown\n"
		   "  --deltatime             times since the sample shown before\n"
		   "  --block-records N       with -j from a file: records in a block (default\n"
		   "                          128; the output is the same for any N)\n"
		   "  --stitch                stacks cut at the end of their stack copy get their\n"
		   "                          outer frames from other samples of the thread\n"
		   "  --no-stitch             stacks as unwound (the default)\n",
		opts_analysis_help);
}

struct script_cmd {
	struct cli_analysis a;
	struct script_opts so;
	uint64_t block_records; /* --block-records; 0: the default */
};

static int set(void *ctx, struct opts *p, int id, const char *v)
{
	struct script_cmd *s = ctx;
	switch (id) {
	case O_NO_INLINE: s->so.show_inline = false, s->a.pc.no_inline = true; return 0;
	case O_IP: s->so.all_ip = true; return 0;
	case O_RAW: s->so.raw = true; return 0;
	case O_HEADERS_ONLY: s->so.headers_only = true; return 0;
	case O_HIDE_CALLGRAPH:
		/* the sample's own function, as perf names it: its ELF symbol,
		 * not what was inlined there */
		s->so.hide_callchain = true, s->so.show_inline = false, s->a.pc.no_inline = true;
		s->a.pc.ip_only = true; /* nothing unwound */
		return 0;
	case O_NS: s->so.ns = true; return 0;
	case O_BLOCK_RECORDS: {
		char *end;
		errno = 0;
		unsigned long long n = *v >= '0' && *v <= '9' ? strtoull(v, &end, 10) : 0;
		if (!n || errno || *end || n > UINT32_MAX) {
			fprintf(stderr, "%s: --block-records: '%s' is not a valid number\n", p->prefix, v);
			return EXIT_BADINPUT;
		}
		s->block_records = n;
		return 0;
	}
	case O_RELTIME: s->so.reltime = true; return 0;
	case O_DELTATIME: s->so.deltatime = true; return 0;
	case O_PID:
	case O_TID:
	case O_COMM:
	case O_CPU:
	case O_TIME: {
		char msg[256];
		enum script_filter w = id == O_PID ? SCRIPT_PIDS : id == O_TID ? SCRIPT_TIDS :
				       id == O_COMM ? SCRIPT_COMMS : id == O_CPU ? SCRIPT_CPUS : SCRIPT_TIME;
		if (script_parse_filter(w, v, &s->so, msg, sizeof msg)) {
			fprintf(stderr, "%s: %s\n", p->prefix, msg);
			return EXIT_BADINPUT;
		}
		return 0;
	}
	case O_FIELDS: {
		char msg[256];
		if (script_parse_fields(v, &s->so, msg, sizeof msg)) {
			fprintf(stderr, "%s: %s\n", p->prefix, msg);
			return EXIT_BADINPUT;
		}
		return 0;
	}
	}
	return cli_analysis_set(&s->a, p, id, v);
}

static int make_sink(void *ctx, int i, FILE *out, struct sink *sink)
{
	struct script_cmd *s = ctx;
	(void)i;
	return script_sink_init(sink, out, &s->so);
}

static bool blocks_ok(void *ctx, const struct perf_header *h, const struct perf_evlist *el)
{
	struct script_cmd *s = ctx;
	(void)h;
	return script_blocks_ok(&s->so, el);
}

/* The run, once the options are taken. */
static int run(struct script_cmd *s)
{
	/* -j N: N threads, thread 0 reading and ordering the file for all,
	 * each resolving the blocks given to it (analyze/parallel/blocks.h);
	 * where the output cannot be cut so (a pipe, tracepoint fields,
	 * --raw, --stitch), one thread */
	cli_archive_input(&s->a.pc);
	if (s->a.jobs != 1) {
		struct err e = { 0 };
		struct blocks_config bc = { .n = s->a.jobs, .size = s->block_records, .make_sink = make_sink,
					    .out = stdout, .eligible = blocks_ok, .ctx = s };
		int rc = blocks_run(&s->a.pc, &bc, &e);
		if (rc == 0)
			return EXIT_OK;
		if (rc < 0) {
			cli_print_err(s->a.pc.input, &e);
			return EXIT_BADINPUT;
		}
	}
	struct sink sink;
	script_sink_init(&sink, stdout, &s->so);
	return cli_run_plain(&s->a.pc, &sink);
}

int cmd_script(int argc, char **argv)
{
	/* output in 256 KiB writes, not stdio's 4 KiB (a file or a pipe; a
	 * terminal keeps its line buffering): the 2.3 GB build recording's 360
	 * MB of text was 88,000 write calls, each a system call */
	static char outbuf[1 << 18];
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
	struct script_cmd s = { .so = { .show_inline = true } };
	cli_analysis_init(&s.a, "script");
	s.a.pc.stitch = false;          /* perf script's stacks; --stitch */
	s.a.pc.max_frames = 127;        /* perf script prints up to PERF_MAX_STACK_DEPTH entries */
	s.a.pc.max_frames_per_part = true; /* ...of the call chain and of the unwound stack each */
	s.a.pc.no_srclines = true;      /* the fields perf script prints by default have none */
	struct opts p = { .cmd = OC_SCRIPT, .prefix = "scorch script", .usage = usage, .set = set, .ctx = &s };
	if (!opts_parse(&p, argc, argv)) {
		script_opts_release(&s.so);
		return p.status;
	}
	if (s.so.reltime && s.so.deltatime) {
		fprintf(stderr, "%s: --reltime and --deltatime: choose one\n", p.prefix);
		script_opts_release(&s.so);
		return EXIT_BADINPUT;
	}
	int rc = run(&s);
	script_opts_release(&s.so);
	return rc;
}
