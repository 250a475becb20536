/*
 * cmd_top.c: `scorch top`: the recorder's options (record's handler,
 * cli_record_set), the view's, then the view (live/tui.h) over live_run.
 */
#include "cli/cli.h"
#include "cli/env.h"
#include "cli/opts.h"
#include "analyze/pipeline.h"
#include "live/tui.h"
#include "record/record.h"
#include "util/parse.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f, void *ctx)
{
	fprintf(f,
		"usage: scorch top [OPTIONS] [-p PID,... | -t TID,... | -a | -- COMMAND [ARGS...]]\n"
		"  -e, --event EVENT,...    cpu-clock (default without a PMU), task-clock, ...\n"
		"  -F, --freq HZ|max        sampling frequency (default 4000)\n"
		"  -c, --count N            sample every N events\n"
		"  -g                       frame-pointer call graphs\n"
		"      --call-graph fp|dwarf[,SIZE]\n"
		"  -m, --mmap-pages N       ring pages per CPU (power of two)\n"
		"  -p, --pid PID,...        existing processes\n"
		"  -t, --tid TID,...        existing threads\n"
		"  -a, --all-cpus           system-wide (the default without a target)\n"
		"  -d, --delay SECS         refresh every SECS seconds (default 1)\n"
		"  -n, --iterations N       exit after N refreshes\n"
		"      --stdio              plain-text refreshes (also when stdout is no terminal)\n"
		"      --lines N            --stdio: entries per refresh (default 20)\n"
		"      --children           sort by children (inclusive) instead of self\n"
		"      --since-start        since-start window instead of decaying\n"
		"      --comms LIST         only these commands\n"
		"      --dsos LIST          only these shared objects (base names)\n"
		"      --off-cpu            off-CPU time: where threads wait (switch-out stacks)\n"
		"      --no-stitch          stacks cut at the end of their stack copy stay cut\n"
		"keys: Up/Down select, Enter call tree, a annotate, s self/children, w window,\n"
		"      c zoom to the command, d zoom to the shared object, p pause, q quit\n");
}

static int bad(const char *msg, const char *arg)
{
	fprintf(stderr, "scorch top: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
	return EXIT_BADINPUT;
}

struct top_cmd {
	struct record_opts o;
	struct top_view v;
	bool mmap_set, no_stitch;
};

static int set(void *ctx, struct opts *p, int id, const char *v)
{
	struct top_cmd *c = ctx;
	char *end;
	uint64_t x;
	switch (id) {
	case O_CALL_GRAPH:
		if (cli_record_set(&c->o, p, id, v))
			return EXIT_BADINPUT;
		if (c->o.cg == RECORD_CG_LBR)
			return bad("--call-graph lbr is not supported by top", NULL);
		return 0;
	case O_MMAP_PAGES:
		c->mmap_set = true;
		break;
	case O_DELAY:
		c->v.delay = strtod(v, &end);
		if (*end || !(c->v.delay >= 0.05) || c->v.delay > 3600)
			return bad("-d: bad delay (0.05 to 3600 seconds):", v);
		return 0;
	case O_ITERATIONS:
		if (parse_u64(v, PARSE_NUL, 0, 1000000, &x) || x < 1)
			return bad("-n: bad number of refreshes:", v);
		c->v.max_refresh = (unsigned)x;
		return 0;
	case O_LINES:
		if (parse_u64(v, PARSE_NUL, 0, 100000, &x) || x < 1)
			return bad("--lines: bad number:", v);
		c->v.tc.stdio_lines = (int)x;
		return 0;
	case O_STDIO: c->v.stdio = true; return 0;
	case O_NO_STITCH: c->no_stitch = true; return 0;
	case O_CHILDREN: c->v.tc.children = true; return 0;
	case O_SINCE_START: c->v.tc.since_start = true; return 0;
	case O_COMM: c->v.tc.comms = v; return 0;
	case O_DSOS: c->v.tc.dsos = v; return 0;
	case O_OFF_CPU: c->v.tc.off_cpu = true; return 0;
	}
	return cli_record_set(&c->o, p, id, v);
}

int cmd_top(int argc, char **argv)
{
	struct top_cmd c = { .v = { .delay = 1.0 } };
	record_opts_init(&c.o);
	c.o.rt_prio = 0; /* the analysis runs on the reader's thread: never real-time */
	c.o.quiet = true;
	c.o.dwarf_size = 8192; /* every copy is unwound live, on the reader's thread */
	cli_record_prefix("scorch top");
	struct opts p = { .cmd = OC_TOP, .prefix = "scorch top", .usage = usage, .in_order = 1, .terse = 1,
			  .set = set, .ctx = &c };
	if (!opts_parse(&p, argc, argv))
		return p.status;
	if (p.operand < argc)
		c.o.cmd = argv + p.operand;
	if (c.o.nr_targets && (c.o.system_wide || c.o.cmd))
		return bad("-p/-t, -a and a command are exclusive", NULL);
	if (c.o.system_wide && c.o.cmd)
		return bad("-a and a command are exclusive", NULL);
	if (!c.o.cmd && !c.o.nr_targets)
		c.o.system_wide = true; /* as perf top */
	/* the analysis shares the reader's thread: give the stack copies room
	 * to wait while a burst is unwound (4 MiB per CPU) */
	if (c.o.cg == RECORD_CG_DWARF && !c.mmap_set)
		c.o.mmap_pages = 1024;
	cli_record_defaults(&c.o);
	if (c.v.tc.off_cpu && cli_record_offcpu(&c.o))
		return EXIT_BADINPUT;
	c.o.argc = argc;
	c.o.argv = argv;
	struct cli_signals *sig = cli_record_signals(SIGWINCH, true);
	c.o.stop = &sig->stop;
	c.v.stop = &sig->stop;
	c.v.winch = &sig->aux;

	struct pipeline_config pc;
	pipeline_config_init(&pc);
	pc.input = "(live)";
	pc.order.buffer_size = 0; /* rounds order the stream */
	cli_env_apply(&pc);
	pc.stitch = !c.no_stitch;
	struct err e = { 0 };
	int rc = top_view_run(&c.v, &c.o, &pc, &e);
	if (rc) {
		fprintf(stderr, "scorch top: %s\n", e.set ? e.msg : strerror(-rc));
		return rc == -EINVAL || rc == -EACCES || rc == -EPERM || rc == -ENOENT || rc == -ESRCH
			       ? EXIT_BADINPUT
			       : EXIT_FAIL;
	}
	return EXIT_OK;
}
