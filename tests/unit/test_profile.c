/* test_profile.c: stack interning, the collector's filters and naming. */
#include "output/profile.h"
#include "test.h"

/* A synthetic sample: frames given root first as names (NULL = unknown). */
struct fake {
	struct perf_event ev;
	struct perf_attr attr;
	struct frame fr[16];
	struct resolved_sample rs;
};

static const char *DSO = "/usr/bin/demo";
static const char *KDSO = "[kernel.kallsyms]";

static void fake_sample(struct fake *f, const char *comm, uint32_t tid, uint64_t period,
			const char **root_first, int n)
{
	memset(f, 0, sizeof(*f));
	f->ev.type = PERF_RECORD_SAMPLE;
	f->ev.s.period = period;
	f->ev.s.time = 1000 + period;
	f->attr.name = "cpu-clock";
	f->attr.attr.type = PERF_TYPE_SOFTWARE;
	f->attr.attr.config = PERF_COUNT_SW_CPU_CLOCK;
	for (int i = 0; i < n; i++) {
		struct frame *fr = &f->fr[n - 1 - i];
		fr->sym = root_first[i];
		fr->dso = root_first[i] && root_first[i][0] == 'k' ? KDSO : DSO;
		fr->kind = root_first[i] && root_first[i][0] == 'k' ? FRAME_KERNEL : FRAME_USER;
		fr->ip = 0x1000 + (uint64_t)i * 16;
		fr->rel = fr->ip;
	}
	f->rs = (struct resolved_sample){ .ev = &f->ev, .attr = &f->attr, .comm = comm,
					  .pid = tid, .tid = tid, .frames = f->fr, .nr_frames = (uint32_t)n };
}

TEST(profile_interns_stacks)
{
	struct profile_sink s;
	struct profile_sink_config c;
	profile_sink_config_init(&c);
	CHECK_EQ(profile_sink_init(&s, &c, NULL), 0);
	struct fake f;
	const char *a[] = { "main", "work", "leaf" };
	const char *b[] = { "main", "work" };
	const char *d[] = { "main", "other" };
	for (int i = 0; i < 3; i++) {
		fake_sample(&f, "demo", 1, 10, a, 3);
		profile_sink_sample(&s, &f.rs);
	}
	fake_sample(&f, "demo", 1, 10, b, 2);
	profile_sink_sample(&s, &f.rs);
	fake_sample(&f, "demo", 1, 10, d, 2);
	profile_sink_sample(&s, &f.rs);
	/* root, comm, main, work, leaf, other */
	CHECK_EQ(s.prof.nr_nodes, 6);
	CHECK_EQ(s.prof.samples, 5);
	CHECK_EQ(s.prof.period, 50);
	CHECK_EQ(s.prof.nodes[0].samples, 5);
	/* comm frame + 4 functions */
	CHECK_EQ(s.prof.nr_frames, 5);
	uint32_t *o = profile_preorder(&s.prof, PROFILE_ORDER_CREATION);
	CHECK_EQ(o[0], 0);
	CHECK_STR(s.prof.frames[s.prof.nodes[o[1]].frame].name, "demo");
	CHECK_STR(s.prof.frames[s.prof.nodes[o[2]].frame].name, "main");
	CHECK_EQ(s.prof.nodes[o[2]].samples, 5);
	CHECK_STR(s.prof.frames[s.prof.nodes[o[3]].frame].name, "work");
	CHECK_EQ(s.prof.nodes[o[3]].samples, 4);
	CHECK_EQ(s.prof.nodes[o[3]].self_samples, 1);
	CHECK_STR(s.prof.frames[s.prof.nodes[o[4]].frame].name, "leaf");
	CHECK_STR(s.prof.frames[s.prof.nodes[o[5]].frame].name, "other");
	free(o);
	o = profile_preorder(&s.prof, PROFILE_ORDER_NAME);
	CHECK_STR(s.prof.frames[s.prof.nodes[o[3]].frame].name, "other");
	free(o);
	profile_sink_release(&s);
}

TEST(profile_filters_and_unknown_names)
{
	struct profile_sink s;
	struct profile_sink_config c;
	profile_sink_config_init(&c);
	c.filter.tids = "2,3";
	c.filter.comms = "b";
	CHECK_EQ(profile_sink_init(&s, &c, NULL), 0);
	struct fake f;
	const char *a[] = { "main", NULL };
	fake_sample(&f, "a", 2, 1, a, 2);
	profile_sink_sample(&s, &f.rs);
	fake_sample(&f, "b", 4, 1, a, 2);
	profile_sink_sample(&s, &f.rs);
	fake_sample(&f, "b", 3, 1, a, 2);
	profile_sink_sample(&s, &f.rs);
	CHECK_EQ(s.prof.samples, 1);
	CHECK_EQ(s.samples_filtered, 2);
	/* an unknown symbol is named after its DSO by default */
	int found = 0;
	for (size_t i = 0; i < s.prof.nr_frames; i++)
		if (!strcmp(s.prof.frames[i].name, "[demo]") && s.prof.frames[i].unknown)
			found = 1;
	CHECK(found);
	profile_sink_release(&s);

	c.filter.tids = "2,x";
	CHECK(profile_sink_init(&s, &c, NULL) < 0);
	profile_sink_release(&s);
}

