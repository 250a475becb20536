/* test_diff.c: differential profiles (output/diff.h): clone suffix folding,
 * matching by name and DSO basename across different paths and addresses,
 * the rows and their order, CSV and --fail-above, difffolded, and the
 * differential flame graph's data next to an unchanged plain one. */
#include "output/diff.h"
#include "output/flame.h"
#include "test.h"

static void fold_is(const char *in, const char *want)
{
	char out[256];
	diff_fold_name(in, out, sizeof(out));
	CHECK_STR(out, want);
}

TEST(diff_fold_clone_suffixes)
{
	fold_is("foo", "foo");
	fold_is("foo.cold", "foo");
	fold_is("foo.isra.0", "foo");
	fold_is("foo.part.12", "foo");
	fold_is("foo.constprop.0.isra.0", "foo");
	fold_is("foo.lto_priv.0", "foo");
	fold_is("foo.llvm.1234567890", "foo");
	fold_is("foo.part.0.cold", "foo");
	fold_is("ns::f(int) [clone .isra.0]", "ns::f(int)");
	fold_is("ns::f(int) [clone .isra.0] [clone .cold]", "ns::f(int)");
	/* not clone suffixes */
	fold_is("foo.bar", "foo.bar");
	fold_is("foo.0", "foo.0");
	fold_is("foo.", "foo.");
	fold_is(".cold", ".cold");
	fold_is("[libc.so.6]", "[libc.so.6]");
	fold_is("0x0000000000401000", "0x0000000000401000");
	/* truncation keeps a terminated string */
	char small[4];
	CHECK_EQ(diff_fold_name("abcdef.cold", small, sizeof(small)), 3);
	CHECK_STR(small, "abc");
}

/* One sample of stack (leaf first) in dso at base address addr. */
static void add(struct profile_sink *s, const char *dso, uint64_t addr, const char *const *syms,
		int n, uint64_t period)
{
	struct perf_event ev = { .type = PERF_RECORD_SAMPLE };
	ev.s.period = period;
	ev.s.time = 1000;
	struct perf_attr attr = { .name = "cpu-clock" };
	attr.attr.type = PERF_TYPE_SOFTWARE;
	attr.attr.config = PERF_COUNT_SW_CPU_CLOCK;
	struct frame fr[8];
	memset(fr, 0, sizeof(fr));
	for (int i = 0; i < n; i++)
		fr[i] = (struct frame){ .ip = addr + 16 * (uint64_t)i, .rel = 16 * (uint64_t)i,
					.sym = syms[i], .dso = dso };
	struct resolved_sample rs = { .ev = &ev, .attr = &attr, .comm = "app", .pid = 10, .tid = 10,
				      .frames = fr, .nr_frames = (uint32_t)n };
	CHECK_EQ(profile_sink_sample(s, &rs), 0);
}

/* base: f.isra.0 3x, g 1x; new (other path, other addresses): f 6x, g 2x,
 * h 2x; shares f 75 -> 60, g 25 -> 20, h 0 -> 20 */
static void build(struct diff *d)
{
	static const char *const bf[] = { "f.isra.0", "main" }, *const bg[] = { "g", "main" };
	static const char *const nf[] = { "f", "main" }, *const ng[] = { "g", "main" },
			       *const nh[] = { "h", "main" };
	static const char *const bcold[] = { "f.cold", "f", "main" };
	struct profile_sink_config c;
	struct profile_sink s;
	diff_init(d);
	profile_sink_config_init(&c);
	c.inline_frames = false;
	CHECK_EQ(profile_sink_init(&s, &c, NULL), 0);
	for (int i = 0; i < 2; i++)
		add(&s, "/build1/bin/app", 0x400000, bf, 2, 1000);
	add(&s, "/build1/bin/app", 0x400000, bcold, 3, 1000); /* folds into main;f */
	add(&s, "/build1/bin/app", 0x400000, bg, 2, 1000);
	CHECK_EQ(diff_take(d, DIFF_BASE, &s, "base.data"), 0);
	profile_sink_release(&s);
	CHECK_EQ(profile_sink_init(&s, &c, NULL), 0);
	for (int i = 0; i < 6; i++)
		add(&s, "/build2/app", 0x555500000000, nf, 2, 1000);
	for (int i = 0; i < 2; i++) {
		add(&s, "/build2/app", 0x555500000000, ng, 2, 1000);
		add(&s, "/build2/app", 0x555500000000, nh, 2, 1000);
	}
	CHECK_EQ(diff_take(d, DIFF_NEW, &s, "new.data"), 0);
	profile_sink_release(&s);
}

