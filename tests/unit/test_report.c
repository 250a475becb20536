/* test_report.c: report entries (self, children with recursion), the
 * printed table, folded lines. */
#include "output/folded.h"
#include "output/report.h"
#include "test.h"

static const char *DSO = "/usr/bin/demo";

static void add(struct profile_sink *s, const char *comm, uint64_t period, const char **root_first, int n)
{
	struct perf_event ev = { .type = PERF_RECORD_SAMPLE };
	ev.s.period = period;
	struct perf_attr attr = { .name = "cpu-clock" };
	attr.attr.type = PERF_TYPE_SOFTWARE;
	attr.attr.config = PERF_COUNT_SW_CPU_CLOCK;
	struct frame fr[16];
	memset(fr, 0, sizeof(fr));
	for (int i = 0; i < n; i++) {
		fr[n - 1 - i].sym = root_first[i];
		fr[n - 1 - i].dso = DSO;
		fr[n - 1 - i].ip = 0x100 + (uint64_t)i;
	}
	struct resolved_sample rs = { .ev = &ev, .attr = &attr, .comm = comm, .pid = 1, .tid = 1,
				      .frames = fr, .nr_frames = (uint32_t)n };
	profile_sink_sample(s, &rs);
}

static const char *MAIN = "main", *FIB = "fib", *LEAF = "leaf", *OTHER = "other";

static void build(struct profile_sink *s)
{
	struct profile_sink_config c;
	profile_sink_config_init(&c);
	report_sink_config(&c);
	CHECK_EQ(profile_sink_init(s, &c, NULL), 0);
	const char *a[] = { MAIN, FIB, FIB, FIB, LEAF }; /* recursion */
	const char *b[] = { MAIN, OTHER };
	const char *d[] = { MAIN };
	for (int i = 0; i < 6; i++)
		add(s, "demo", 100, a, 5);
	for (int i = 0; i < 3; i++)
		add(s, "demo", 100, b, 2);
	add(s, "demo", 100, d, 1);
}

static const struct report_entry *find(const struct report_entries *e, const char *sym)
{
	for (size_t i = 0; i < e->n; i++)
		if (e->v[i].sym && !strcmp(e->v[i].sym, sym))
			return &e->v[i];
	return NULL;
}

TEST(report_children_count_recursion_once)
{
	struct profile_sink s;
	build(&s);
	struct report_config rc;
	report_config_init(&rc);
	struct report_entries e;
	CHECK_EQ(report_entries(&s.prof, &rc, &e, NULL), 0);
	CHECK_EQ(e.n, 4);
	const struct report_entry *m = find(&e, "main"), *f = find(&e, "fib"), *l = find(&e, "leaf");
	CHECK(m && f && l);
	CHECK_EQ(m->total_period, 1000);
	CHECK_EQ(m->self_period, 100);
	CHECK_EQ(f->total_period, 600);
	CHECK_EQ(f->total_samples, 6);
	CHECK_EQ(f->self_period, 0);
	CHECK_EQ(l->self_period, 600);
	/* sorted by children: main first */
	CHECK_STR(e.v[0].sym, "main");
	report_entries_release(&e);
	rc.children = false;
	CHECK_EQ(report_entries(&s.prof, &rc, &e, NULL), 0);
	CHECK_STR(e.v[0].sym, "leaf");
	report_entries_release(&e);
	profile_sink_release(&s);
}

TEST(report_sort_keys)
{
	struct profile_sink s;
	build(&s);
	struct report_config rc;
	report_config_init(&rc);
	rc.sort = "dso";
	struct report_entries e;
	CHECK_EQ(report_entries(&s.prof, &rc, &e, NULL), 0);
	CHECK_EQ(e.n, 1);
	CHECK_EQ(e.v[0].total_period, 1000);
	CHECK_EQ(e.v[0].self_period, 1000);
	report_entries_release(&e);
	rc.sort = "bogus";
	char msg[128];
	CHECK(report_check_config(&rc, msg, sizeof(msg)) < 0);
	CHECK(strstr(msg, "bogus"));
	profile_sink_release(&s);
}

