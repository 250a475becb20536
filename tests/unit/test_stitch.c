/* test_stitch.c: the stitcher (analyze/stitch.h) on samples made here: a
 * cut sample gets the callers an earlier sample of the thread saw outward
 * of the same function at the same CFA; where no caller kept is known, the
 * links seen with one caller only; a cut frame whose function has another
 * frame in the sample (recursion) gets no kept caller; a stack that reaches
 * the thread's base leaves nothing outward of it, and a stitch must reach
 * the base. */
#include "analyze/stitch.h"
#include "test.h"

/* One frame per activation: function fn (symbol start) at cfa, address ip. */
struct fr {
	uint64_t fn, cfa, ip;
};

/* Function 0x800 is _start. */
static struct resolved_sample mk(struct frame *f, const struct fr *d, uint32_t n, bool cut)
{
	for (uint32_t i = 0; i < n; i++)
		f[i] = (struct frame){ .ip = d[i].ip, .sym = d[i].fn == 0x800 ? "_start" : "f",
				       .sym_start = d[i].fn, .dso_ident = 1, .cfa = d[i].cfa };
	return (struct resolved_sample){ .pid = 7, .tid = 7, .frames = f, .nr_frames = n,
					 .physical = n, .copy_end = cut };
}

/* rs put into a stitcher that keeps nothing: what goes to the sink */
static const struct resolved_sample *now(struct stitch *st, const struct resolved_sample *rs)
{
	static const uint8_t rec[8] = { PERF_RECORD_SAMPLE, 0, 0, 0, 0, 0, 8, 0 };
	struct perf_event ev = { .type = PERF_RECORD_SAMPLE };
	const struct resolved_sample *o;
	return stitch_put(st, &(struct stitch_item){ .rec = rec, .ev = &ev, .rs = rs }, &o) ? o : NULL;
}

TEST(stitch_callers_of_the_same_function_at_its_cfa)
{
	struct stitch *st = stitch_new(127, 0, false);
	struct frame f[8];
	const struct fr whole[] = { { 0x100, 0x1000, 0x110 }, { 0x200, 0x2000, 0x210 },
				    { 0x300, 0x3000, 0x310 }, { 0x800, 0x4000, 0x810 } };
	struct resolved_sample rs = mk(f, whole, 4, false);
	CHECK(now(st, &rs) == &rs);
	/* cut at the function 0x200 at 0x2000 (another address in it) */
	const struct fr cut[] = { { 0x500, 0x1800, 0x510 }, { 0x200, 0x2000, 0x220 } };
	rs = mk(f, cut, 2, true);
	const struct resolved_sample *o = now(st, &rs);
	CHECK(o != &rs);
	CHECK_EQ(o->nr_frames, 4);
	CHECK_EQ(o->nr_stitched, 2);
	CHECK_EQ(o->frames[1].ip, 0x220);
	CHECK_EQ(o->frames[2].ip, 0x310);
	CHECK_EQ(o->frames[3].ip, 0x810);
	/* another function at the CFA: no stitch */
	const struct fr other[] = { { 0x600, 0x2000, 0x610 } };
	rs = mk(f, other, 1, true);
	CHECK(now(st, &rs) == &rs);
	CHECK_EQ(stitch_count(st), 1);
	stitch_free(st);
}

