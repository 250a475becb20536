/*
 * cmd_top.c: `scorch top`: the recorder's options (as record takes them),
 * the view's, then live_run with a top model as the sink. This file owns the
 * terminal: raw mode and the alternate screen while the full-screen view
 * runs (restored on every exit path, also after SIGINT/SIGTERM), keys read
 * without blocking on every pass of the recorder's loop (at most 100 ms
 * apart), and the screen written in one write() per redraw (cursor home,
 * each line cleared to its end: no blank frame, no flicker). With --stdio,
 * or when stdout is not a terminal, a plain-text block per refresh.
 */
#include "cli/cli.h"
#include "live/live.h"
#include "live/top.h"
#include "record/record.h"
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t top_stop;
static volatile sig_atomic_t top_winch;

static void on_stop(int sig)
{
	(void)sig;
	top_stop = 1;
}

static void on_winch(int sig)
{
	(void)sig;
	top_winch = 1;
}

static void on_chld(int sig)
{
	(void)sig;
}

struct top_ui {
	struct top *t;
	const struct record_opts *ro;
	bool tui;
	double delay;             /* seconds between refreshes */
	unsigned max_refresh;     /* -n: 0 = until q / the command ends */
	unsigned refresh;
	uint64_t start_ns, next_ns, last_ns;
	uint64_t last_samples;
	double last_cpu;
	int width, height;
	struct top_status st;
	struct live *live;
	struct termios saved;
	bool raw;
	unsigned char kb[64];     /* pending key bytes */
	size_t nkb;
	struct buf out;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static double cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static void term_size(struct top_ui *u)
{
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row) {
		u->width = ws.ws_col;
		u->height = ws.ws_row;
	}
}

static void write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return;
		}
		c += w;
		n -= (size_t)w;
	}
}

static void tui_enter(struct top_ui *u)
{
	if (tcgetattr(STDIN_FILENO, &u->saved) == 0) {
		struct termios t = u->saved;
		t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		t.c_cc[VMIN] = 0;
		t.c_cc[VTIME] = 0;
		if (tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0)
			u->raw = true;
	}
	/* alternate screen, cursor hidden */
	static const char enter[] = "\033[?1049h\033[?25l\033[H\033[2J";
	write_all(STDOUT_FILENO, enter, sizeof(enter) - 1);
}

static void tui_leave(struct top_ui *u)
{
	static const char leave[] = "\033[0m\033[?25h\033[?1049l";
	write_all(STDOUT_FILENO, leave, sizeof(leave) - 1);
	if (u->raw)
		tcsetattr(STDIN_FILENO, TCSANOW, &u->saved);
	u->raw = false;
}

static void fill_status(struct top_ui *u, struct live *l, uint64_t t)
{
	const struct record_result *res = live_result(l);
	double dt = (double)(t - u->last_ns) / 1e9, cpu = cpu_seconds();
	if (dt > 0) {
		u->st.rate = (double)(res->samples - u->last_samples) / dt;
		u->st.cpu_pct = 100.0 * (cpu - u->last_cpu) / dt;
	}
	u->last_ns = t;
	u->last_cpu = cpu;
	u->last_samples = res->samples;
	u->st.samples = res->samples;
	u->st.lost = res->lost;
	u->st.elapsed = (double)(t - u->start_ns) / 1e9;
	u->st.refresh = u->refresh;
}

static void draw(struct top_ui *u)
{
	u->out.len = 0;
	if (u->tui)
		top_render(u->t, &u->st, u->width, u->height, &u->out);
	else
		top_render_stdio(u->t, &u->st, u->width, &u->out);
	write_all(STDOUT_FILENO, u->out.data, u->out.len);
}

/* Decode one key from the pending bytes (arrows and pages as ESC [ x). */
static int next_key(struct top_ui *u)
{
	if (!u->nkb)
		return 0;
	int key = u->kb[0];
	size_t used = 1;
	if (key == 27) {
		if (u->nkb >= 3 && (u->kb[1] == '[' || u->kb[1] == 'O')) {
			used = 3;
			switch (u->kb[2]) {
			case 'A': key = TOP_KEY_UP; break;
			case 'B': key = TOP_KEY_DOWN; break;
			case 'C': key = TOP_KEY_RIGHT; break;
			case 'D': key = TOP_KEY_LEFT; break;
			case 'H': key = TOP_KEY_HOME; break;
			case 'F': key = TOP_KEY_END; break;
			default:
				key = 0;
				if (u->nkb >= 4 && u->kb[3] == '~') {
					used = 4;
					switch (u->kb[2]) {
					case '5': key = TOP_KEY_PGUP; break;
					case '6': key = TOP_KEY_PGDN; break;
					case '1': case '7': key = TOP_KEY_HOME; break;
					case '4': case '8': key = TOP_KEY_END; break;
					}
				}
			}
		} else {
			key = TOP_KEY_ESC;
		}
	} else if (key == '\r' || key == '\n') {
		key = TOP_KEY_ENTER;
	}
	memmove(u->kb, u->kb + used, u->nkb - used);
	u->nkb -= used;
	return key ? key : -1;
}

