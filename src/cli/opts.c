/* opts.c: see opts.h. The table, then the parser. */
#include "cli/opts.h"
#include "cli/cli.h"
#include <string.h>

/* ARG_NEXT: an optional value, also as the next word when that does not
 * start with '-' (perf report's -g: "-g", "-g caller", "-gcaller") */
enum { ARG_NO, ARG_YES, ARG_OPTIONAL, ARG_TWO, ARG_NEXT };

struct opt {
	int id;
	char shrt;
	const char *lng;
	int arg;
	unsigned cmds;
};

#define REC (OC_RECORD | OC_TOP)
#define SUM (OC_REPORT | OC_FLAME | OC_EXPORT | OC_DIFF | OC_ANNOTATE)
#define READ (OC_SCRIPT | SUM | OC_STATS | OC_HEADER)
#define ALL (~0u)

/* Every option of every command; the first row with the name (and the
 * command's bit) counts. */
static const struct opt table[] = {
	{ O_HELP, 'h', "help", ARG_NO, ALL },
	{ O_INPUT, 'i', "input", ARG_YES, READ | OC_ARCHIVE },
	{ O_INPUT, 0, "input", ARG_YES, OC_PERFPARSER },
	{ O_SYSROOT, 0, "sysroot", ARG_YES, READ | OC_PERFPARSER | OC_ARCHIVE },
	{ O_DEBUG, 0, "debug", ARG_YES, READ | OC_PERFPARSER | OC_ARCHIVE },
	{ O_EXTRA, 0, "extra", ARG_YES, READ | OC_PERFPARSER | OC_ARCHIVE },
	{ O_APP, 0, "app", ARG_YES, READ | OC_PERFPARSER | OC_ARCHIVE },
	{ O_KALLSYMS, 0, "kallsyms", ARG_YES, READ | OC_PERFPARSER | OC_ARCHIVE },
	{ O_MAX_FRAMES, 0, "max-frames", ARG_YES, READ | OC_PERFPARSER },
	{ O_BUFFER_SIZE, 0, "buffer-size", ARG_YES, READ | OC_PERFPARSER },
	{ O_MAX_BUFFER_SIZE, 0, "max-buffer-size", ARG_YES, READ | OC_PERFPARSER },
	{ O_JOBS, 'j', "jobs", ARG_YES, READ | OC_PERFPARSER },
	{ O_BLOCK_RECORDS, 0, "block-records", ARG_YES, OC_SCRIPT | OC_PERFPARSER },
	{ O_STACK_LIMIT, 0, "stack-limit", ARG_YES, READ | OC_PERFPARSER },
	{ O_STITCH, 0, "stitch", ARG_NO, OC_SCRIPT },
	{ O_NO_STITCH, 0, "no-stitch", ARG_NO, OC_SCRIPT | SUM | OC_STATS | OC_TOP | OC_PERFPARSER },
	{ O_PID, 'p', "pid", ARG_YES, REC },
	{ O_PID, 0, "pid", ARG_YES, SUM | OC_SCRIPT },
	{ O_TID, 't', "tid", ARG_YES, REC },
	{ O_TID, 0, "tid", ARG_YES, SUM | OC_SCRIPT },
	{ O_COMM, 'c', "comms", ARG_YES, OC_SCRIPT },
	{ O_COMM, 0, "comm", ARG_YES, SUM | OC_SCRIPT },
	{ O_COMM, 0, "comms", ARG_YES, SUM | OC_TOP },
	{ O_EVENT, 'e', "event", ARG_YES, REC },
	{ O_EVENT, 0, "event", ARG_YES, SUM },
	{ O_OFF_CPU, 0, "off-cpu", ARG_NO, SUM | OC_RECORD | OC_TOP },
	{ O_WALL, 0, "wall", ARG_NO, SUM },
	{ O_QUIET, 'q', "quiet", ARG_NO, SUM | OC_RECORD | OC_ARCHIVE },
	{ O_QUIET, 0, "no-progress", ARG_NO, SUM },
	{ O_OUTPUT, 'o', "output", ARG_YES, SUM | OC_RECORD | OC_ARCHIVE },
	{ O_OUTPUT, 0, "output", ARG_YES, OC_PERFPARSER },
	{ O_DIFF, 0, "diff", ARG_TWO, OC_FLAME | OC_EXPORT },
	{ O_CHILDREN, 0, "children", ARG_NO, OC_REPORT | OC_DIFF | OC_TOP },
	{ O_NO_CHILDREN, 0, "no-children", ARG_NO, OC_REPORT | OC_DIFF },
	{ O_STDIO, 0, "stdio", ARG_NO, OC_REPORT | OC_DIFF | OC_TOP | OC_ANNOTATE },
	{ O_SORT, 's', "sort", ARG_YES, OC_REPORT | OC_DIFF },
	{ O_PERCENT_LIMIT, 0, "percent-limit", ARG_YES, OC_REPORT | OC_DIFF | OC_ANNOTATE },
	{ O_TOP, 0, "top", ARG_YES, OC_REPORT | OC_DIFF },
	{ O_WIDTH, 'w', "width", ARG_YES, OC_REPORT | OC_DIFF },
	{ O_WIDTH, 0, "width", ARG_YES, OC_FLAME },
	{ O_FORMAT, 'f', "format", ARG_YES, OC_EXPORT | OC_DIFF },
	{ O_NO_COMM, 0, "no-comm", ARG_NO, OC_FLAME | OC_EXPORT },
	{ O_NO_INLINE, 0, "no-inline", ARG_NO, OC_FLAME | OC_EXPORT | OC_SCRIPT },
	{ O_INLINE, 0, "inline", ARG_NO, OC_REPORT },
	{ O_SHOW_NR, 'n', "show-nr-samples", ARG_NO, OC_REPORT | OC_ANNOTATE },
	{ O_TREE, 0, "tree", ARG_YES, OC_REPORT },
	{ O_TREE_LIMIT, 0, "tree-limit", ARG_YES, OC_REPORT },
	{ O_CALL_GRAPH, 'g', "call-graph", ARG_NEXT, OC_REPORT },
	{ O_ABSOLUTE, 0, "absolute", ARG_NO, OC_DIFF },
	{ O_FAIL_ABOVE, 0, "fail-above", ARG_YES, OC_DIFF },
	{ O_ICICLE, 0, "icicle", ARG_NO, OC_FLAME },
	{ O_ICICLE, 0, "inverted", ARG_NO, OC_FLAME },
	{ O_DIFF_MODE, 0, "diff-mode", ARG_YES, OC_FLAME },
	{ O_SVG, 0, "svg", ARG_NO, OC_FLAME },
	{ O_SAMPLES, 0, "samples", ARG_NO, OC_FLAME },
	{ O_TITLE, 0, "title", ARG_YES, OC_FLAME },
	{ O_MIN_PERCENT, 0, "min-percent", ARG_YES, OC_FLAME },
	{ O_ANNOTATE, 0, "annotate", ARG_NO, OC_EXPORT },
	{ O_PERIOD, 0, "period", ARG_NO, OC_EXPORT },
	{ O_SYMBOL, 's', "symbol", ARG_YES, OC_ANNOTATE },
	{ O_DSOS, 'd', "dsos", ARG_YES, OC_ANNOTATE },
	{ O_DISASM_STYLE, 'M', "disassembler-style", ARG_YES, OC_ANNOTATE },
	{ O_ASM_RAW, 0, "asm-raw", ARG_NO, OC_ANNOTATE },
	{ O_NO_SOURCE, 0, "no-source", ARG_NO, OC_ANNOTATE },
	{ O_PRINT_LINE, 'l', "print-line", ARG_NO, OC_ANNOTATE },
	{ O_PERCENT_TYPE, 0, "percent-type", ARG_YES, OC_ANNOTATE },
	{ O_SRC_PREFIX, 0, "prefix", ARG_YES, OC_ANNOTATE },
	{ O_SRC_PREFIX_STRIP, 0, "prefix-strip", ARG_YES, OC_ANNOTATE },
	{ O_KCORE, 0, "kcore", ARG_YES, OC_ANNOTATE },
	{ O_IP, 0, "ip", ARG_NO, OC_SCRIPT },
	{ O_RAW, 0, "raw", ARG_NO, OC_SCRIPT },
	{ O_HEADERS_ONLY, 0, "headers-only", ARG_NO, OC_SCRIPT },
	{ O_FIELDS, 'F', "fields", ARG_YES, OC_SCRIPT },
	{ O_HIDE_CALLGRAPH, 'G', "hide-call-graph", ARG_NO, OC_SCRIPT },
	{ O_TIME, 0, "time", ARG_YES, OC_SCRIPT },
	{ O_NS, 0, "ns", ARG_NO, OC_SCRIPT },
	{ O_RELTIME, 0, "reltime", ARG_NO, OC_SCRIPT },
	{ O_DELTATIME, 0, "deltatime", ARG_NO, OC_SCRIPT },
	{ O_UNWIND, 0, "unwind", ARG_NO, OC_STATS },
	{ O_RAW_DUMP, 0, "raw-dump", ARG_NO, OC_LIST },
	{ O_FREQ, 'F', "freq", ARG_YES, REC },
	{ O_COUNT, 'c', "count", ARG_YES, REC },
	{ O_G, 'g', NULL, ARG_NO, REC },
	{ O_CALL_GRAPH, 0, "call-graph", ARG_YES, REC },
	{ O_MMAP_PAGES, 'm', "mmap-pages", ARG_YES, REC },
	{ O_ALL_CPUS, 'a', "all-cpus", ARG_NO, REC },
	{ O_CPU, 'C', "cpu", ARG_YES, OC_RECORD | OC_SCRIPT },
	{ O_NO_INHERIT, 'i', "no-inherit", ARG_NO, OC_RECORD },
	{ O_IO, 0, "io", ARG_YES, OC_RECORD },
	{ O_AIO, 0, "aio", ARG_OPTIONAL, OC_RECORD },
	{ O_COMPRESSION, 'z', NULL, ARG_NO, OC_RECORD },
	{ O_COMPRESSION, 0, "compression-level", ARG_OPTIONAL, OC_RECORD },
	{ O_SWITCH_OUTPUT, 0, "switch-output", ARG_OPTIONAL, OC_RECORD },
	{ O_REALTIME, 'r', "realtime", ARG_YES, OC_RECORD },
	{ O_SWITCH_EVENTS, 0, "switch-events", ARG_NO, OC_RECORD },
	{ O_CONTINUOUS, 0, "continuous", ARG_YES, OC_RECORD },
	{ O_INTERVAL, 0, "interval", ARG_YES, OC_RECORD },
	{ O_KEEP, 0, "keep", ARG_YES, OC_RECORD },
	{ O_KEEP_RAW, 0, "keep-raw", ARG_NO, OC_RECORD },
	{ O_NO_BUILDID_CACHE, 'N', "no-buildid-cache", ARG_NO, OC_RECORD },
	{ O_CLOCKID, 'k', "clockid", ARG_YES, OC_RECORD },
	{ O_PUSH, 0, "push", ARG_YES, OC_RECORD },
	{ O_PUSH_APP, 0, "push-app", ARG_YES, OC_RECORD },
	{ O_DELAY, 'd', "delay", ARG_YES, OC_TOP },
	{ O_ITERATIONS, 'n', "iterations", ARG_YES, OC_TOP },
	{ O_LINES, 0, "lines", ARG_YES, OC_TOP },
	{ O_SINCE_START, 0, "since-start", ARG_NO, OC_TOP },
	{ O_DSOS, 0, "dsos", ARG_YES, OC_TOP },
	{ O_LIST, 'l', "list", ARG_NO, OC_BUILDID_CACHE },
	{ O_PRUNE, 0, "prune", ARG_OPTIONAL, OC_BUILDID_CACHE },
	{ O_HELP_ALL, 0, "help-all", ARG_NO, OC_PERFPARSER },
	{ O_VERSION, 'v', "version", ARG_NO, OC_PERFPARSER },
	{ O_HOST, 0, "host", ARG_YES, OC_PERFPARSER },
	{ O_PORT, 0, "port", ARG_YES, OC_PERFPARSER },
	{ O_ARCH, 0, "arch", ARG_YES, OC_PERFPARSER },
	{ O_PRINT_STATS, 0, "print-stats", ARG_NO, OC_PERFPARSER },
};

