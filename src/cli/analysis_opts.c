/* analysis_opts.c: see analysis_opts.h. */
#include "cli/analysis_opts.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include <errno.h>
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
	"  --no-progress, -q       no progress bar on a terminal\n";

int cli_opt_value(int argc, char **argv, int *i, const char *shrt, const char *lng,
		  const char **val)
{
	const char *a = argv[*i];
	if (shrt && !strcmp(a, shrt)) {
		if (*i + 1 >= argc)
			goto missing;
		*val = argv[++*i];
		++*i;
		return 1;
	}
	if (shrt && shrt[1] && !shrt[2] && !strncmp(a, shrt, 2) && a[2] && a[1] != '-') {
		*val = a + 2;
		++*i;
		return 1;
	}
	if (lng) {
		size_t n = strlen(lng);
		if (!strncmp(a, lng, n) && a[n] == '=') {
			*val = a + n + 1;
			++*i;
			return 1;
		}
		if (!strcmp(a, lng)) {
			if (*i + 1 >= argc)
				goto missing;
			*val = argv[++*i];
			++*i;
			return 1;
		}
	}
	return 0;
missing:
	fprintf(stderr, "scorch: option '%s' needs a value\n", a);
	return -1;
}

int cli_analysis_opt(int argc, char **argv, int *i, struct pipeline_config *c,
		     struct profile_filter *f, bool *no_progress)
{
	const char *v = NULL;
	const char *a = argv[*i];
	int r;
	if (!strcmp(a, "--no-progress") || !strcmp(a, "-q") || !strcmp(a, "--quiet")) {
		if (no_progress)
			*no_progress = true;
		++*i;
		return 1;
	}
#define STR(s, l, field)                                         \
	if ((r = cli_opt_value(argc, argv, i, s, l, &v)) != 0) { \
		if (r > 0)                                       \
			field = v;                               \
		return r;                                        \
	}
	if ((r = opts_analysis(c, argc, argv, i)) != 0)
		return r;
	if (f) {
		STR(NULL, "--pid", f->pids);
		STR(NULL, "--tid", f->tids);
		STR(NULL, "--comm", f->comms);
		STR(NULL, "--comms", f->comms);
		STR(NULL, "--event", f->event);
		if (!strcmp(a, "--off-cpu") || !strcmp(a, "--wall")) {
			f->time_mode = a[2] == 'o' ? OFFCPU_MODE_OFF_CPU : OFFCPU_MODE_WALL;
			++*i;
			return 1;
		}
	}
#undef STR
	return 0;
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
	const char *d = getenv("SCORCH_PROGRESS_DELAY"); /* tests: draw at once */
	if (d)
		pr.delay = atof(d);
	c->progress = tty;
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
