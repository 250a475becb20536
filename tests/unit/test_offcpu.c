/* test_offcpu.c: the off-CPU stage (analyze/offcpu.h) on a perf.data written
 * here: context-switches samples (switch-outs), PERF_RECORD_SWITCH records
 * (switch-ins, the preempt flag), an EXIT, a thread that never comes back,
 * and cpu-clock samples for --wall; and tracing_field on a format text. */
#include "analyze/offcpu.h"
#include "output/flame.h"
#include "output/profile.h"
#include "perf/tracing.h"
#include "perf/encode.h"
#include "test.h"
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

struct wbuf {
	uint8_t b[8192];
	size_t n;
};

static void put(struct wbuf *w, const void *p, size_t n)
{
	CHECK(w->n + n <= sizeof(w->b));
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

static void put64(struct wbuf *w, uint64_t v) { put(w, &v, 8); }

static void hdr(struct wbuf *w, uint32_t type, uint16_t misc, uint16_t size)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = size };
	put(w, &h, sizeof(h));
}

/* sample: id, pid/tid, time, period */
static void sample(struct wbuf *w, uint64_t id, uint32_t pid, uint32_t tid, uint64_t t,
		   uint64_t period)
{
	hdr(w, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 32);
	put64(w, id);
	put64(w, (uint64_t)tid << 32 | pid);
	put64(w, t);
	put64(w, period);
}

/* sample_id_all trailer: pid/tid, time, id */
static void trailer(struct wbuf *w, uint32_t pid, uint32_t tid, uint64_t t)
{
	put64(w, (uint64_t)tid << 32 | pid);
	put64(w, t);
	put64(w, 1);
}

static void sw(struct wbuf *w, uint32_t pid, uint32_t tid, uint64_t t, bool out, bool preempt)
{
	uint16_t misc = (out ? PERF_RECORD_MISC_SWITCH_OUT : 0) |
			(preempt ? PERF_RECORD_MISC_SWITCH_OUT_PREEMPT : 0);
	hdr(w, PERF_RECORD_SWITCH, misc, 8 + 24);
	trailer(w, pid, tid, t);
}

static void comm(struct wbuf *w, uint32_t pid, uint32_t tid, const char *name, uint64_t t)
{
	hdr(w, PERF_RECORD_COMM, 0, 8 + 8 + 16 + 24);
	put64(w, (uint64_t)tid << 32 | pid);
	char c[16] = { 0 };
	snprintf(c, sizeof(c), "%s", name);
	put(w, c, 16);
	trailer(w, pid, tid, t);
}

static void texit(struct wbuf *w, uint32_t pid, uint32_t tid, uint64_t t)
{
	hdr(w, PERF_RECORD_EXIT, 0, 8 + 24 + 24);
	put64(w, (uint64_t)pid << 32 | pid);  /* pid, ppid */
	put64(w, (uint64_t)pid << 32 | tid);  /* tid, ptid */
	put64(w, t);
	trailer(w, pid, tid, t);
}