static int tick(void *ctx, struct live *l, uint64_t t)
{
	struct top_ui *u = ctx;
	if (top_stop)
		return 1;
	bool redraw = false;
	if (u->tui) {
		if (top_winch) {
			top_winch = 0;
			term_size(u);
			redraw = true;
		}
		ssize_t n = read(STDIN_FILENO, u->kb + u->nkb, sizeof(u->kb) - u->nkb);
		if (n > 0)
			u->nkb += (size_t)n;
		int key;
		while ((key = next_key(u))) {
			if (key < 0)
				continue;
			enum top_action a = top_key(u->t, key, u->height);
			if (a == TOP_QUIT)
				return 1;
			if (a == TOP_REDRAW)
				redraw = true;
		}
	}
	if (t >= u->next_ns) {
		/* late by more than a tenth (a slow start): count from now */
		uint64_t d = (uint64_t)(u->delay * 1e9);
		u->next_ns = t - u->next_ns > d / 10 ? t + d : u->next_ns + d;
		int rc = live_flush(l);
		if (rc < 0)
			return rc;
		u->refresh++;
		fill_status(u, l, t);
		top_refresh(u->t);
		redraw = true;
	}
	if (redraw && (!top_paused(u->t) || u->tui))
		draw(u);
	if (u->max_refresh && u->refresh >= u->max_refresh)
		return 1;
	return 0;
}

static int open_sink(void *ctx, struct live *l, struct sink **sink)
{
	struct top_ui *u = ctx;
	u->live = l;
	*sink = top_sink(u->t);
	return 0;
}

/* The recording ended by itself (the command exited): --stdio shows what
 * came after the last refresh. */
static void at_end(void *ctx)
{
	struct top_ui *u = ctx;
	if (u->tui || !u->live || (u->max_refresh && u->refresh >= u->max_refresh) ||
	    live_result(u->live)->samples == u->last_samples)
		return;
	u->refresh++;
	fill_status(u, u->live, now_ns());
	top_refresh(u->t);
	draw(u);
}

static void usage(FILE *f)
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
		"keys: Up/Down select, Enter call tree, s self/children, w window,\n"
		"      c zoom to the command, d zoom to the shared object, p pause, q quit\n");
}