/* The row for "--NAME" (n bytes; a unique prefix will do), or NULL;
 * *ambiguous when several options start so. */
static const struct opt *find_long(unsigned cmd, const char *name, size_t n, bool *ambiguous)
{
	const struct opt *hit = NULL;
	*ambiguous = false;
	if (!n)
		return NULL;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const struct opt *o = &table[i];
		if (!(o->cmds & cmd) || !o->lng || strncmp(o->lng, name, n))
			continue;
		if (!o->lng[n])
			return o;
		if (hit && hit->id != o->id)
			*ambiguous = true;
		if (!hit)
			hit = o;
	}
	return *ambiguous ? NULL : hit;
}

static const struct opt *find_short(unsigned cmd, char c)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if ((table[i].cmds & cmd) && table[i].shrt == c)
			return &table[i];
	return NULL;
}

/* The handler, with the parser's messages for what it leaves. */
static int call(struct opts *p, int id, const char *v)
{
	int r = p->set(p->ctx, p, id, v);
	if (r != OPTS_UNKNOWN)
		return r;
	if (id == O_MISSING) {
		fprintf(stderr, "%s: option '%s' needs a value\n", p->prefix, v);
		return EXIT_BADINPUT;
	}
	if (id == O_HELP && p->usage) {
		p->usage(stdout, p->ctx);
		return OPTS_DONE;
	}
	fprintf(stderr, "%s: unknown option '%s'\n", p->prefix,
		id == O_OPERAND || id == O_UNKNOWN ? v : p->name);
	if (p->usage && !p->terse)
		p->usage(stderr, p->ctx);
	return EXIT_BADINPUT;
}

