/*
 * cmd_top.c: `scorch top`: the recorder's options (record's handler,
 * cli_record_set), the view's, then live_run with a top model as the sink.
 * This file owns the terminal: raw mode and the alternate screen while the
 * full-screen view runs (restored on every exit path, also after
 * SIGINT/SIGTERM), keys read without blocking on every pass of the
 * recorder's loop (at most 100 ms apart), and the screen written in one
 * write() per redraw (cursor home, each line cleared to its end: no blank
 * frame, no flicker). With --stdio, or when stdout is not a terminal, a
 * plain-text block per refresh.
 */
#include "cli/cli.h"
#include "cli/env.h"
#include "cli/opts.h"
#include "live/live.h"
#include "live/top.h"
#include "record/record.h"
#include "util/parse.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

struct top_ui {
	struct top *t;
	struct cli_signals *sig; /* ->stop, ->aux: SIGWINCH */
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
	if (res->event[0])
		u->st.event = res->event; /* what was opened, not what was asked */
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
	if (u->sig->stop)
		return 1;
	bool redraw = false;
	if (u->tui) {
		if (u->sig->aux) {
			u->sig->aux = 0;
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
	if (live_result(l)->event[0])
		u->st.event = live_result(l)->event;
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
		"keys: Up/Down select, Enter call tree, s self/children, w window,\n"
		"      c zoom to the command, d zoom to the shared object, p pause, q quit\n");
}

static int bad(const char *msg, const char *arg)
{
	fprintf(stderr, "scorch top: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
	return EXIT_BADINPUT;
}

struct top_cmd {
	struct record_opts o;
	struct top_config tc;
	struct top_ui u;
	bool stdio, mmap_set, no_stitch;
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
		c->u.delay = strtod(v, &end);
		if (*end || !(c->u.delay >= 0.05) || c->u.delay > 3600)
			return bad("-d: bad delay (0.05 to 3600 seconds):", v);
		return 0;
	case O_ITERATIONS:
		if (parse_u64(v, PARSE_NUL, 0, 1000000, &x) || x < 1)
			return bad("-n: bad number of refreshes:", v);
		c->u.max_refresh = (unsigned)x;
		return 0;
	case O_LINES:
		if (parse_u64(v, PARSE_NUL, 0, 100000, &x) || x < 1)
			return bad("--lines: bad number:", v);
		c->tc.stdio_lines = (int)x;
		return 0;
	case O_STDIO: c->stdio = true; return 0;
	case O_NO_STITCH: c->no_stitch = true; return 0;
	case O_CHILDREN: c->tc.children = true; return 0;
	case O_SINCE_START: c->tc.since_start = true; return 0;
	case O_COMM: c->tc.comms = v; return 0;
	case O_DSOS: c->tc.dsos = v; return 0;
	case O_OFF_CPU: c->tc.off_cpu = true; return 0;
	}
	return cli_record_set(&c->o, p, id, v);
}

int cmd_top(int argc, char **argv)
{
	struct top_cmd c = { .u = { .delay = 1.0, .width = 80, .height = 24 } };
	record_opts_init(&c.o);
	c.o.rt_prio = 0; /* the analysis runs on the reader's thread: never real-time */
	c.o.quiet = true;
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
	if (c.tc.off_cpu && cli_record_offcpu(&c.o))
		return EXIT_BADINPUT;
	c.o.argc = argc;
	c.o.argv = argv;
	c.u.tui = !c.stdio && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
	if (c.u.tui)
		c.o.cmd_quiet = true; /* the command must not write over the screen */
	if (!c.stdio && !c.u.tui)
		c.stdio = true;
	if (c.stdio)
		term_size(&c.u); /* the width of the lines, when a terminal */

	char msg[200];
	c.u.t = top_new(&c.tc, msg, sizeof(msg));
	if (!c.u.t)
		return bad(msg, NULL);
	c.u.ro = &c.o;
	top_set_end_hook(c.u.t, at_end, &c.u);
	c.u.st.event = c.o.events[0].name;
	c.u.st.freq = c.o.freq;
	c.u.st.call_graph = c.o.cg == RECORD_CG_FP ? "fp" : c.o.cg == RECORD_CG_DWARF ? "dwarf" : "no call graph";
	static char cg_label[48];
	if (c.tc.off_cpu) {
		snprintf(cg_label, sizeof cg_label, "%s, off-CPU time", c.u.st.call_graph);
		c.u.st.call_graph = cg_label;
	}
	buf_init(&c.u.out, 64u << 20);
	c.u.start_ns = c.u.last_ns = now_ns();
	c.u.next_ns = c.u.start_ns + (uint64_t)(c.u.delay * 1e9);
	c.u.last_cpu = cpu_seconds();

	c.u.sig = cli_record_signals(SIGWINCH, true);
	c.o.stop = &c.u.sig->stop;
	if (c.u.tui) {
		term_size(&c.u);
		tui_enter(&c.u);
	}

	struct pipeline_config pc;
	pipeline_config_init(&pc);
	pc.input = "(live)";
	pc.order.buffer_size = 0; /* rounds order the stream */
	cli_env_apply(&pc);
	pc.stitch = !c.no_stitch;
	struct live_ops ops = { .ctx = &c.u, .open = open_sink, .tick = tick };
	struct record_result res;
	struct err e = { 0 };
	int rc = live_run(&c.o, &pc, &ops, &res, &e);
	if (c.u.tui)
		tui_leave(&c.u);
	top_free(c.u.t);
	buf_release(&c.u.out);
	if (rc) {
		fprintf(stderr, "scorch top: %s\n", e.set ? e.msg : strerror(-rc));
		return rc == -EINVAL || rc == -EACCES || rc == -EPERM || rc == -ENOENT || rc == -ESRCH
			       ? EXIT_BADINPUT
			       : EXIT_FAIL;
	}
	return EXIT_OK;
}
