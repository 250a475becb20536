/* opts.c: see opts.h. */
#include "cli/opts.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char opts_analysis_help[] =
	"  -i, --input FILE        perf.data file, '-' for stdin (default perf.data)\n"
	"  --sysroot DIR           where to find the recorded system's files\n"
	"  --debug PATHS           extra directories with debug files (':'-separated)\n"
	"  --extra PATHS           extra directories with binaries (':'-separated)\n"
	"  --app DIR               the application's directory\n"
	"  --kallsyms FILE         kernel symbols (default /proc/kallsyms)\n"
	"  --max-frames N          deepest stack to unwind (default 64, -1: no limit)\n"
	"  --buffer-size KB        ordering buffer for files without rounds (32768;\n"
	"                          0: buffer until FINISHED_ROUND)\n"
	"  --max-buffer-size KB    largest the ordering buffer may grow (1048576)\n"
	"  -j, --jobs N            worker threads (default: online CPUs)\n";

const char *opts_value(const char *name, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	size_t n = strlen(name);
	if (strncmp(a, name, n))
		return NULL;
	if (a[n] == '=' && name[1] == '-') {
		(*i)++;
		return a + n + 1;
	}
	if (a[n] == 0) {
		if (*i + 1 >= argc)
			return NULL;
		*i += 2;
		return argv[*i - 1];
	}
	return NULL;
}

static int num(const char *opt, const char *v, long long *out)
{
	char *end;
	*out = strtoll(v, &end, 0);
	if (!*v || *end || *out < 0) {
		fprintf(stderr, "scorch: %s: '%s' is not a valid number\n", opt, v);
		return -1;
	}
	return 0;
}

int opts_analysis(struct pipeline_config *c, int argc, char **argv, int *i)
{
	const char *v;
	long long n;
	if ((v = opts_value("-i", argc, argv, i)) || (v = opts_value("--input", argc, argv, i))) {
		c->input = v;
		return 1;
	}
	if ((v = opts_value("--sysroot", argc, argv, i))) { c->sysroot = v; return 1; }
	if ((v = opts_value("--debug", argc, argv, i))) { c->debug_paths = v; return 1; }
	if ((v = opts_value("--extra", argc, argv, i))) { c->extra_paths = v; return 1; }
	if ((v = opts_value("--app", argc, argv, i))) { c->app_path = v; return 1; }
	if ((v = opts_value("--kallsyms", argc, argv, i))) { c->kallsyms = v; return 1; }
	if ((v = opts_value("--max-frames", argc, argv, i))) {
		if (!strcmp(v, "-1"))
			v = "65536";
		if (num("--max-frames", v, &n) || n < 1 || n > 65536)
			return -1;
		c->max_frames = (int)n;
		return 1;
	}
	if ((v = opts_value("--buffer-size", argc, argv, i))) {
		if (num("--buffer-size", v, &n))
			return -1;
		c->order.buffer_size = (uint64_t)n * 1024;
		return 1;
	}
	if ((v = opts_value("--max-buffer-size", argc, argv, i))) {
		if (num("--max-buffer-size", v, &n))
			return -1;
		c->order.max_buffer_size = (uint64_t)n * 1024;
		return 1;
	}
	if ((v = opts_value("-j", argc, argv, i)) || (v = opts_value("--jobs", argc, argv, i))) {
		if (num("-j", v, &n) || n > 1024)
			return -1;
		c->jobs = (int)n;
		return 1;
	}
	return 0;
}