TEST(stitch_refuses_a_recursive_cut_frame)
{
	struct stitch *st = stitch_new(127, 0, false);
	struct frame f[8];
	/* 0x200 calls itself: 0x2000 inside 0x3000 */
	const struct fr whole[] = { { 0x100, 0x1000, 0x110 }, { 0x200, 0x2000, 0x210 },
				    { 0x200, 0x3000, 0x230 }, { 0x800, 0x4000, 0x810 } };
	struct resolved_sample rs = mk(f, whole, 4, false);
	CHECK(now(st, &rs) == &rs);
	/* 0x200 at 0x3000 seen called from another place too (a stack cut
	 * there): its link is ambiguous */
	const struct fr two[] = { { 0x500, 0x2800, 0x510 }, { 0x200, 0x3000, 0x240 }, { 0x450, 0x4000, 0x460 } };
	rs = mk(f, two, 3, true);
	CHECK(now(st, &rs) == &rs);
	rs = mk(f, whole, 4, false);
	CHECK(now(st, &rs) == &rs);
	/* cut at 0x200 at 0x3000 with 0x200 deeper in the sample too: its
	 * outer activation may have been left and entered again */
	const struct fr rec[] = { { 0x200, 0x1800, 0x210 }, { 0x200, 0x3000, 0x230 } };
	rs = mk(f, rec, 2, true);
	CHECK(now(st, &rs) == &rs);
	CHECK_EQ(stitch_count(st), 0);
	/* the same cut frame alone in its sample is stitched */
	const struct fr one[] = { { 0x500, 0x2800, 0x510 }, { 0x200, 0x3000, 0x230 } };
	rs = mk(f, one, 2, true);
	const struct resolved_sample *o = now(st, &rs);
	CHECK(o != &rs);
	CHECK_EQ(o->nr_stitched, 1);
	CHECK_EQ(o->frames[2].ip, 0x810);
	stitch_free(st);
}

TEST(stitch_by_links_seen_with_one_caller_only)
{
	struct stitch *st = stitch_new(127, 0, false);
	struct frame f[8];
	/* 0x200 at 0x2000 called from 0x300 at 0x3000, from _start */
	const struct fr whole[] = { { 0x100, 0x1000, 0x110 }, { 0x200, 0x2000, 0x210 },
				    { 0x300, 0x3000, 0x310 }, { 0x800, 0x8000, 0x810 } };
	struct resolved_sample rs = mk(f, whole, 4, false);
	CHECK(now(st, &rs) == &rs);
	/* cut in 0x300, shallower: what was kept at 0x2000 returned */
	const struct fr up[] = { { 0x500, 0x2800, 0x510 }, { 0x300, 0x3000, 0x330 } };
	rs = mk(f, up, 2, true);
	const struct resolved_sample *o = now(st, &rs);
	CHECK(o != &rs);
	CHECK_EQ(o->nr_frames, 3);
	/* cut at 0x200 at 0x2000 again: nothing kept there, but 0x200 at
	 * 0x2000 was only ever seen called from 0x310 at 0x3000 */
	const struct fr cut[] = { { 0x600, 0x1800, 0x610 }, { 0x200, 0x2000, 0x220 } };
	rs = mk(f, cut, 2, true);
	o = now(st, &rs);
	CHECK(o != &rs);
	CHECK_EQ(o->nr_frames, 4);
	CHECK_EQ(o->nr_stitched, 2);
	CHECK_EQ(o->frames[2].ip, 0x310);
	CHECK_EQ(o->frames[3].ip, 0x810);
	/* seen called from 0x340 as well: ambiguous, once nothing is kept */
	const struct fr other[] = { { 0x700, 0x1900, 0x710 }, { 0x200, 0x2000, 0x230 }, { 0x300, 0x3000, 0x340 } };
	rs = mk(f, other, 3, true);
	CHECK(now(st, &rs) != &rs);
	rs = mk(f, up, 2, true);
	CHECK(now(st, &rs) != &rs);
	rs = mk(f, cut, 2, true);
	CHECK(now(st, &rs) == &rs);
	CHECK_EQ(stitch_count(st), 4);
	stitch_free(st);
}

