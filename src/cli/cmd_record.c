/*
 * cmd_record.c: `scorch record`: perf record's flags (cli/opts.c's table)
 * into struct record_opts, signal handlers that set the flags record_run
 * polls (globals, as only the CLI may have them), then record_run (or
 * continuous_run) and its summary (record_summary, continuous_summary).
 * What top takes the same way (the recorder's flags, the signals) is
 * exported as cli_record_* (cli.h). Bad flags and impossible requests: one
 * line on stderr, exit status 2.
 */
#include "cli/cli.h"
#include "cli/env.h"
#include "cli/opts.h"
#include "live/continuous.h"
#include "record/events.h"
#include "record/record.h"
#include "util/parse.h"
#include "util/xalloc.h"
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static const char *bad_prefix = "scorch record";

/* record's option state: the recorder's options, and --continuous with its
 * options (they are not the recorder's), --off-cpu, the build-id cache */
struct record_cmd {
	struct record_opts o;
	struct continuous_config cont;
	bool cont_on, cont_interval_set, off_cpu, no_buildid_cache;
	char buildid_dir[4096];
};

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", bad_prefix);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	return EXIT_BADINPUT;
}

static void log_line(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "[ scorch record: %s ]\n", msg);
}

static void usage(FILE *f, void *ctx)
{
	fprintf(f,
		"usage: scorch record [OPTIONS] [-- COMMAND [ARGS...]]\n"
		"  -o, --output FILE        output file (default perf.data; - for a pipe)\n"
		"  -e, --event EVENT,...    cpu-clock (default without a PMU), task-clock,\n"
		"                           page-faults, context-switches, cycles, SUBSYS:TRACEPOINT\n"
		"  -F, --freq HZ|max        sampling frequency (default 4000)\n"
		"  -c, --count N            sample every N events\n"
		"  -g                       frame-pointer call graphs\n"
		"      --call-graph fp|dwarf[,SIZE]|lbr\n"
		"  -m, --mmap-pages N       ring pages per CPU (power of two, or SIZE with K/M)\n"
		"  -p, --pid PID,...        record existing processes\n"
		"  -t, --tid TID,...        record existing threads\n"
		"  -a, --all-cpus           system-wide\n"
		"  -C, --cpu LIST           only these CPUs (0-3,5)\n"
		"  -i, --no-inherit         do not follow children\n"
		"      --io uring|aio|sync  trace writer (default uring, falling back)\n"
		"      --aio[=N]            POSIX AIO writer, N buffers in flight per ring (1..32)\n"
		"  -z, --compression-level[=N]  zstd-compress the trace (default level 1)\n"
		"      --switch-output[=signal|SIZE|TIME]  rotate files (SIGUSR2, 100M, 30s)\n"
		"  -r, --realtime N         SCHED_FIFO priority of the reader (default 1 when\n"
		"                           allowed; 0: normal priority, no busy reader)\n"
		"      --off-cpu            also where threads wait: sched:sched_switch with the\n"
		"                           same call graphs + context-switch records (read with\n"
		"                           the off-CPU options of report, flame, export)\n"
		"      --switch-events      context-switch records (PERF_RECORD_SWITCH)\n"
		"  -k, --clockid CLOCK      the samples' clock: monotonic, monotonic_raw, realtime,\n"
		"                           boottime, tai (mono, raw, real, boot) or a number\n"
		"  -N, --no-buildid-cache   do not add the files hit to the build-id cache\n"
		"                           ($HOME/.debug)\n"
		"  -q, --quiet              no messages\n"
		"      --continuous DIR     record without end; a pprof profile per interval\n"
		"                           in DIR/HOST-START.pb.gz\n"
		"      --interval SECS      the interval (default 60; also 30s, 5m, 1h)\n"
		"      --keep N             keep the newest N profiles (default 60)\n"
		"      --keep-raw           also keep each interval's recording (.data)\n"
		"      --push URL           also send each profile to a Pyroscope ingest API\n"
		"      --push-app NAME      the application name pushed (default scorch)\n");
}

/* A number as perf's options take it (decimal, 0x hex, 0 octal). */
static int parse_num(const char *s, uint64_t *v)
{
	return parse_u64(s, PARSE_NUL, PARSE_C, UINT64_MAX, v);
}

