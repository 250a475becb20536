/* test_stitch.c: the stitcher (analyze/stitch.h) on samples made here: a
 * cut sample gets the callers an earlier sample of the thread saw outward
 * of the same function at the same CFA; a cut frame whose function has
 * another frame in the sample (recursion) is not stitched; a stack that
 * reaches the thread's base leaves nothing outward of it. */
#include "analyze/stitch.h"
#include "test.h"

/* One frame per activation: function fn (symbol start) at cfa, address ip. */
struct fr {
	uint64_t fn, cfa, ip;
};

static struct resolved_sample mk(struct frame *f, const struct fr *d, uint32_t n, bool cut)
{
	for (uint32_t i = 0; i < n; i++)
		f[i] = (struct frame){ .ip = d[i].ip, .sym = "f", .sym_start = d[i].fn,
				       .dso_ident = 1, .cfa = d[i].cfa };
	return (struct resolved_sample){ .pid = 7, .tid = 7, .frames = f, .nr_frames = n,
					 .physical = n, .copy_end = cut };
}

TEST(stitch_callers_of_the_same_function_at_its_cfa)
{
	struct stitch *st = stitch_new(127);
	struct frame f[8];
	const struct fr whole[] = { { 0x100, 0x1000, 0x110 }, { 0x200, 0x2000, 0x210 },
				    { 0x300, 0x3000, 0x310 }, { 0x400, 0x4000, 0x410 } };
	struct resolved_sample rs = mk(f, whole, 4, false);
	CHECK(stitch_sample(st, &rs) == &rs);
	/* cut at the function 0x200 at 0x2000 (another address in it) */
	const struct fr cut[] = { { 0x500, 0x1800, 0x510 }, { 0x200, 0x2000, 0x220 } };
	rs = mk(f, cut, 2, true);
	const struct resolved_sample *o = stitch_sample(st, &rs);
	CHECK(o != &rs);
	CHECK_EQ(o->nr_frames, 4);
	CHECK_EQ(o->nr_stitched, 2);
	CHECK_EQ(o->frames[1].ip, 0x220);
	CHECK_EQ(o->frames[2].ip, 0x310);
	CHECK_EQ(o->frames[3].ip, 0x410);
	/* another function at the CFA: no stitch */
	const struct fr other[] = { { 0x600, 0x2000, 0x610 } };
	rs = mk(f, other, 1, true);
	CHECK(stitch_sample(st, &rs) == &rs);
	CHECK_EQ(stitch_count(st), 1);
	stitch_free(st);
}

TEST(stitch_refuses_a_recursive_cut_frame)
{
	struct stitch *st = stitch_new(127);
	struct frame f[8];
	/* 0x200 calls itself: 0x2000 inside 0x3000 */
	const struct fr whole[] = { { 0x100, 0x1000, 0x110 }, { 0x200, 0x2000, 0x210 },
				    { 0x200, 0x3000, 0x230 }, { 0x400, 0x4000, 0x410 } };
	struct resolved_sample rs = mk(f, whole, 4, false);
	CHECK(stitch_sample(st, &rs) == &rs);
	/* cut at 0x200 at 0x3000 with 0x200 deeper in the sample too: its
	 * outer activation may have been left and entered again */
	const struct fr rec[] = { { 0x200, 0x1800, 0x210 }, { 0x200, 0x3000, 0x230 } };
	rs = mk(f, rec, 2, true);
	CHECK(stitch_sample(st, &rs) == &rs);
	CHECK_EQ(stitch_count(st), 0);
	/* the same cut frame alone in its sample is stitched */
	const struct fr one[] = { { 0x500, 0x2800, 0x510 }, { 0x200, 0x3000, 0x230 } };
	rs = mk(f, one, 2, true);
	const struct resolved_sample *o = stitch_sample(st, &rs);
	CHECK(o != &rs);
	CHECK_EQ(o->nr_stitched, 1);
	CHECK_EQ(o->frames[2].ip, 0x410);
	stitch_free(st);
}

TEST(stitch_a_stack_reaching_the_base_keeps_nothing_outward)
{
	struct stitch *st = stitch_new(127);
	struct frame f[8];
	/* the dynamic loader's frames, outward of where _start's will be */
	const struct fr ld[] = { { 0x100, 0x1000, 0x110 }, { 0x900, 0x9000, 0x910 },
				 { 0xa00, 0xa000, 0xa10 } };
	struct resolved_sample rs = mk(f, ld, 3, false);
	CHECK(stitch_sample(st, &rs) == &rs);
	/* the program: 0x200 at 0x2000 called by _start at 0x8000 */
	const struct fr prog[] = { { 0x100, 0x1000, 0x120 }, { 0x200, 0x2000, 0x210 },
				   { 0x800, 0x8000, 0x810 } };
	rs = mk(f, prog, 3, false);
	f[2].sym = "_start";
	CHECK(stitch_sample(st, &rs) == &rs);
	/* cut at 0x200 at 0x2000: its callers, from the sample before */
	const struct fr cut[] = { { 0x500, 0x1800, 0x510 }, { 0x200, 0x2000, 0x220 } };
	rs = mk(f, cut, 2, true);
	const struct resolved_sample *o = stitch_sample(st, &rs);
	CHECK(o != &rs);
	CHECK_EQ(o->nr_frames, 3);
	CHECK_EQ(o->frames[2].ip, 0x810);
	CHECK(!strcmp(o->frames[2].sym, "_start"));
	/* cut at the loader's function at its CFA: gone with the program's
	 * whole stack */
	const struct fr old[] = { { 0x500, 0x8800, 0x510 }, { 0x900, 0x9000, 0x920 } };
	rs = mk(f, old, 2, true);
	CHECK(stitch_sample(st, &rs) == &rs);
	CHECK_EQ(stitch_count(st), 1);
	stitch_free(st);
}