TEST(profile_unknown_by_addr_and_strings)
{
	struct profile_sink s;
	struct profile_sink_config c;
	profile_sink_config_init(&c);
	c.unknown_by_addr = true;
	CHECK_EQ(profile_sink_init(&s, &c, NULL), 0);
	struct fake f;
	const char *a[] = { "main", NULL, NULL };
	fake_sample(&f, "a", 2, 1, a, 3);
	/* perf report's form: lowercase, 16 digits (the rel, else the ip) */
	f.fr[0].rel = 0xdeadbeefcafe1234ull;
	f.fr[1].rel = 0;
	f.fr[1].ip = 0xab;
	profile_sink_sample(&s, &f.rs);
	const char *a2[] = { "main", NULL };
	fake_sample(&f, "a", 2, 1, a2, 2);
	profile_sink_sample(&s, &f.rs);
	int found = 0;
	for (size_t i = 0; i < s.prof.nr_frames; i++)
		found += !strcmp(s.prof.frames[i].name, "0x0000000000001010") ||
			 !strcmp(s.prof.frames[i].name, "0xdeadbeefcafe1234") ||
			 !strcmp(s.prof.frames[i].name, "0x00000000000000ab");
	CHECK_EQ(found, 3);
	const char *x = profile_str(&s.prof, "abc");
	char buf[8] = "abc";
	CHECK(profile_str(&s.prof, buf) == x);
	CHECK_STR(profile_basename("/usr/lib/libc.so.6"), "libc.so.6");
	CHECK_STR(profile_basename("[kernel.kallsyms]"), "[kernel.kallsyms]");
	profile_sink_release(&s);
}

/* Names of frames without a symbol, by DSO (the default): made once per
 * DSO (by its name's pointer), each DSO its own, the kernel's as it is. */
TEST(profile_unknown_names_each_dso)
{
	struct profile_sink s;
	struct profile_sink_config c;
	profile_sink_config_init(&c);
	CHECK_EQ(profile_sink_init(&s, &c, NULL), 0);
	struct fake f;
	const char *a[] = { "main", NULL, NULL };
	static const char *libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	for (int round = 0; round < 2; round++) {
		fake_sample(&f, "a", 2, 1, a, 3);
		f.fr[0].dso = libc;
		f.fr[1].dso = KDSO;
		f.fr[1].kind = FRAME_KERNEL;
		profile_sink_sample(&s, &f.rs);
		fake_sample(&f, "a", 2, 1, a, 3);
		f.fr[0].dso = libc; /* another address in libc; demo's below it */
		f.fr[0].ip = f.fr[0].rel = 0x5000;
		profile_sink_sample(&s, &f.rs);
	}
	int libc_n = 0, k_n = 0, demo_n = 0;
	for (size_t i = 0; i < s.prof.nr_frames; i++) {
		const char *nm = s.prof.frames[i].name;
		libc_n += !strcmp(nm, "[libc.so.6]");
		k_n += !strcmp(nm, "[kernel.kallsyms]");
		demo_n += !strcmp(nm, "[demo]");
	}
	/* one frame each: an unknown symbol's frame is its DSO's */
	CHECK_EQ(libc_n, 1);
	CHECK_EQ(k_n, 1);
	CHECK_EQ(demo_n, 1);
	CHECK_EQ(s.prof.samples, 4);
	profile_sink_release(&s);
}

TEST(profile_many_stacks)
{
	/* thousands of distinct stacks: the tables grow and stay consistent */
	struct profile p;
	profile_init(&p);
	static const char *names[64];
	static char buf[64][16];
	for (int i = 0; i < 64; i++) {
		snprintf(buf[i], sizeof(buf[i]), "f%d", i);
		names[i] = buf[i];
	}
	uint32_t fr[64];
	for (int i = 0; i < 64; i++) {
		struct pframe f = { .name = names[i], .dso = DSO };
		fr[i] = profile_frame(&p, &f);
		CHECK_EQ(fr[i], i);
	}
	uint64_t n = 0;
	for (int a = 0; a < 64; a++)
		for (int b = 0; b < 64; b++)
			for (int c = 0; c < 4; c++) {
				uint32_t node = profile_child(&p, 0, fr[a]);
				node = profile_child(&p, node, fr[b]);
				node = profile_child(&p, node, fr[c]);
				profile_add(&p, node, 1, 2);
				n++;
			}
	CHECK_EQ(p.nr_nodes, 1 + 64 + 64 * 64 + 64 * 64 * 4);
	CHECK_EQ(p.nodes[0].samples, n);
	CHECK_EQ(p.period, 2 * n);
	uint64_t self = 0;
	for (size_t i = 0; i < p.nr_nodes; i++)
		self += p.nodes[i].self_samples;
	CHECK_EQ(self, n);
	profile_release(&p);
}

TEST(profile_node_size_pinned)
{
	/* one node per distinct stack: large profiles have millions; keep it
	 * small on purpose (parent, frame, child and sibling links, depth,
	 * self and inclusive samples and period) */
	CHECK(sizeof(struct pnode) <= 56);
}