/* One option o spelled at argv[*i] (its value, if any, starts at inl:
 * "--x=V" or "-xV"); *i is moved past what it used. */
static int take(struct opts *p, const struct opt *o, int argc, char **argv, int *i,
		const char *inl)
{
	const char *v = NULL;
	p->v2 = NULL;
	if (o->arg == ARG_NO && inl)
		return call(p, O_UNKNOWN, argv[(*i)++]);
	++*i;
	if (o->arg == ARG_OPTIONAL || (inl && (o->arg == ARG_YES || o->arg == ARG_NEXT))) {
		v = inl;
	} else if (o->arg == ARG_NEXT) {
		if (*i < argc && argv[*i][0] != '-')
			v = argv[(*i)++];
	} else if (o->arg == ARG_YES || o->arg == ARG_TWO) {
		int need = o->arg == ARG_TWO ? 2 - !!inl : 1;
		if (*i + need > argc)
			return call(p, O_MISSING, p->name);
		v = inl ? inl : argv[(*i)++];
		if (o->arg == ARG_TWO)
			p->v2 = argv[(*i)++];
	}
	return call(p, o->id, v);
}

static int parse(struct opts *p, int argc, char **argv)
{
	bool dashdash = false;
	int r = 0;
	p->operand = argc;
	for (int i = 1; i < argc && !r;) {
		char *a = argv[i];
		if (dashdash || a[0] != '-' || !a[1]) {
			if (p->in_order) {
				p->operand = i;
				return 0;
			}
			r = call(p, O_OPERAND, a);
			i++;
		} else if (!strcmp(a, "--")) {
			dashdash = true;
			i++;
		} else if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			bool ambiguous;
			const struct opt *o = find_long(p->cmd, a + 2, n, &ambiguous);
			if (!o && ambiguous && (r = p->set(p->ctx, p, O_UNKNOWN, a)) == OPTS_UNKNOWN) {
				fprintf(stderr, "%s: option '%.*s' is ambiguous\n", p->prefix, (int)n + 2, a);
				if (p->usage && !p->terse)
					p->usage(stderr, p->ctx);
				return EXIT_BADINPUT;
			}
			if (!o && ambiguous)
				return r ? r : EXIT_BADINPUT;
			if (!o) {
				r = call(p, O_UNKNOWN, a);
				i++;
				continue;
			}
			snprintf(p->name, sizeof(p->name), "--%s", o->lng);
			r = take(p, o, argc, argv, &i, eq ? eq + 1 : NULL);
		} else {
			/* a cluster: flags, then at most one option with a value */
			int at = i;
			for (const char *c = a + 1; *c && at == i && !r; c++) {
				const struct opt *o = find_short(p->cmd, *c);
				snprintf(p->name, sizeof(p->name), "-%c", *c);
				if (!o) {
					r = call(p, O_UNKNOWN, c == a + 1 ? a : p->name);
				} else if (o->arg == ARG_NO) {
					p->v2 = NULL;
					r = call(p, o->id, NULL);
				} else {
					r = take(p, o, argc, argv, &i, c[1] ? c + 1 : NULL);
				}
			}
			if (at == i)
				i++;
		}
	}
	return r;
}

bool opts_parse(struct opts *p, int argc, char **argv)
{
	int r = parse(p, argc, argv);
	p->status = r == OPTS_DONE ? EXIT_OK : r;
	return !r;
}

int opts_pick(const char *v, const char *const *names, const char *errfmt)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(v, names[i]))
			return i;
	fprintf(stderr, errfmt, v);
	return -1;
}
