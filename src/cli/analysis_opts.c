/* analysis_opts.c: see analysis_opts.h. */
#include "cli/analysis_opts.h"
#include "cli/cli.h"
#include "cli/env.h"
#include "util/parse.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

const char cli_filter_usage[] =
	"  --pid PIDS, --tid TIDS, --comm COMMS   only these (comma-separated)\n"
	"  --event NAME            the event to use (default: the first sampled)\n"
	"  --off-cpu               off-CPU time: switch-out stacks weighted by the time\n"
	"                          until the switch-in (record with --off-cpu)\n"
	"  --wall                  wall-clock time: on-CPU samples as time + off-CPU time\n"
	"  --no-stitch             stacks cut at the end of their stack copy stay cut\n"
	"                          (by default their outer frames come from other\n"
	"                          samples of the thread)\n"
	"  --no-progress, -q       no progress bar on a terminal\n";

const char opts_analysis_help[] =
	"  -i, --input FILE        perf.data file, '-' for stdin (default perf.data)\n"
	"  --sysroot DIR           where to find the recorded system's files\n"
	"  --debug PATHS           extra directories with debug files (':'-separated)\n"
	"  --extra PATHS           extra directories with binaries (':'-separated)\n"
	"  --app DIR               the application's directory\n"
	"  --kallsyms FILE         kernel symbols (default /proc/kallsyms)\n"
	"  --max-frames N          deepest stack to keep (default: all its frames;\n"
	"                          script: 127, as perf script: of a DWARF\n"
	"                          sample's kernel and user frames each; -1: no limit)\n"
	"  --buffer-size KB        ordering buffer for files without rounds (32768;\n"
	"                          0: buffer until FINISHED_ROUND)\n"
	"  --max-buffer-size KB    largest the ordering buffer may grow (1048576)\n"
	"  --stack-limit BYTES     unwind only the first BYTES of each stack copy\n"
	"  -j, --jobs N            threads (default 1; 0: one per CPU) for script\n"
	"                          from a file; elsewhere one thread\n";

void cli_analysis_init(struct cli_analysis *a, const char *cmd)
{
	memset(a, 0, sizeof(*a));
	pipeline_config_init(&a->pc);
	a->jobs = 1;
	/* summaries stitch stacks cut at the end of their stack copy
	 * (script keeps perf script's stacks unless --stitch) */
	a->pc.stitch = true;
	/* one run, then the process exits: the caches stored, nothing freed
	 * (diff's first of two runs frees what it made) */
	a->pc.exit_after = true;
	cli_env_apply(&a->pc);
	profile_sink_config_init(&a->sc);
	a->cmd = cmd;
}

/* A count: 0 or more (as perf's options: decimal, 0x hex, 0 octal), at
 * most max; "-1" as minus_one when that is not 0 (then 0 is refused). */
static int count(const char *opt, const char *v, long long minus_one, long long max,
		 long long *out)
{
	uint64_t x = (uint64_t)minus_one;
	int rc = minus_one && !strcmp(v, "-1") ? 0 : parse_u64(v, PARSE_NUL, PARSE_C, (uint64_t)max, &x);
	if (rc == -EINVAL) {
		fprintf(stderr, "scorch: %s: '%s' is not a valid number\n", opt, v);
		return EXIT_BADINPUT;
	}
	if (rc || x < (minus_one ? 1u : 0u)) {
		fprintf(stderr, "scorch: %s: '%s' is out of range (%d to %lld)\n", opt, v, minus_one ? 1 : 0,
			max);
		return EXIT_BADINPUT;
	}
	*out = (long long)x;
	return 0;
}

int cli_analysis_set(struct cli_analysis *a, struct opts *p, int id, const char *v)
{
	struct pipeline_config *c = &a->pc;
	struct profile_filter *f = &a->sc.filter;
	long long n;
	int r = 0;
	switch (id) {
	case O_INPUT: c->input = v; break;
	case O_SYSROOT: c->sysroot = v; break;
	case O_DEBUG: c->debug_paths = v; break;
	case O_EXTRA: c->extra_paths = v; break;
	case O_APP: c->app_path = v; break;
	case O_KALLSYMS: c->kallsyms = v; break;
	case O_PID: f->pids = v; break;
	case O_TID: f->tids = v; break;
	case O_COMM: f->comms = v; break;
	case O_EVENT: f->event = v; break;
	case O_OFF_CPU: f->time_mode = OFFCPU_MODE_OFF_CPU; break;
	case O_WALL: f->time_mode = OFFCPU_MODE_WALL; break;
	case O_QUIET: a->no_progress = true; break;
	case O_OUTPUT: a->outpath = v; break;
	case O_DIFF: a->diff[0] = v, a->diff[1] = p->v2; break;
	case O_NO_COMM: a->sc.root = PROFILE_ROOT_NONE; break;
	case O_NO_INLINE: a->sc.inline_frames = false; break;
	case O_MISSING:
		if (strcmp(v, "--diff"))
			return OPTS_UNKNOWN;
		fprintf(stderr, "scorch: %s: --diff needs two files: --diff BASE NEW\n", a->cmd);
		return EXIT_BADINPUT;
	case O_MAX_FRAMES:
		if (!(r = count("--max-frames", v, PIPELINE_FRAMES_ALL, PIPELINE_FRAMES_ALL, &n)))
			c->max_frames = (int)n;
		break;
	case O_BUFFER_SIZE:
		if (!(r = count("--buffer-size", v, 0, LLONG_MAX / 1024, &n)))
			c->order.buffer_size = (uint64_t)n * 1024;
		break;
	case O_MAX_BUFFER_SIZE:
		if (!(r = count("--max-buffer-size", v, 0, LLONG_MAX / 1024, &n)))
			c->order.max_buffer_size = (uint64_t)n * 1024;
		break;
	case O_JOBS:
		if (!(r = count("-j", v, 0, 1024, &n)))
			a->jobs = (int)n;
		break;
	case O_STITCH: c->stitch = true; break;
	case O_NO_STITCH: c->stitch = false; break;
	case O_STACK_LIMIT:
		if (!(r = count("--stack-limit", v, 0, 1ll << 32, &n)))
			c->stack_limit = (uint64_t)n;
		break;
	default:
		return OPTS_UNKNOWN;
	}
	return r;
}