static int bad(const char *msg, const char *arg)
{
	fprintf(stderr, "scorch top: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
	return EXIT_BADINPUT;
}

enum { OPT_CALL_GRAPH = 256, OPT_STDIO, OPT_LINES, OPT_CHILDREN, OPT_SINCE, OPT_COMMS, OPT_DSOS };

static const struct option longopts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "freq", required_argument, NULL, 'F' },
	{ "count", required_argument, NULL, 'c' },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "delay", required_argument, NULL, 'd' },
	{ "iterations", required_argument, NULL, 'n' },
	{ "stdio", no_argument, NULL, OPT_STDIO },
	{ "lines", required_argument, NULL, OPT_LINES },
	{ "children", no_argument, NULL, OPT_CHILDREN },
	{ "since-start", no_argument, NULL, OPT_SINCE },
	{ "comms", required_argument, NULL, OPT_COMMS },
	{ "dsos", required_argument, NULL, OPT_DSOS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_top(int argc, char **argv)
{
	struct record_opts o;
	record_opts_init(&o);
	o.rt_prio = 0; /* the analysis runs on the reader's thread: never real-time */
	o.quiet = true;
	struct top_config tc = { 0 };
	struct top_ui u = { .delay = 1.0, .width = 80, .height = 24 };
	bool stdio = false, mmap_set = false;
	opterr = 0;
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, "+e:F:c:gm:p:t:ad:n:h", longopts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'e':
			if (cli_record_events(&o, optarg))
				return EXIT_BADINPUT;
			break;
		case 'F':
			if (cli_record_freq(&o, optarg))
				return EXIT_BADINPUT;
			break;
		case 'c':
			o.period = strtoull(optarg, &end, 0);
			if (*end || !o.period || optarg[0] == '-')
				return bad("-c: bad period", optarg);
			o.freq = 0;
			break;
		case 'g':
			o.cg = RECORD_CG_FP;
			break;
		case OPT_CALL_GRAPH:
			if (cli_record_call_graph(&o, optarg))
				return EXIT_BADINPUT;
			if (o.cg == RECORD_CG_LBR)
				return bad("--call-graph lbr is not supported by top", NULL);
			break;
		case 'm': {
			unsigned long v = strtoul(optarg, &end, 0);
			if (*end || !v || (v & (v - 1)) || v > (1u << 20))
				return bad("-m: not a power of two number of pages:", optarg);
			o.mmap_pages = (unsigned)v;
			mmap_set = true;
			break;
		}
		case 'p':
		case 't':
			if (cli_record_ids(&o, optarg, c == 't'))
				return EXIT_BADINPUT;
			break;
		case 'a':
			o.system_wide = true;
			break;
		case 'd':
			u.delay = strtod(optarg, &end);
			if (*end || !(u.delay >= 0.05) || u.delay > 3600)
				return bad("-d: bad delay (0.05 to 3600 seconds):", optarg);
			break;
		case 'n': {
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || !v || v > 1000000 || optarg[0] == '-')
				return bad("-n: bad number of refreshes:", optarg);
			u.max_refresh = (unsigned)v;
			break;
		}
		case OPT_STDIO:
			stdio = true;
			break;
		case OPT_LINES: {
			long v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > 100000)
				return bad("--lines: bad number:", optarg);
			tc.stdio_lines = (int)v;
			break;
		}
		case OPT_CHILDREN:
			tc.children = true;
			break;
		case OPT_SINCE:
			tc.since_start = true;
			break;
		case OPT_COMMS:
			tc.comms = optarg;
			break;
		case OPT_DSOS:
			tc.dsos = optarg;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			if (optopt && optopt < 256)
				return bad("option needs a value or is unknown:", argv[optind - 1]);
			return bad("unknown or incomplete option", argv[optind - 1]);
		}
	}
	if (optind < argc)
		o.cmd = argv + optind;
	if (o.nr_targets && (o.system_wide || o.cmd))
		return bad("-p/-t, -a and a command are exclusive", NULL);
	if (o.system_wide && o.cmd)
		return bad("-a and a command are exclusive", NULL);
	if (!o.cmd && !o.nr_targets)
		o.system_wide = true; /* as perf top */
	/* the analysis shares the reader's thread: give the stack copies room
	 * to wait while a burst is unwound (4 MiB per CPU) */
	if (o.cg == RECORD_CG_DWARF && !mmap_set)
		o.mmap_pages = 1024;
	cli_record_defaults(&o, "scorch top");
	o.argc = argc;
	o.argv = argv;
	o.stop = &top_stop;
	u.tui = !stdio && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
	if (u.tui)
		o.cmd_quiet = true; /* the command must not write over the screen */
	if (!stdio && !u.tui)
		stdio = true;
	if (stdio)
		term_size(&u); /* the width of the lines, when a terminal */

	char msg[200];
	u.t = top_new(&tc, msg, sizeof(msg));
	if (!u.t)
		return bad(msg, NULL);
	u.ro = &o;
	top_set_end_hook(u.t, at_end, &u);
	u.st.event = o.events[0].name;
	u.st.freq = o.freq;
	u.st.call_graph = o.cg == RECORD_CG_FP ? "fp" : o.cg == RECORD_CG_DWARF ? "dwarf" : "no call graph";
	buf_init(&u.out, 64u << 20);
	u.start_ns = u.last_ns = now_ns();
	u.next_ns = u.start_ns + (uint64_t)(u.delay * 1e9);
	u.last_cpu = cpu_seconds();

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_winch;
	sigaction(SIGWINCH, &sa, NULL);
	sa.sa_handler = on_chld;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (u.tui) {
		term_size(&u);
		tui_enter(&u);
	}

	struct pipeline_config pc;
	pipeline_config_init(&pc);
	pc.input = "(live)";
	pc.order.buffer_size = 0; /* rounds order the stream */
	struct live_ops ops = { .ctx = &u, .open = open_sink, .tick = tick };
	struct record_result res;
	struct err e = { 0 };
	int rc = live_run(&o, &pc, &ops, &res, &e);
	if (u.tui)
		tui_leave(&u);
	top_free(u.t);
	buf_release(&u.out);
	if (rc) {
		fprintf(stderr, "scorch top: %s\n", e.set ? e.msg : strerror(-rc));
		return rc == -EINVAL || rc == -EACCES || rc == -EPERM || rc == -ENOENT || rc == -ESRCH
			       ? EXIT_BADINPUT
			       : EXIT_FAIL;
	}
	return EXIT_OK;
}