static const char *write_file(void)
{
	static char path[] = "/tmp/scorch-offcpu-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	uint64_t id_clock = 1, id_cs = 2;
	struct perf_wattr a[2];
	memset(a, 0, sizeof(a));
	for (int i = 0; i < 2; i++) {
		a[i].attr.size = sizeof(a[i].attr);
		a[i].attr.type = PERF_TYPE_SOFTWARE;
		a[i].attr.sample_type = ST;
		a[i].attr.sample_id_all = 1;
	}
	a[0].attr.config = PERF_COUNT_SW_CPU_CLOCK;
	a[0].attr.sample_period = 1000;
	a[0].attr.context_switch = 1;
	a[0].attr.comm = 1;
	a[0].name = "cpu-clock";
	a[0].ids = &id_clock;
	a[0].nr_ids = 1;
	a[1].attr.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	a[1].attr.sample_period = 1;
	a[1].name = "context-switches";
	a[1].ids = &id_cs;
	a[1].nr_ids = 1;
	static struct wbuf w;
	w.n = 0;
	comm(&w, 10, 11, "worker", 500);
	comm(&w, 10, 12, "stuck", 500);
	comm(&w, 10, 13, "leaver", 500);
	sample(&w, 1, 10, 11, 1000, 1000);
	sample(&w, 2, 10, 11, 2000, 1);   /* A: out */
	sw(&w, 10, 11, 2001, true, false);
	sample(&w, 2, 10, 13, 3000, 1);   /* D: out, then the thread exits */
	texit(&w, 10, 13, 3500);
	sw(&w, 10, 11, 5000, false, false); /* A: in, 3000 ns waiting */
	sample(&w, 2, 10, 11, 6000, 1);   /* B: out, preempted */
	sw(&w, 10, 11, 6001, true, true);
	sample(&w, 1, 10, 12, 6500, 500);
	sw(&w, 10, 11, 7000, false, false); /* B: in, 1000 ns */
	sample(&w, 2, 10, 12, 8000, 1);   /* C: never back */
	sample(&w, 1, 10, 10, 9000, 1000);
	uint64_t off = perf_file_data_offset(a, 2);
	CHECK(perf_pwrite_all(fd, w.b, w.n, off) == 0);
	CHECK(perf_file_write_header(fd, a, 2, w.n, NULL) == 0);
	close(fd);
	return path;
}

struct got {
	uint64_t off_ns, on_ns, samples;
	const struct offcpu_thread *t11, *t12, *t13;
	struct offcpu_stats st;
	uint64_t preempted_leaf;
	char comm11[16];
};

static int finish(void *ctx, struct profile_sink *s)
{
	struct got *g = ctx;
	g->off_ns = s->off_ns;
	g->on_ns = s->on_ns;
	g->samples = s->prof.samples;
	g->st = *offcpu_stats(s->offcpu);
	size_t n;
	const struct offcpu_thread *t = offcpu_threads(s->offcpu, &n);
	static struct offcpu_thread copy[8];
	for (size_t i = 0; i < n && i < 8; i++) {
		copy[i] = t[i];
		if (t[i].tid == 11) {
			g->t11 = &copy[i];
			snprintf(g->comm11, sizeof(g->comm11), "%s", t[i].comm ? t[i].comm : "");
		}
		if (t[i].tid == 12)
			g->t12 = &copy[i];
		if (t[i].tid == 13)
			g->t13 = &copy[i];
	}
	const struct profile *p = &s->prof;
	for (size_t i = 1; i < p->nr_nodes; i++)
		if (p->frames[p->nodes[i].frame].kind == PF_OFFCPU &&
		    !strcmp(p->frames[p->nodes[i].frame].name, "[off-cpu: preempted]"))
			g->preempted_leaf += p->nodes[i].self_period;
	return 0;
}

static void run(const char *path, enum offcpu_mode mode, struct got *g)
{
	struct pipeline_config pc;
	pipeline_config_init(&pc);
	pc.input = path;
	pc.kallsyms = "/dev/null";
	struct profile_sink_config sc;
	profile_sink_config_init(&sc);
	sc.filter.time_mode = mode;
	sc.finish = finish;
	sc.finish_ctx = g;
	struct profile_sink ps;
	struct sink sink;
	CHECK(profile_sink_init(&ps, &sc, &sink) == 0);
	struct err e = { 0 };
	CHECK_EQ(pipeline_run(&pc, &sink, &e), 0);
	profile_sink_release(&ps);
}