/* The idle task (tid 0, no COMM record) is "swapper" under --sort comm,
 * as perf report and scorch script name it; another thread without a comm
 * is ":TID". */
TEST(report_sort_comm_names_the_idle_task)
{
	struct profile_sink s;
	struct profile_sink_config c;
	profile_sink_config_init(&c);
	report_sink_config(&c);
	CHECK_EQ(profile_sink_init(&s, &c, NULL), 0);
	struct perf_event ev = { .type = PERF_RECORD_SAMPLE };
	ev.s.period = 100;
	struct perf_attr attr = { .name = "cpu-clock" };
	struct frame fr[1];
	memset(fr, 0, sizeof(fr));
	fr[0].sym = LEAF;
	fr[0].dso = DSO;
	fr[0].ip = 0x100;
	for (uint32_t tid = 0; tid < 2; tid++) {
		struct resolved_sample rs = { .ev = &ev, .attr = &attr, .pid = tid, .tid = tid,
					      .frames = fr, .nr_frames = 1 };
		profile_sink_sample(&s, &rs);
	}
	struct report_config rc;
	report_config_init(&rc);
	rc.sort = "comm";
	struct report_entries e;
	CHECK_EQ(report_entries(&s.prof, &rc, &e, NULL), 0);
	CHECK_EQ(e.n, 2);
	bool idle = false, other = false;
	for (size_t i = 0; i < e.n; i++) {
		idle |= e.v[i].comm && !strcmp(e.v[i].comm, "swapper");
		other |= e.v[i].comm && !strcmp(e.v[i].comm, ":1");
	}
	CHECK(idle);
	CHECK(other);
	report_entries_release(&e);
	profile_sink_release(&s);
}

TEST(report_text_fits_width)
{
	struct profile_sink s;
	build(&s);
	s.event_name = "cpu-clock";
	s.event_type = PERF_TYPE_SOFTWARE;
	s.event_config = PERF_COUNT_SW_CPU_CLOCK;
	struct report_config rc;
	report_config_init(&rc);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CHECK_EQ(report_write(&s, &rc, f), 0);
	fclose(f);
	CHECK(strstr(text, "100.00%"));
	CHECK(strstr(text, "[.] main"));
	CHECK(strstr(text, "60.00%"));
	CHECK(strstr(text, "|--60.00%  fib") || strstr(text, "`--60.00%  fib"));
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if ((int)strlen(line) > 80)
			fprintf(stderr, "too wide: '%s'\n", line);
		CHECK((int)strlen(line) <= 80);
	}
	free(text);
	profile_sink_release(&s);
}

TEST(folded_lines_and_total)
{
	struct profile_sink s;
	build(&s);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct folded_config fc = { 0 };
	CHECK_EQ(folded_write(&s.prof, &fc, f), 0);
	fclose(f);
	CHECK_STR(text, "demo;main 1\ndemo;main;fib;fib;fib;leaf 6\ndemo;main;other 3\n");
	free(text);
	profile_sink_release(&s);
}

/* A stack the resolver cut at max_frames starts at a [truncated] frame
 * under the command, in the profile and so in every output made of it. */
TEST(profile_truncated_stack_root)
{
	struct profile_sink s;
	build(&s);
	struct perf_event ev = { .type = PERF_RECORD_SAMPLE };
	ev.s.period = 100;
	struct perf_attr attr = { .name = "cpu-clock" };
	struct frame fr[2];
	memset(fr, 0, sizeof(fr));
	fr[0].sym = LEAF, fr[0].dso = DSO, fr[0].ip = 0x104;
	fr[1].sym = FIB, fr[1].dso = DSO, fr[1].ip = 0x103;
	struct resolved_sample rs = { .ev = &ev, .attr = &attr, .comm = "demo", .pid = 1, .tid = 1,
				      .frames = fr, .nr_frames = 2, .truncated = true };
	profile_sink_sample(&s, &rs);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct folded_config fc = { 0 };
	CHECK_EQ(folded_write(&s.prof, &fc, f), 0);
	fclose(f);
	CHECK_STR(text, "demo;[truncated];fib;leaf 1\ndemo;main 1\ndemo;main;fib;fib;fib;leaf 6\n"
			"demo;main;other 3\n");
	free(text);
	struct report_config rc;
	report_config_init(&rc);
	struct report_entries e;
	CHECK_EQ(report_entries(&s.prof, &rc, &e, NULL), 0);
	const struct report_entry *t = find(&e, "[truncated]");
	CHECK(t && t->total_period == 100 && t->self_period == 0 && t->kind == PF_TRUNCATED);
	report_entries_release(&e);
	profile_sink_release(&s);
}