/* v (NULL: dflt) in lo..hi into *x; -1 when not */
static int in_range(const char *v, uint64_t dflt, uint64_t lo, uint64_t hi, uint64_t *x)
{
	*x = dflt;
	return v && (parse_num(v, x) || *x < lo || *x > hi) ? -1 : 0;
}

/* -p/-t ids (pid_t is an int) and -C CPUs: at most max of them */
struct ints {
	int *v;
	size_t n, max;
};

static int add_int(void *ctx, uint64_t x)
{
	struct ints *l = ctx;
	if (l->n >= l->max)
		return -E2BIG;
	l->v[l->n++] = (int)x;
	return 0;
}

static int parse_ids(const char *s, pid_t *out, size_t *n, size_t max)
{
	struct ints l = { out, *n, max };
	struct parse_bad bad;
	int rc = parse_id_list(s, 1, INT_MAX, add_int, &l, &bad);
	*n = l.n;
	return rc;
}

/* this machine's CPUs (configured, online or not) */
static int parse_cpus(const char *s, int *out, size_t *n, size_t max)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct ints l = { out, *n, max };
	struct parse_bad bad;
	int rc = parse_cpu_list(s, ncpu > 0 ? (uint64_t)ncpu : 1, add_int, &l, &bad);
	*n = l.n;
	return rc || !l.n ? -1 : 0;
}

