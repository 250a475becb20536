/*
 * cmd_record.c: `scorch record`: perf record's flags parsed into struct
 * record_opts, signal handlers that set the flags record_run polls (the only
 * globals, as the CLI may have them), then the summary line. Bad flags and
 * impossible requests: one line on stderr, exit status 2.
 */
#include "cli/cli.h"
#include "live/continuous.h"
#include "record/record.h"
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t record_stop;
static volatile sig_atomic_t record_switch;
static const char *bad_prefix = "scorch record";
/* --continuous and its options (they are not the recorder's) */
static struct continuous_config cont;
static bool cont_on, cont_interval_set;

static void on_stop(int sig)
{
	(void)sig;
	record_stop = 1;
}

static void on_switch(int sig)
{
	(void)sig;
	record_switch = 1;
}

static void on_chld(int sig)
{
	(void)sig; /* only interrupts poll() */
}

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

static void usage(FILE *f)
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
		"  -q, --quiet              no messages\n"
		"      --continuous DIR     record without end; a pprof profile per interval\n"
		"                           in DIR/HOST-START.pb.gz\n"
		"      --interval SECS      the interval (default 60; also 30s, 5m, 1h)\n"
		"      --keep N             keep the newest N profiles (default 60)\n"
		"      --keep-raw           also keep each interval's recording (.data)\n"
		"      --push URL           also send each profile to a Pyroscope ingest API\n"
		"      --push-app NAME      the application name pushed (default scorch)\n");
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-')
		return -1;
	*v = x;
	return 0;
}

/* "100M", "2G", "4096" (bytes) */
static int parse_size(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || end == s || s[0] == '-')
		return -1;
	uint64_t mul = 1;
	switch (*end) {
	case 0: break;
	case 'b': case 'B': mul = 1; end++; break;
	case 'k': case 'K': mul = 1ULL << 10; end++; break;
	case 'm': case 'M': mul = 1ULL << 20; end++; break;
	case 'g': case 'G': mul = 1ULL << 30; end++; break;
	default: return -1;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return -1;
	*v = x * mul;
	return 0;
}

/* "30s", "5m", "1h", "1d" -> ms; SIZE or "signal" are told apart by the caller */
static int parse_time(const char *s, uint64_t *ms)
{
	char *end;
	unsigned long long x = strtoull(s, &end, 10);
	if (end == s || !*end || end[1])
		return -1;
	switch (*end) {
	case 's': *ms = x * 1000; return 0;
	case 'm': *ms = x * 60000; return 0;
	case 'h': *ms = x * 3600000; return 0;
	case 'd': *ms = x * 86400000; return 0;
	}
	return -1;
}

static int parse_ids(const char *s, pid_t *out, size_t *n, size_t max)
{
	char *dup = strdup(s), *save = NULL;
	int rc = 0;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		uint64_t v;
		if (parse_u64(t, &v) || v == 0 || v > INT_MAX || *n >= max) {
			rc = -1;
			break;
		}
		out[(*n)++] = (pid_t)v;
	}
	free(dup);
	return rc;
}

static int parse_cpus(const char *s, int *out, size_t *n, size_t max)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	const char *p = s;
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;
		if (end == p || a < 0)
			return -1;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a)
				return -1;
			p = end;
		}
		for (long c = a; c <= b; c++) {
			if (c >= ncpu || *n >= max)
				return -1;
			out[(*n)++] = (int)c;
		}
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return *n ? 0 : -1;
}