static bool near(double a, double b)
{
	return a - b < 1e-9 && b - a < 1e-9;
}

TEST(diff_rows_match_by_name_and_basename)
{
	struct diff d;
	build(&d);
	struct diff_rows r;
	CHECK_EQ(diff_rows(&d, false, "dso,sym", false, &r), 0);
	CHECK_EQ(r.n, 3);
	/* sorted by the absolute change: h +20, f -15, g -5 */
	CHECK_STR(r.v[0].sym, "h");
	CHECK(!r.v[0].in_base && r.v[0].in_new);
	CHECK(near(r.v[0].delta, 20));
	CHECK_STR(r.v[1].sym, "f");
	CHECK_STR(r.v[1].dso, "app");
	CHECK(near(r.v[1].base_pct, 75) && near(r.v[1].new_pct, 60) && near(r.v[1].delta, -15));
	CHECK_EQ(r.v[1].base, 3000);
	CHECK_EQ(r.v[1].new, 6000);
	CHECK_STR(r.v[2].sym, "g");
	CHECK(near(r.v[2].delta, -5));
	diff_rows_release(&r);
	/* absolute: percent of the baseline's total (4000) */
	CHECK_EQ(diff_rows(&d, false, "dso,sym", true, &r), 0);
	CHECK_STR(r.v[0].sym, "f");
	CHECK(near(r.v[0].new_pct, 150) && near(r.v[0].delta, 75));
	diff_rows_release(&r);
	/* children: main is 100% on both sides */
	CHECK_EQ(diff_rows(&d, true, "sym", false, &r), 0);
	bool main_seen = false;
	for (size_t i = 0; i < r.n; i++)
		if (!strcmp(r.v[i].sym, "main")) {
			main_seen = true;
			CHECK(near(r.v[i].delta, 0) && near(r.v[i].base_pct, 100));
		}
	CHECK(main_seen);
	diff_rows_release(&r);
	CHECK(diff_rows(&d, false, "bogus", false, &r) < 0);
	diff_release(&d);
}

TEST(diff_match_stacks)
{
	struct diff d;
	build(&d);
	uint32_t *n2b = diff_match(&d, DIFF_NEW), *b2n = diff_match(&d, DIFF_BASE);
	const struct profile *np = &d.side[DIFF_NEW].prof, *bp = &d.side[DIFF_BASE].prof;
	size_t matched = 0, only_new = 0;
	for (size_t i = 1; i < np->nr_nodes; i++) {
		const char *name = np->frames[np->nodes[i].frame].name;
		if (n2b[i] == PROFILE_NONE) {
			only_new++;
			CHECK_STR(name, "h");
		} else {
			matched++;
			CHECK(bp->frames[bp->nodes[n2b[i]].frame].name == name);
			CHECK_EQ(b2n[n2b[i]], i);
		}
	}
	CHECK_EQ(only_new, 1);
	CHECK_EQ(matched, 4); /* app, app;main, app;main;f, app;main;g */
	/* the base has no app;main;f;f node: f.cold folded into f */
	CHECK_EQ(bp->nr_nodes, 5);
	free(n2b);
	free(b2n);
	diff_release(&d);
}