static int add_events(struct record_opts *o, const char *list)
{
	char *dup = xstrdup(list), *save = NULL;
	int rc = 0;
	for (char *t = strtok_r(dup, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
		struct err e = { 0 };
		if (o->nr_events >= RECORD_MAX_EVENTS) {
			rc = bad("too many events (at most %d)", RECORD_MAX_EVENTS);
			break;
		}
		if (record_event_parse(t, &o->events[o->nr_events], &e) < 0)
			rc = bad("%s", e.msg);
		else
			o->nr_events++;
	}
	free(dup);
	return rc;
}

static uint64_t max_sample_rate(void)
{
	FILE *fp = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	unsigned long long v = 0;
	if (fp) {
		if (fscanf(fp, "%llu", &v) != 1)
			v = 0;
		fclose(fp);
	}
	return v;
}

static int call_graph(struct record_opts *o, const char *arg)
{
	uint64_t v;
	char mode[16];
	const char *comma = strchr(arg, ',');
	snprintf(mode, sizeof(mode), "%.*s", (int)(comma ? (size_t)(comma - arg) : strlen(arg)), arg);
	if (!strcmp(mode, "fp")) {
		o->cg = RECORD_CG_FP;
	} else if (!strcmp(mode, "dwarf")) {
		o->cg = RECORD_CG_DWARF;
		if (comma) {
			if (parse_size(comma + 1, &v) || v == 0 || v > 65528)
				return bad("--call-graph dwarf: bad stack size '%s' (8..65528)", comma + 1);
			o->dwarf_size = (uint32_t)((v + 7) & ~7ULL);
		}
	} else if (!strcmp(mode, "lbr")) {
		o->cg = RECORD_CG_LBR;
	} else {
		return bad("--call-graph: unknown mode '%s' (fp, dwarf, lbr)", arg);
	}
	if (comma && o->cg != RECORD_CG_DWARF)
		return bad("--call-graph: a size is only valid with dwarf");
	return 0;
}

static int mmap_pages(struct record_opts *o, const char *arg)
{
	uint64_t pages, v;
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	if (!parse_num(arg, &pages)) {
	} else if (!parse_size(arg, &v) && v >= pg) {
		pages = v / pg;
	} else {
		return bad("-m: bad size '%s'", arg);
	}
	if (!pages || (pages & (pages - 1)))
		return bad("-m: %s is not a power of two number of pages", arg);
	if (pages > (1u << 20))
		return bad("-m: %s pages is too large", arg);
	o->mmap_pages = (unsigned)pages;
	return 0;
}

/* -k: a number, or perf's names (a "CLOCK_" prefix allowed, any case) */
static int clockid(struct record_opts *o, const char *arg)
{
	static const struct { const char *name; int id; } clocks[] = {
		{ "monotonic", CLOCK_MONOTONIC }, { "monotonic_raw", CLOCK_MONOTONIC_RAW },
		{ "realtime", CLOCK_REALTIME },   { "boottime", CLOCK_BOOTTIME },
		{ "tai", CLOCK_TAI },             { "mono", CLOCK_MONOTONIC },
		{ "raw", CLOCK_MONOTONIC_RAW },   { "real", CLOCK_REALTIME },
		{ "boot", CLOCK_BOOTTIME },
	};
	uint64_t v;
	struct timespec ts;
	if (!parse_num(arg, &v)) {
		if (v > INT_MAX || clock_getres((clockid_t)v, &ts))
			return bad("-k: clock %s is not available", arg);
		o->clockid = (int)v;
		o->use_clockid = true;
		return 0;
	}
	const char *n = strncasecmp(arg, "CLOCK_", 6) ? arg : arg + 6;
	for (size_t i = 0; i < sizeof clocks / sizeof clocks[0]; i++)
		if (!strcasecmp(n, clocks[i].name)) {
			o->clockid = clocks[i].id;
			o->use_clockid = true;
			return 0;
		}
	return bad("-k: unknown clockid '%s' (monotonic, monotonic_raw, realtime, boottime, tai, or a number)", arg);
}

void cli_record_prefix(const char *prefix)
{
	bad_prefix = prefix;
}

int cli_record_set(struct record_opts *o, struct opts *p, int id, const char *v)
{
	switch (id) {
	case O_EVENT:
		return add_events(o, v);
	case O_FREQ:
		if (!strcmp(v, "max")) {
			o->freq = max_sample_rate();
			if (!o->freq)
				return bad("-F max: cannot read kernel.perf_event_max_sample_rate");
		} else if (parse_num(v, &o->freq) || !o->freq) {
			return bad("-F: bad frequency '%s'", v);
		}
		o->period = 0;
		return 0;
	case O_COUNT:
		if (parse_num(v, &o->period) || !o->period)
			return bad("-c: bad period '%s'", v);
		o->freq = 0;
		return 0;
	case O_G:
		o->cg = RECORD_CG_FP;
		return 0;
	case O_CALL_GRAPH:
		return call_graph(o, v);
	case O_MMAP_PAGES:
		return mmap_pages(o, v);
	case O_PID:
	case O_TID:
		if (parse_ids(v, o->targets, &o->nr_targets, RECORD_MAX_TARGETS))
			return bad("-%c: bad id list '%s'", id == O_TID ? 't' : 'p', v);
		o->targets_are_tids = id == O_TID;
		return 0;
	case O_ALL_CPUS:
		o->system_wide = true;
		return 0;
	}
	return OPTS_UNKNOWN;
}

void cli_record_defaults(struct record_opts *o)
{
	if (!o->nr_events) {
		struct err e = { 0 };
		record_event_parse("cycles", &o->events[0], &e);
		o->events[0].is_default = true;
		o->nr_events = 1;
	}
	uint64_t max = o->freq ? max_sample_rate() : 0;
	if (max && o->freq > max) {
		if (!o->quiet)
			fprintf(stderr, "%s: -F %llu exceeds kernel.perf_event_max_sample_rate, using %llu Hz\n",
				bad_prefix, (unsigned long long)o->freq, (unsigned long long)max);
		o->freq = max;
	}
}

static struct cli_signals sigs;

static void on_stop(int sig)
{
	(void)sig;
	sigs.stop = 1;
}

static void on_aux(int sig)
{
	(void)sig;
	sigs.aux = 1;
}

static void on_chld(int sig)
{
	(void)sig; /* only interrupts poll() */
}

struct cli_signals *cli_record_signals(int aux_sig, bool hup)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (hup)
		sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_aux;
	sigaction(aux_sig, &sa, NULL);
	sa.sa_handler = on_chld;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	/* one fd per (event, CPU, thread): -p on a big process needs many */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	return &sigs;
}