static int add_events(struct record_opts *o, const char *list)
{
	char *dup = strdup(list), *save = NULL;
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

int cli_record_call_graph(struct record_opts *o, const char *arg)
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

int cli_record_events(struct record_opts *o, const char *list)
{
	return add_events(o, list);
}

int cli_record_ids(struct record_opts *o, const char *list, bool tids)
{
	if (parse_ids(list, o->targets, &o->nr_targets, RECORD_MAX_TARGETS))
		return bad("-%c: bad id list '%s'", tids ? 't' : 'p', list);
	o->targets_are_tids = tids;
	return 0;
}

int cli_record_freq(struct record_opts *o, const char *arg)
{
	if (!strcmp(arg, "max")) {
		o->freq = max_sample_rate();
		if (!o->freq)
			return bad("-F max: cannot read kernel.perf_event_max_sample_rate");
	} else if (parse_u64(arg, &o->freq) || !o->freq) {
		return bad("-F: bad frequency '%s'", arg);
	}
	o->period = 0;
	return 0;
}

void cli_record_defaults(struct record_opts *o, const char *prefix)
{
	bad_prefix = prefix;
	if (!o->nr_events) {
		struct err e = { 0 };
		record_event_parse("cycles", &o->events[0], &e);
		o->events[0].is_default = true;
		o->nr_events = 1;
	}
	if (o->freq) {
		uint64_t max = max_sample_rate();
		if (max && o->freq > max)
			o->freq = max;
	}
}

enum {
	OPT_CALL_GRAPH = 256, OPT_IO, OPT_AIO, OPT_SWITCH, OPT_NO_BUILDID, OPT_OFF_CPU,
	OPT_SWITCH_EVENTS,
	OPT_CONTINUOUS, OPT_INTERVAL, OPT_KEEP, OPT_KEEP_RAW, OPT_PUSH, OPT_PUSH_APP,
};

static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "event", required_argument, NULL, 'e' },
	{ "freq", required_argument, NULL, 'F' },
	{ "count", required_argument, NULL, 'c' },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "no-inherit", no_argument, NULL, 'i' },
	{ "io", required_argument, NULL, OPT_IO },
	{ "aio", optional_argument, NULL, OPT_AIO },
	{ "compression-level", optional_argument, NULL, 'z' },
	{ "switch-output", optional_argument, NULL, OPT_SWITCH },
	{ "quiet", no_argument, NULL, 'q' },
	{ "realtime", required_argument, NULL, 'r' },
	{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
	{ "switch-events", no_argument, NULL, OPT_SWITCH_EVENTS },
	{ "continuous", required_argument, NULL, OPT_CONTINUOUS },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "keep", required_argument, NULL, OPT_KEEP },
	{ "keep-raw", no_argument, NULL, OPT_KEEP_RAW },
	{ "push", required_argument, NULL, OPT_PUSH },
	{ "push-app", required_argument, NULL, OPT_PUSH_APP },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_args(int argc, char **argv, struct record_opts *o)
{
	opterr = 0;
	optind = 1;
	int c;
	bool off_cpu = false;
	while ((c = getopt_long(argc, argv, "+o:e:F:c:gm:p:t:aC:izqr:h", longopts, NULL)) != -1) {
		uint64_t v;
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'e':
			if (add_events(o, optarg))
				return EXIT_BADINPUT;
			break;
		case 'F':
			if (!strcmp(optarg, "max")) {
				o->freq = max_sample_rate();
				if (!o->freq)
					return bad("-F max: cannot read kernel.perf_event_max_sample_rate");
			} else if (parse_u64(optarg, &o->freq) || !o->freq) {
				return bad("-F: bad frequency '%s'", optarg);
			}
			o->period = 0;
			break;
		case 'c':
			if (parse_u64(optarg, &o->period) || !o->period)
				return bad("-c: bad period '%s'", optarg);
			o->freq = 0;
			break;
		case 'g':
			o->cg = RECORD_CG_FP;
			break;
		case OPT_CALL_GRAPH:
			if (cli_record_call_graph(o, optarg))
				return EXIT_BADINPUT;
			break;
		case 'm': {
			uint64_t pages;
			size_t pg = (size_t)sysconf(_SC_PAGESIZE);
			if (!parse_u64(optarg, &pages)) {
			} else if (!parse_size(optarg, &v) && v >= pg) {
				pages = v / pg;
			} else {
				return bad("-m: bad size '%s'", optarg);
			}
			if (!pages || (pages & (pages - 1)))
				return bad("-m: %s is not a power of two number of pages", optarg);
			if (pages > (1u << 20))
				return bad("-m: %s pages is too large", optarg);
			o->mmap_pages = (unsigned)pages;
			break;
		}
		case 'p':
		case 't':
			if (parse_ids(optarg, o->targets, &o->nr_targets, RECORD_MAX_TARGETS))
				return bad("-%c: bad id list '%s'", c, optarg);
			o->targets_are_tids = c == 't';
			break;
		case 'a':
			o->system_wide = true;
			break;
		case 'C':
			if (parse_cpus(optarg, o->cpus, &o->nr_cpus, 1024))
				return bad("-C: bad CPU list '%s'", optarg);
			break;
		case 'i':
			o->no_inherit = true;
			break;
		case OPT_IO:
			if (!strcmp(optarg, "uring") || !strcmp(optarg, "io_uring"))
				o->io = RECORD_IO_URING;
			else if (!strcmp(optarg, "aio"))
				o->io = RECORD_IO_AIO;
			else if (!strcmp(optarg, "sync"))
				o->io = RECORD_IO_SYNC;
			else
				return bad("--io: unknown writer '%s' (uring, aio, sync)", optarg);
			break;
		case OPT_AIO:
			o->io = RECORD_IO_AIO;
			o->aio_n = 2;
			if (optarg) {
				if (parse_u64(optarg, &v) || v < 1 || v > 32)
					return bad("--aio: N must be 1..32, not '%s'", optarg);
				o->aio_n = (unsigned)v;
			}
			break;
		case 'z':
			o->comp_level = 1;
			if (optarg) {
				if (parse_u64(optarg, &v) || v < 1 || v > 22)
					return bad("--compression-level: must be 1..22, not '%s'", optarg);
				o->comp_level = (int)v;
			}
			break;
		case OPT_SWITCH:
			if (!optarg || !strcmp(optarg, "signal")) {
				o->switch_mode = RECORD_SWITCH_SIGNAL;
			} else if (!parse_time(optarg, &v)) {
				o->switch_mode = RECORD_SWITCH_TIME;
				o->switch_ms = v;
			} else if (!parse_size(optarg, &v) && v > 0) {
				o->switch_mode = RECORD_SWITCH_SIZE;
				o->switch_size = v;
			} else {
				return bad("--switch-output: expected signal, SIZE (100M) or TIME (30s), not '%s'",
					   optarg);
			}
			break;
		case 'q':
			o->quiet = true;
			break;
		case OPT_OFF_CPU:
			off_cpu = true;
			break;
		case OPT_SWITCH_EVENTS:
			o->switch_events = true;
			break;
		case 'r':
			if (parse_u64(optarg, &v) || v > 99)
				return bad("-r: priority must be 0..99, not '%s'", optarg);
			o->rt_prio = (int)v;
			break;
		case OPT_CONTINUOUS:
			cont_on = true;
			cont.dir = optarg;
			break;
		case OPT_INTERVAL:
			if (!parse_u64(optarg, &v) && v > 0 && v <= 86400) {
				cont.interval_ms = v * 1000;
			} else if (!parse_time(optarg, &v) && v >= 1000 && v <= 86400000) {
				cont.interval_ms = v;
			} else {
				return bad("--interval: expected seconds (1 to 86400) or 30s, 5m, 1h, not '%s'",
					   optarg);
			}
			cont_interval_set = true;
			break;
		case OPT_KEEP:
			if (parse_u64(optarg, &v) || v < 1 || v > 100000)
				return bad("--keep: expected 1 to 100000, not '%s'", optarg);
			cont.keep = (unsigned)v;
			break;
		case OPT_KEEP_RAW:
			cont.keep_raw = true;
			break;
		case OPT_PUSH:
			cont.push_url = optarg;
			break;
		case OPT_PUSH_APP:
			if (!*optarg || strpbrk(optarg, "{}=, "))
				return bad("--push-app: a name without spaces, braces, '=' or ','");
			cont.push_app = optarg;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			if (optopt && optopt < 256)
				return bad("option -%c %s", optopt,
					   strchr("oeFcmptCr", optopt) ? "needs a value" : "is unknown");
			return bad("unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		o->cmd = argv + optind;
	if (!o->nr_events) {
		struct err e = { 0 };
		record_event_parse("cycles", &o->events[0], &e);
		o->events[0].is_default = true;
		o->nr_events = 1;
	}
	for (size_t i = 0; off_cpu && i < o->nr_events; i++)
		if (!strcmp(o->events[i].name, "sched:sched_switch")) {
			o->switch_events = true; /* -e sched:sched_switch given: keep it */
			off_cpu = false;
		}
	if (off_cpu) {
		/* the switch-out stacks: the tracepoint (with prev_state), else
		 * the software event at every switch; and the switch-ins */
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
				fprintf(stderr, "[ scorch record: --off-cpu: sched:sched_switch is not "
						"available (%s): using context-switches -c 1, without the "
						"sleep state ]\n", e.msg);
		}
		o->nr_events++;
		o->switch_events = true;
	}
	if (o->nr_targets && o->system_wide)
		return bad("-p/-t and -a are exclusive");
	if (o->nr_targets && o->cmd)
		return bad("-p/-t and a command are exclusive");
	if (o->nr_cpus && !o->nr_targets)
		o->system_wide = true;
	if (!o->cmd && !o->nr_targets && !o->system_wide)
		return bad("nothing to record: give a command after --, -p PID, -t TID or -a");
	if (!cont_on && (cont_interval_set || cont.keep || cont.keep_raw || cont.push_url ||
			 cont.push_app))
		return bad("--interval, --keep, --keep-raw and --push need --continuous DIR");
	if (cont_on && (o->switch_mode != RECORD_SWITCH_NONE || strcmp(o->output, "perf.data")))
		return bad("--continuous writes its own files: no -o or --switch-output with it");
	if (cont_on && o->comp_level)
		return bad("--continuous keeps no compressed trace: no -z with it");
	if (!strcmp(o->output, "-") && o->switch_mode != RECORD_SWITCH_NONE)
		return bad("--switch-output cannot be used with -o -");
	if (o->freq) {
		uint64_t max = max_sample_rate();
		if (max && o->freq > max) {
			if (!o->quiet)
				fprintf(stderr,
					"scorch record: -F %llu exceeds kernel.perf_event_max_sample_rate, using %llu Hz\n",
					(unsigned long long)o->freq, (unsigned long long)max);
			o->freq = max;
		}
	}
	return 0;
}

static bool is_bad_request(int rc)
{
	return rc == -EINVAL || rc == -EACCES || rc == -EPERM || rc == -ENOENT || rc == -ESRCH ||
	       rc == -EMFILE || rc == -E2BIG;
}

static void cont_log(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "[ scorch record: %s ]\n", msg);
}