/* Width 0: every name whole (a report written to a file); a width: cut
 * with "..". */
TEST(report_width_zero_writes_names_whole)
{
	char name[301];
	memset(name, 'n', 300);
	memcpy(name, "ns::long_", 9);
	name[300] = 0;
	struct profile_sink s;
	build(&s);
	s.event_name = "cpu-clock";
	const char *a[] = { MAIN, name };
	for (int i = 0; i < 20; i++)
		add(&s, "a-command-name-longer-than-fifteen", 100, a, 2);
	for (int w = 0; w <= 80; w += 80) {
		struct report_config rc;
		report_config_init(&rc);
		rc.width = w;
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		CHECK_EQ(report_write(&s, &rc, f), 0);
		fclose(f);
		size_t widest = 0;
		int whole = 0, comm = 0;
		for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
			if (strlen(line) > widest)
				widest = strlen(line);
			whole += strstr(line, name) != NULL;
			comm += strstr(line, "a-command-name-longer-than-fifteen  ") != NULL;
		}
		if (w) {
			CHECK_EQ(widest, 80);
			CHECK_EQ(whole, 0);
		} else {
			/* the entry, its tree heading and a tree line; the
			 * command not cut to 15 columns either */
			CHECK(whole >= 3);
			CHECK(widest > 300);
			CHECK(comm > 0);
		}
		free(text);
	}
	profile_sink_release(&s);
}

/* -g's words as perf takes them: prefixes, in perf's order of trial ("c"
 * is caller, "f" flat), the first number the limit, a second (perf's print
 * limit) only as 0; what scorch has not is an error. */
TEST(report_call_graph_words)
{
	struct report_config rc;
	char msg[200];
	report_config_init(&rc);
	CHECK_EQ(report_parse_call_graph(&rc, "graph,0.5,callee,address,count", msg, sizeof(msg)), 0);
	CHECK_EQ(rc.tree_order, REPORT_ORDER_CALLEE);
	CHECK_EQ(rc.tree_key, REPORT_KEY_ADDRESS);
	CHECK_EQ(rc.tree_value, REPORT_VALUE_COUNT);
	CHECK(rc.tree_limit == 0.5);
	CHECK_EQ(report_parse_call_graph(&rc, "c,s,pe,2,0", msg, sizeof(msg)), 0);
	CHECK_EQ(rc.tree_order, REPORT_ORDER_CALLER);
	CHECK_EQ(rc.tree_key, REPORT_KEY_SRCLINE);
	CHECK_EQ(rc.tree_value, REPORT_VALUE_PERCENT);
	CHECK(rc.tree_limit == 2);
	CHECK_EQ(report_parse_call_graph(&rc, NULL, msg, sizeof(msg)), 0);
	CHECK_EQ(rc.tree, 5);
	CHECK_EQ(report_parse_call_graph(&rc, "none", msg, sizeof(msg)), 0);
	CHECK_EQ(rc.tree, 0);
	CHECK(report_parse_call_graph(&rc, "f", msg, sizeof(msg)) < 0);
	CHECK(strstr(msg, "flat"));
	CHECK(report_parse_call_graph(&rc, "1,7", msg, sizeof(msg)) < 0);
	CHECK(strstr(msg, "print limit"));
	CHECK(report_parse_call_graph(&rc, "caller,xyz", msg, sizeof(msg)) < 0);
	CHECK(strstr(msg, "'xyz'"));
	CHECK(report_parse_call_graph(&rc, "150", msg, sizeof(msg)) < 0);
	CHECK(report_parse_call_graph(&rc, "branch", msg, sizeof(msg)) < 0);
}