TEST(stitch_a_stack_reaching_the_base_keeps_nothing_outward)
{
	struct stitch *st = stitch_new(127, 0, false);
	struct frame f[8];
	/* the dynamic loader's frames, outward of where _start's will be */
	const struct fr ld[] = { { 0x100, 0x1000, 0x110 }, { 0x900, 0x9000, 0x910 },
				 { 0xa00, 0xa000, 0xa10 } };
	struct resolved_sample rs = mk(f, ld, 3, false);
	CHECK(now(st, &rs) == &rs);
	/* the program: 0x200 at 0x2000 called by _start at 0x8000 */
	const struct fr prog[] = { { 0x100, 0x1000, 0x120 }, { 0x200, 0x2000, 0x210 },
				   { 0x800, 0x8000, 0x810 } };
	rs = mk(f, prog, 3, false);
	f[2].sym = "_start";
	CHECK(now(st, &rs) == &rs);
	/* cut at 0x200 at 0x2000: its callers, from the sample before */
	const struct fr cut[] = { { 0x500, 0x1800, 0x510 }, { 0x200, 0x2000, 0x220 } };
	rs = mk(f, cut, 2, true);
	const struct resolved_sample *o = now(st, &rs);
	CHECK(o != &rs);
	CHECK_EQ(o->nr_frames, 3);
	CHECK_EQ(o->frames[2].ip, 0x810);
	CHECK(!strcmp(o->frames[2].sym, "_start"));
	/* cut at the loader's function at its CFA: gone with the program's
	 * whole stack */
	const struct fr old[] = { { 0x500, 0x8800, 0x510 }, { 0x900, 0x9000, 0x920 } };
	rs = mk(f, old, 2, true);
	CHECK(now(st, &rs) == &rs);
	CHECK_EQ(stitch_count(st), 1);
	stitch_free(st);
}

/* Sample rs (or a COMM record: rs NULL) put into a stitcher with a window:
 * whether it goes to the sink now. Its record's misc is tag. */
static bool put(struct stitch *st, const struct resolved_sample *rs, uint8_t tag)
{
	uint8_t rec[8] = { rs ? PERF_RECORD_SAMPLE : PERF_RECORD_COMM, 0, tag, 0, 0, 0, 8, 0 };
	struct perf_event ev = { .type = rec[0], .misc = tag };
	struct pipeline_recstate state = { .pos = tag };
	const struct resolved_sample *o;
	return stitch_put(st, &(struct stitch_item){ .rec = rec, .ev = &ev, .rs = rs, .state = &state }, &o);
}

TEST(stitch_window_waits_for_the_links_of_later_samples)
{
	struct stitch *st = stitch_new(127, 2, false);
	struct frame f[8];
	struct stitch_rec r;
	/* cut at 0x200 at 0x2000, nothing seen before: kept */
	const struct fr cut[] = { { 0x600, 0x1800, 0x610 }, { 0x200, 0x2000, 0x220 } };
	struct resolved_sample rs = mk(f, cut, 2, true);
	CHECK(!put(st, &rs, 1));
	CHECK(stitch_holding(st));
	CHECK(!stitch_next(st, &r));
	/* a record and a whole sample after it wait behind it, in order */
	CHECK(!put(st, NULL, 2));
	const struct fr whole[] = { { 0x100, 0x1000, 0x110 }, { 0x200, 0x2000, 0x210 },
				    { 0x300, 0x3000, 0x310 }, { 0x800, 0x8000, 0x810 } };
	rs = mk(f, whole, 4, false);
	CHECK(!put(st, &rs, 3));
	CHECK(!stitch_next(st, &r));
	/* two samples later: stitched with the links the later one showed */
	CHECK(!put(st, &rs, 4));
	CHECK(stitch_next(st, &r));
	CHECK_EQ(r.rec[2], 1);
	CHECK_EQ(r.state->pos, 1);
	CHECK(r.rs != NULL);
	CHECK_EQ(r.rs->nr_frames, 4);
	CHECK_EQ(r.rs->nr_stitched, 2);
	CHECK_EQ(r.rs->frames[1].ip, 0x220);
	CHECK_EQ(r.rs->frames[2].ip, 0x310);
	CHECK_EQ(r.rs->frames[3].ip, 0x810);
	CHECK(stitch_next(st, &r));
	CHECK_EQ(r.rec[2], 2);
	CHECK(r.rs == NULL);
	CHECK(stitch_next(st, &r));
	CHECK_EQ(r.rec[2], 3);
	CHECK_EQ(r.rs->nr_stitched, 0);
	CHECK(stitch_next(st, &r));
	CHECK_EQ(r.rec[2], 4);
	CHECK(!stitch_next(st, &r));
	CHECK(!stitch_holding(st));
	/* cut where no sample reaches: kept until the input ends, unstitched */
	const struct fr lost[] = { { 0x600, 0x1800, 0x610 }, { 0x700, 0x2100, 0x720 } };
	rs = mk(f, lost, 2, true);
	CHECK(!put(st, &rs, 5));
	CHECK(!stitch_next(st, &r));
	stitch_end(st);
	CHECK(stitch_next(st, &r));
	CHECK_EQ(r.rec[2], 5);
	CHECK_EQ(r.rs->nr_frames, 2);
	CHECK(!stitch_next(st, &r));
	CHECK_EQ(stitch_count(st), 1);
	stitch_free(st);
}