/* record's own options */
static int set(void *ctx, struct opts *p, int id, const char *v)
{
	struct record_cmd *c = ctx;
	struct record_opts *o = &c->o;
	uint64_t x;
	switch (id) {
	case O_OUTPUT:
		o->output = v;
		return 0;
	case O_CPU:
		if (parse_cpus(v, o->cpus, &o->nr_cpus, 1024))
			return bad("-C: bad CPU list '%s'", v);
		return 0;
	case O_NO_INHERIT:
		o->no_inherit = true;
		return 0;
	case O_IO: {
		static const char *const io[] = { "uring", "io_uring", "aio", "sync", NULL };
		static const enum record_io ios[] = { RECORD_IO_URING, RECORD_IO_URING, RECORD_IO_AIO,
						      RECORD_IO_SYNC };
		int k = opts_pick(v, io, "scorch record: --io: unknown writer '%s' (uring, aio, sync)\n");
		if (k < 0)
			return EXIT_BADINPUT;
		o->io = ios[k];
		return 0;
	}
	case O_AIO:
		o->io = RECORD_IO_AIO;
		if (in_range(v, 2, 1, 32, &x))
			return bad("--aio: N must be 1..32, not '%s'", v);
		o->aio_n = (unsigned)x;
		return 0;
	case O_COMPRESSION:
		if (in_range(v, 1, 1, 22, &x))
			return bad("--compression-level: must be 1..22, not '%s'", v);
		o->comp_level = (int)x;
		return 0;
	case O_SWITCH_OUTPUT:
		if (!v || !strcmp(v, "signal")) {
			o->switch_mode = RECORD_SWITCH_SIGNAL;
		} else if (!parse_duration_ms(v, &x)) {
			o->switch_mode = RECORD_SWITCH_TIME;
			o->switch_ms = x;
		} else if (!parse_size(v, &x) && x > 0) {
			o->switch_mode = RECORD_SWITCH_SIZE;
			o->switch_size = x;
		} else {
			return bad("--switch-output: expected signal, SIZE (100M) or TIME (30s), not '%s'", v);
		}
		return 0;
	case O_QUIET:
		o->quiet = true;
		return 0;
	case O_OFF_CPU:
		c->off_cpu = true;
		return 0;
	case O_SWITCH_EVENTS:
		o->switch_events = true;
		return 0;
	case O_REALTIME:
		if (in_range(v, 0, 0, 99, &x))
			return bad("-r: priority must be 0..99, not '%s'", v);
		o->rt_prio = (int)x;
		return 0;
	case O_CONTINUOUS:
		c->cont_on = true;
		c->cont.dir = v;
		return 0;
	case O_INTERVAL:
		if (!parse_num(v, &x) && x > 0 && x <= 86400)
			c->cont.interval_ms = x * 1000;
		else if (!parse_duration_ms(v, &x) && x >= 1000 && x <= 86400000)
			c->cont.interval_ms = x;
		else
			return bad("--interval: expected seconds (1 to 86400) or 30s, 5m, 1h, not '%s'", v);
		c->cont_interval_set = true;
		return 0;
	case O_KEEP:
		if (in_range(v, 0, 1, 100000, &x))
			return bad("--keep: expected 1 to 100000, not '%s'", v);
		c->cont.keep = (unsigned)x;
		return 0;
	case O_KEEP_RAW:
		c->cont.keep_raw = true;
		return 0;
	case O_PUSH:
		c->cont.push_url = v;
		return 0;
	case O_CLOCKID:
		return clockid(o, v);
	case O_NO_BUILDID_CACHE:
		c->no_buildid_cache = true;
		return 0;
	case O_PUSH_APP:
		if (!*v || strpbrk(v, "{}=, "))
			return bad("--push-app: a name without spaces, braces, '=' or ','");
		c->cont.push_app = v;
		return 0;
	}
	return cli_record_set(o, p, id, v);
}

int cli_record_offcpu(struct record_opts *o)
{
	for (size_t i = 0; i < o->nr_events; i++)
		if (!strcmp(o->events[i].name, "sched:sched_switch")) {
			o->switch_events = true; /* -e sched:sched_switch given: keep it */
			return 0;
		}
	/* the switch-out stacks: the tracepoint (with prev_state), else the
	 * software event at every switch; and the switch-ins */
	struct err e = { 0 };
	if (o->nr_events >= RECORD_MAX_EVENTS)
		return bad("too many events for --off-cpu (at most %d)", RECORD_MAX_EVENTS);
	struct record_event *ev = &o->events[o->nr_events];
	if (record_event_parse("sched:sched_switch", ev, &e) < 0) {
		struct err e2 = { 0 };
		if (record_event_parse("context-switches", ev, &e2) < 0)
			return bad("--off-cpu: %s", e2.msg);
		ev->period = 1;
		if (!o->quiet)
			fprintf(stderr, "[ %s: --off-cpu: sched:sched_switch is not available (%s): "
					"using context-switches -c 1, without the sleep state ]\n",
				bad_prefix, e.msg);
	}
	o->nr_events++;
	o->switch_events = true;
	return 0;
}