int cli_run_pipeline(struct pipeline_config *c, struct sink *sink, bool no_progress)
{
	struct err e = { 0 };
	struct progress pr;
	struct sink outer;
	bool tty = !no_progress && isatty(2);
	int cols = 80;
	struct winsize ws;
	if (tty && !ioctl(2, TIOCGWINSZ, &ws) && ws.ws_col >= 40)
		cols = ws.ws_col;
	progress_init(&pr, tty ? stderr : NULL, "scorch: reading", cols);
	if (cli_env()->progress_delay >= 0) /* tests: draw at once */
		pr.delay = cli_env()->progress_delay;
	c->progress = tty;
	cli_archive_input(c);
	progress_wrap(&pr, sink, &outer);
	int rc = pipeline_run(c, &outer, &e);
	if (rc < 0) {
		if (!e.set)
			err_set(&e, rc, "%s", strerror(-rc));
		cli_print_err(c->input ? c->input : "perf.data", &e);
		return rc == -EIO || rc == -ENOMEM ? EXIT_FAIL : EXIT_BADINPUT;
	}
	return EXIT_OK;
}

int cli_run_plain(struct pipeline_config *c, struct sink *sink)
{
	struct err e = { 0 };
	cli_archive_input(c);
	if (!pipeline_run(c, sink, &e))
		return EXIT_OK;
	if (ferror(stdout) && !e.has_offset) {
		/* the sink stopped because writing its output failed: say that,
		 * as script -j N does (blocks.c), not "analysis failed" */
		e = (struct err){ 0 };
		err_set(&e, -EIO, "writing the output failed (%s)", strerror(EIO));
	}
	cli_print_err(c->input, &e);
	return EXIT_BADINPUT;
}

void cli_warn_empty(const struct profile_sink *s)
{
	if (s->prof.samples)
		return;
	if (s->offcpu && !offcpu_stats(s->offcpu)->switch_outs) {
		fprintf(stderr, "scorch: warning: no switch-out samples: record with scorch record "
				"--off-cpu (or perf record -e sched:sched_switch --switch-events)\n");
		return;
	}
	fprintf(stderr, "scorch: warning: no samples");
	if (s->samples_filtered)
		fprintf(stderr, " (%llu filtered out by --pid/--tid/--comm)",
			(unsigned long long)s->samples_filtered);
	else if (s->samples_other_event)
		fprintf(stderr, " of this event (%llu of other events)",
			(unsigned long long)s->samples_other_event);
	fputc('\n', stderr);
}

FILE *cli_open_out(const char *path)
{
	if (!path || !strcmp(path, "-"))
		return stdout;
	FILE *f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "scorch: %s: %s\n", path, strerror(errno));
	return f;
}

int cli_close_out(FILE *f, const char *path)
{
	int bad = ferror(f);
	if (f == stdout)
		bad |= fflush(f) != 0;
	else
		bad |= fclose(f) != 0;
	if (bad) {
		fprintf(stderr, "scorch: %s: write error\n", path ? path : "stdout");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

int cli_num(const char *opt, const char *v, bool neg_ok, double *out)
{
	char *end;
	double x = strtod(v, &end);
	if (end == v || *end || (!neg_ok && x < 0)) {
		fprintf(stderr, "scorch: bad value '%s' for %s\n", v, opt);
		return -1;
	}
	*out = x;
	return 0;
}

int cli_run_profile(const char *cmd, struct pipeline_config *pc, struct profile_sink_config *sc,
		    const char *outpath, FILE **out, bool no_progress)
{
	struct profile_sink ps;
	struct sink sink;
	int rc;
	if (profile_sink_init(&ps, sc, &sink)) {
		fprintf(stderr, "scorch: %s: %s\n", cmd, ps.errbuf);
		rc = EXIT_BADINPUT;
		goto out;
	}
	*out = cli_open_out(outpath);
	if (!*out) {
		rc = EXIT_FAIL;
		goto out;
	}
	rc = cli_run_pipeline(pc, &sink, no_progress);
	int rc2 = cli_close_out(*out, outpath);
	if (!rc)
		rc = rc2;
out:
	profile_sink_release(&ps);
	return rc;
}