TEST(offcpu_intervals_from_switch_records)
{
	const char *path = write_file();
	struct got g = { 0 };
	run(path, OFFCPU_MODE_OFF_CPU, &g);
	/* A 3000 + B 1000 + D (to its exit) 500 + C (open, to the end) 1000 */
	CHECK_EQ(g.off_ns, 5500);
	CHECK_EQ(g.on_ns, 0);
	CHECK_EQ(g.samples, 4);
	CHECK_EQ(g.st.switch_outs, 4);
	CHECK_EQ(g.st.closed_by_switch, 2);
	CHECK_EQ(g.st.closed_by_sample, 1);
	CHECK_EQ(g.st.open_at_end, 1);
	CHECK(g.t11 && g.t12 && g.t13);
	CHECK_EQ(g.t11->off_ns[OFFCPU_WAITING], 3000);
	CHECK_EQ(g.t11->off_ns[OFFCPU_PREEMPTED], 1000);
	CHECK_EQ(g.t11->on_ns, 1000);
	CHECK_STR(g.comm11, "worker");
	CHECK(!g.t11->open);
	CHECK(g.t12->open);
	CHECK_EQ(g.t12->off_total_ns, 1000);
	CHECK_EQ(g.t13->off_total_ns, 500);
	CHECK_EQ(g.preempted_leaf, 1000);
	unlink(path);
}

TEST(offcpu_wall_adds_on_cpu_time)
{
	const char *path = write_file();
	struct got g = { 0 };
	run(path, OFFCPU_MODE_WALL, &g);
	CHECK_EQ(g.off_ns, 5500);
	CHECK_EQ(g.on_ns, 2500); /* cpu-clock periods are nanoseconds */
	CHECK_EQ(g.samples, 7);
	CHECK(g.st.on_is_time);
	CHECK(g.st.on_event != NULL);
	unlink(path);
}

TEST(tracing_field_offsets)
{
	static const char fmt[] =
		"name: sched_switch\nID: 316\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
		"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
		"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
		"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
		"\tfield:int broken;\toffset:;\tsize:4;\n"
		"\nprint fmt: \"prev_comm=%s\"";
	struct tracing_event te = { .format = fmt, .format_len = sizeof(fmt) - 1 };
	uint32_t off = 0, size = 0;
	CHECK_EQ(tracing_field(&te, "prev_state", &off, &size), 0);
	CHECK_EQ(off, 32);
	CHECK_EQ(size, 8);
	CHECK_EQ(tracing_field(&te, "next_pid", &off, &size), 0);
	CHECK_EQ(off, 56);
	CHECK_EQ(tracing_field(&te, "prev_comm", &off, &size), 0);
	CHECK_EQ(off, 8);
	CHECK_EQ(size, 16);
	CHECK_EQ(tracing_field(&te, "pid", &off, &size), -ENOENT);
	CHECK_EQ(tracing_field(&te, "broken", &off, &size), -EINVAL);
	/* a format cut in the middle of a line: no read past its end */
	te.format_len = 60;
	CHECK_EQ(tracing_field(&te, "prev_state", &off, &size), -ENOENT);
}

TEST(flame_off_cpu_palette_patched_in)
{
	/* the page's fill statement is found and patched; without off_colours
	 * the page is the template's */
	struct profile p;
	profile_init(&p);
	struct pframe f = { .name = "[off-cpu: sleeping]", .kind = PF_OFFCPU, .addr = 1 };
	uint32_t n = profile_child(&p, 0, profile_frame(&p, &f));
	profile_add(&p, n, 1, 1000);
	struct flame_config c;
	flame_config_init(&c);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	c.off_colours = true;
	CHECK_EQ(flame_write_html(&p, &c, m), 0);
	fclose(m);
	CHECK(strstr(buf, "offColorOf(F[f]"));
	CHECK(strstr(buf, "\"off\":[1,1]")); /* root and leaf: all off-CPU */
	free(buf);
	m = open_memstream(&buf, &len);
	c.off_colours = false;
	CHECK_EQ(flame_write_html(&p, &c, m), 0);
	fclose(m);
	CHECK(!strstr(buf, "offColorOf"));
	CHECK(!strstr(buf, "\"off\":["));
	free(buf);
	profile_release(&p);
}