static int run_continuous(struct record_opts *o)
{
	if (!cont.interval_ms)
		cont.interval_ms = 60000;
	if (!cont.keep)
		cont.keep = 60;
	cont.log = o->quiet ? NULL : cont_log;
	struct record_result res;
	struct continuous_result cr;
	struct err e = { 0 };
	int rc = continuous_run(o, &cont, &res, &cr, &e);
	if (!o->quiet) {
		fprintf(stderr, "[ scorch record: %u profiles in %s, %llu samples, %llu lost",
			cr.profiles, cont.dir, (unsigned long long)res.samples,
			(unsigned long long)res.lost);
		if (cont.push_url)
			fprintf(stderr, "; pushed %llu, dropped %llu, given up %llu",
				(unsigned long long)cr.push.sent, (unsigned long long)cr.push.dropped,
				(unsigned long long)cr.push.given_up);
		fprintf(stderr, " ]\n");
	}
	if (rc) {
		fprintf(stderr, "scorch record: %s\n", e.set ? e.msg : strerror(-rc));
		return is_bad_request(rc) && !cr.profiles ? EXIT_BADINPUT : EXIT_FAIL;
	}
	return EXIT_OK;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	record_opts_init(&o);
	int prc = parse_args(argc, argv, &o);
	if (prc)
		return prc < 0 ? EXIT_OK : prc;
	o.argc = argc;
	o.argv = argv;
	o.stop = &record_stop;
	o.switch_req = &record_switch;
	o.log = log_line;

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_switch;
	sigaction(SIGUSR2, &sa, NULL);
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

	struct record_result res;
	struct err e = { 0 };
	if (cont_on)
		return run_continuous(&o);
	int rc = record_run(&o, &res, &e);

	if (res.files && !o.quiet) {
		double mb = (double)res.bytes / (1024.0 * 1024.0);
		double pct = res.samples + res.lost
				     ? 100.0 * (double)res.lost / (double)(res.samples + res.lost)
				     : 0.0;
		fprintf(stderr, "[ scorch record: Woken up %llu times to write data (%s writer) ]\n",
			(unsigned long long)res.wakeups, res.io_used ? res.io_used : "?");
		if (o.comp_level && res.comp_out)
			fprintf(stderr,
				"[ scorch record: Captured and wrote %.3f MB %s (%llu samples), compressed (original %.3f MB, ratio is %.3f) ]\n",
				mb, res.last_file, (unsigned long long)res.samples,
				(double)res.comp_in / (1024.0 * 1024.0),
				(double)res.comp_in / (double)res.comp_out);
		else
			fprintf(stderr, "[ scorch record: Captured and wrote %.3f MB %s (%llu samples) ]\n",
				mb, res.last_file, (unsigned long long)res.samples);
		if (res.lost)
			fprintf(stderr, "[ scorch record: Lost %llu samples (%.2f%%), recorded as LOST records ]\n",
				(unsigned long long)res.lost, pct);
	}
	if (res.child_ran && !o.quiet) {
		int st = res.child_status;
		if (WIFSIGNALED(st))
			fprintf(stderr, "[ scorch record: command terminated by signal %d (%s) ]\n",
				WTERMSIG(st), strsignal(WTERMSIG(st)));
		else if (WIFEXITED(st) && WEXITSTATUS(st))
			fprintf(stderr, "[ scorch record: command exited with status %d ]\n",
				WEXITSTATUS(st));
	}
	if (rc) {
		fprintf(stderr, "scorch record: %s\n", e.set ? e.msg : strerror(-rc));
		return is_bad_request(rc) && !res.files ? EXIT_BADINPUT : EXIT_FAIL;
	}
	return EXIT_OK;
}