TEST(stitch_no_link_from_a_caller_seen_calling_from_two_places)
{
	struct stitch *st = stitch_new(127, 0, false);
	struct frame f[8];
	/* 0x300 calls 0x200 from 0x310 (at 0x3000) and from 0x320 (at 0x3100,
	 * another activation): which of them a link's CFAs stand for is not
	 * known */
	const struct fr a[] = { { 0x600, 0x1800, 0x610 }, { 0x200, 0x2000, 0x210 },
				{ 0x300, 0x3000, 0x310 }, { 0x800, 0x8000, 0x810 } };
	const struct fr b[] = { { 0x600, 0x1900, 0x610 }, { 0x200, 0x2100, 0x210 },
				{ 0x300, 0x3100, 0x320 }, { 0x800, 0x8000, 0x810 } };
	const struct fr up[] = { { 0x500, 0x7000, 0x510 }, { 0x800, 0x8000, 0x810 } };
	const struct fr cut[] = { { 0x600, 0x1800, 0x610 }, { 0x200, 0x2000, 0x220 } };
	struct resolved_sample rs = mk(f, cut, 2, true);
	CHECK(now(st, &rs) == &rs);
	rs = mk(f, a, 4, false);
	CHECK(now(st, &rs) == &rs);
	rs = mk(f, up, 2, true);
	CHECK(now(st, &rs) == &rs);
	/* nothing kept at 0x2000: by the link, from one place so far */
	rs = mk(f, cut, 2, true);
	CHECK(now(st, &rs) != &rs);
	rs = mk(f, b, 4, false);
	CHECK(now(st, &rs) == &rs);
	rs = mk(f, up, 2, true);
	CHECK(now(st, &rs) == &rs);
	rs = mk(f, cut, 2, true);
	CHECK(now(st, &rs) == &rs);
	CHECK_EQ(stitch_count(st), 1);
	stitch_free(st);
}

TEST(stitch_window_in_any_order_keeps_only_the_waiting)
{
	struct stitch *st = stitch_new(127, 3, true);
	struct frame f[8];
	struct stitch_rec r;
	const struct fr cut[] = { { 0x600, 0x1800, 0x610 }, { 0x200, 0x2000, 0x220 } };
	const struct fr whole[] = { { 0x100, 0x1000, 0x110 }, { 0x200, 0x2000, 0x210 },
				    { 0x300, 0x3000, 0x310 }, { 0x800, 0x8000, 0x810 } };
	struct resolved_sample rs = mk(f, cut, 2, true);
	CHECK(!put(st, &rs, 1));
	/* the samples after it and the records go on */
	rs = mk(f, whole, 4, false);
	CHECK(put(st, &rs, 2));
	CHECK(put(st, NULL, 3));
	CHECK(!stitch_holding(st));
	CHECK(!stitch_next(st, &r));
	CHECK(put(st, &rs, 4));
	CHECK(put(st, &rs, 5));
	CHECK(stitch_next(st, &r));
	CHECK_EQ(r.rec[2], 1);
	CHECK_EQ(r.rs->nr_stitched, 2);
	CHECK(!stitch_next(st, &r));
	stitch_free(st);
}