TEST(diff_csv_and_fail_above)
{
	struct diff d;
	build(&d);
	char *out = NULL, *err = NULL;
	size_t ol = 0, el = 0;
	FILE *fo = open_memstream(&out, &ol), *fe = open_memstream(&err, &el);
	struct diff_config c;
	diff_config_init(&c);
	c.csv = true;
	c.fail_set = true;
	c.fail_above = 10;
	size_t nf = 99;
	CHECK_EQ(diff_write(&d, &c, fo, fe, &nf), 0);
	fclose(fo);
	fclose(fe);
	CHECK_EQ(nf, 1);
	CHECK_STR(out, "symbol,dso,base_pct,new_pct,delta_pct,base_ns,new_ns\n"
		       "h,app,0.0000,20.0000,20.0000,0,2000\n"
		       "f,app,75.0000,60.0000,-15.0000,3000,6000\n"
		       "g,app,25.0000,20.0000,-5.0000,1000,2000\n");
	CHECK(strstr(err, "1 entry grew by more than 10 points"));
	CHECK(strstr(err, "\nh,app,0.0000,20.0000,20.0000,0,2000\n"));
	CHECK(!strstr(err, "\nf,"));
	free(out);
	free(err);
	/* over the largest growth: nothing fails */
	c.fail_above = 20;
	c.csv = false;
	fo = open_memstream(&out, &ol);
	fe = open_memstream(&err, &el);
	CHECK_EQ(diff_write(&d, &c, fo, fe, &nf), 0);
	fclose(fo);
	fclose(fe);
	CHECK_EQ(nf, 0);
	CHECK_EQ(el, 0);
	CHECK(strstr(out, "# Baseline: base.data: 4 samples of 'cpu-clock'"));
	CHECK(strstr(out, "    75.00%   60.00%   -15.00%      3.0 us      6.0 us  app"));
	free(out);
	free(err);
	diff_release(&d);
}

TEST(diff_difffolded)
{
	struct diff d;
	build(&d);
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	CHECK_EQ(diff_write_folded(&d, false, false, f), 0);
	fclose(f);
	CHECK_STR(s, "app;main;f 3 6\napp;main;g 1 2\napp;main;h 0 2\n");
	free(s);
	diff_release(&d);
}

TEST(diff_flame_html_variants)
{
	struct diff d;
	build(&d);
	uint32_t *n2b = diff_match(&d, DIFF_NEW), *b2n = diff_match(&d, DIFF_BASE);
	struct flame_diff fd = { .base = &d.side[DIFF_BASE].prof, .base_node = n2b,
				 .new_node = b2n, .base_name = "base.data" };
	struct flame_config fc;
	flame_config_init(&fc);
	char *plain = NULL, *diff = NULL, *svg = NULL;
	size_t l1, l2, l3;
	FILE *f = open_memstream(&plain, &l1);
	CHECK_EQ(flame_write_html(&d.side[DIFF_NEW].prof, &fc, f), 0);
	fclose(f);
	fc.diff = &fd;
	f = open_memstream(&diff, &l2);
	CHECK_EQ(flame_write_html(&d.side[DIFF_NEW].prof, &fc, f), 0);
	fclose(f);
	f = open_memstream(&svg, &l3);
	CHECK_EQ(flame_write_svg(&d.side[DIFF_NEW].prof, &fc, f), 0);
	fclose(f);
	/* the plain graph has none of the diff lines and no markers */
	CHECK(!strstr(plain, " //D\n") && !strstr(plain, " //N\n"));
	CHECK(!strstr(plain, "diffColor") && !strstr(plain, "\"diff\""));
	CHECK(strstr(plain, "colorOf(f);\n"));
	CHECK(!strstr(diff, " //D\n") && !strstr(diff, " //N\n"));
	CHECK(strstr(diff, ": diffColor(i);\n"));
	CHECK(!strstr(diff, ": colorOf(f);\n"));
	/* nodes in name order: root, app, main, f, g, h; h has no baseline */
	CHECK(strstr(diff, "\"baseTotal\":4000,\"baseSamples\":4,\n\"base\":[4000,0,4000,0,4000,0,3000,3000,1000,1000,-1,-1]"));
	CHECK(strstr(diff, "\"gone\":[]"));
	/* SVG: h only in new, outlined; f shrank (blue), h grew (red) */
	CHECK(strstr(svg, "<title>h [app] (2 samples, 20.00%) baseline: none (only in new), change +20.00 points</title>"));
	CHECK(strstr(svg, "stroke-dasharray"));
	CHECK(strstr(svg, "<title>f [app] (6 samples, 60.00%) baseline: 3 samples, 75.00%, change -15.00 points</title>"));
	CHECK(strstr(svg, "fill=\"rgb(104,104,255)\"")); /* f: 15 of the largest 20 points */
	CHECK(strstr(svg, "fill=\"rgb(255,60,60)\"")); /* h: the largest growth */
	free(plain);
	free(diff);
	free(svg);
	free(n2b);
	free(b2n);
	diff_release(&d);
}