static int parse_args(int argc, char **argv, struct record_cmd *c)
{
	struct record_opts *o = &c->o;
	struct opts p = { .cmd = OC_RECORD, .prefix = "scorch record", .usage = usage, .in_order = 1, .terse = 1,
			  .set = set, .ctx = c };
	if (!opts_parse(&p, argc, argv))
		return p.status ? p.status : -1;
	if (p.operand < argc)
		o->cmd = argv + p.operand;
	cli_record_defaults(o);
	if (c->off_cpu && cli_record_offcpu(o))
		return EXIT_BADINPUT;
	if (o->nr_targets && o->system_wide)
		return bad("-p/-t and -a are exclusive");
	if (o->nr_targets && o->cmd)
		return bad("-p/-t and a command are exclusive");
	if (o->nr_cpus && !o->nr_targets)
		o->system_wide = true;
	if (!o->cmd && !o->nr_targets && !o->system_wide)
		return bad("nothing to record: give a command after --, -p PID, -t TID or -a");
	if (!c->cont_on && (c->cont_interval_set || c->cont.keep || c->cont.keep_raw ||
			    c->cont.push_url || c->cont.push_app))
		return bad("--interval, --keep, --keep-raw and --push need --continuous DIR");
	if (c->cont_on && (o->switch_mode != RECORD_SWITCH_NONE || strcmp(o->output, "perf.data")))
		return bad("--continuous writes its own files: no -o or --switch-output with it");
	if (c->cont_on && o->comp_level)
		return bad("--continuous keeps no compressed trace: no -z with it");
	if (!strcmp(o->output, "-") && o->switch_mode != RECORD_SWITCH_NONE)
		return bad("--switch-output cannot be used with -o -");
	/* each rotation renames the output: never a device, a fifo or a directory */
	struct stat st;
	if (o->switch_mode != RECORD_SWITCH_NONE && stat(o->output, &st) == 0 && !S_ISREG(st.st_mode))
		return bad("--switch-output renames its output, and '%s' is not a regular file", o->output);
	return 0;
}

static bool is_bad_request(int rc)
{
	return rc == -EINVAL || rc == -EACCES || rc == -EPERM || rc == -ENOENT || rc == -ESRCH ||
	       rc == -EMFILE || rc == -E2BIG;
}

static int run_continuous(struct record_cmd *c)
{
	struct record_opts *o = &c->o;
	struct continuous_config *cont = &c->cont;
	cont->buildid_dir = cli_env()->buildid_dir;
	cont->debuginfod = cli_env()->debuginfod;
	if (!cont->interval_ms)
		cont->interval_ms = 60000;
	if (!cont->keep)
		cont->keep = 60;
	cont->log = o->quiet ? NULL : log_line;
	struct record_result res;
	struct continuous_result cr;
	struct err e = { 0 };
	int rc = continuous_run(o, cont, &res, &cr, &e);
	continuous_summary(stderr, o, cont, &res, &cr);
	if (rc) {
		fprintf(stderr, "scorch record: %s\n", e.set ? e.msg : strerror(-rc));
		return is_bad_request(rc) && !cr.profiles ? EXIT_BADINPUT : EXIT_FAIL;
	}
	return EXIT_OK;
}

int cmd_record(int argc, char **argv)
{
	struct record_cmd c;
	memset(&c, 0, sizeof(c));
	record_opts_init(&c.o);
	struct record_opts *o = &c.o;
	int prc = parse_args(argc, argv, &c);
	if (prc)
		return prc < 0 ? EXIT_OK : prc;
	o->argc = argc;
	o->argv = argv;
	o->log = log_line;
	struct cli_signals *sig = cli_record_signals(SIGUSR2, false);
	o->stop = &sig->stop;
	o->switch_req = &sig->aux;

	struct record_result res;
	struct err e = { 0 };
	if (c.cont_on)
		return run_continuous(&c);
	if (!c.no_buildid_cache && cli_buildid_cache_dir(c.buildid_dir, sizeof c.buildid_dir)) {
		o->buildid_dir = c.buildid_dir;
		o->buildid_cache_max = cli_buildid_cache_max();
	}
	int rc = record_run(o, &res, &e);

	record_summary(stderr, o, &res);
	if (rc) {
		fprintf(stderr, "scorch record: %s\n", e.set ? e.msg : strerror(-rc));
		return is_bad_request(rc) && !res.files ? EXIT_BADINPUT : EXIT_FAIL;
	}
	return EXIT_OK;
}
