/* tui.c: see tui.h. */
#include "live/tui.h"
#include "live/live.h"
#include "util/buf.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

struct top_ui {
	struct top *t;
	volatile sig_atomic_t *stop, *winch; /* set by the caller's handlers */
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
	char cg_label[48];
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
	if (*u->stop)
		return 1;
	bool redraw = false;
	if (u->tui) {
		if (*u->winch) {
			*u->winch = 0;
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

int top_view_run(const struct top_view *v, struct record_opts *ro, const struct pipeline_config *pc,
		 struct err *e)
{
	struct top_ui u = { .delay = v->delay, .max_refresh = v->max_refresh, .width = 80, .height = 24,
			    .stop = v->stop, .winch = v->winch };
	bool stdio = v->stdio;
	u.tui = !stdio && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
	if (u.tui)
		ro->cmd_quiet = true; /* the command must not write over the screen */
	if (!stdio && !u.tui)
		stdio = true;
	if (stdio)
		term_size(&u); /* the width of the lines, when a terminal */

	char msg[200];
	u.t = top_new(&v->tc, msg, sizeof(msg));
	if (!u.t)
		return err_set(e, -EINVAL, "%s", msg);
	u.ro = ro;
	top_set_end_hook(u.t, at_end, &u);
	u.st.event = ro->events[0].name;
	u.st.freq = ro->freq;
	u.st.call_graph = ro->cg == RECORD_CG_FP ? "fp" : ro->cg == RECORD_CG_DWARF ? "dwarf" : "no call graph";
	if (v->tc.off_cpu) {
		snprintf(u.cg_label, sizeof u.cg_label, "%s, off-CPU time", u.st.call_graph);
		u.st.call_graph = u.cg_label;
	}
	buf_init(&u.out, 64u << 20);
	u.start_ns = u.last_ns = now_ns();
	u.next_ns = u.start_ns + (uint64_t)(u.delay * 1e9);
	u.last_cpu = cpu_seconds();
	if (u.tui) {
		term_size(&u);
		tui_enter(&u);
	}
	struct live_ops ops = { .ctx = &u, .open = open_sink, .tick = tick };
	struct record_result res;
	int rc = live_run(ro, pc, &ops, &res, e);
	if (u.tui)
		tui_leave(&u);
	top_free(u.t);
	buf_release(&u.out);
	return rc;
}
