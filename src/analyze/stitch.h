/*
 * stitch.h: the outer frames of a stack whose DWARF unwinding stopped at the
 * end of the copied user stack, taken from other samples of the thread.
 *
 * A sample's unwinding stops at frame F when F's return address lies above
 * the end of the copy (`--call-graph dwarf` copies 8 KB by default). F's
 * canonical frame address C (its caller's stack pointer) is still known: the
 * CFI computes it from registers. Two kinds of knowledge give F's callers,
 * and a stitch is made only when it reaches the thread's base (an entry
 * point: _start, start_thread, clone3...): no match, no stitch, and never
 * half a stack.
 *
 * The chain (what is live). Per thread, the last known activation at each
 * CFA, innermost first, with its function (DSO identity and symbol start;
 * without a symbol, its address), its symbolized frames (inline entries
 * included) and its caller as seen with it. A sample replaces the entries
 * at CFAs up to its outermost with its own and drops those deeper than its
 * leaf (returned) or between its frames (gone); one whose stack reaches
 * the base replaces the whole chain, and is kept as a copy of its frames
 * (outermost first, sharing the outer frames of the one before) until a
 * later sample needs its activations. A cut sample whose entry at C has
 * F's function gets the entries from there out while each caller's CFA
 * still holds the address seen, unless F's function has another frame in
 * the sample (recursion re-enters a function at one CFA while callers
 * change unseen).
 *
 * The links (what was seen). Per thread whose samples are often cut (a
 * quarter or more), every function seen at a CFA with its caller: the
 * caller's CFA, address, function and frames. A link seen with two callers
 * is ambiguous; a caller seen calling the function from two places in the
 * program (at any CFA) makes every such link doubtful, since the CFAs show
 * which activation of the caller it is but not which of its call sites.
 * Where the chain ends short of the base, the walk goes on from F (or the
 * chain's last entry) by links that are neither.
 *
 * The window. A cut sample the chain does not stitch, in a thread keeping
 * links, waits for the links of later samples: it is walked when `window`
 * samples more have been put, its thread ends (EXIT, a FORK of its id, an
 * exec) or the input ends. A function first seen outward of C by a later
 * sample (clang's code generation under a deep stack) is how most of them
 * get their callers. Records after it are kept until it goes (in the order
 * put), or with any_order only the waiting samples are (a sink summing
 * samples up).
 *
 * Samples must come in time order, with the records that end threads in
 * their place among them. Kept and stitched frames are copies (their maps
 * copied once, as the session's may move on); strings are the resolvers',
 * which live as long as the pipeline.
 */
#ifndef SCORCH_STITCH_H
#define SCORCH_STITCH_H

#include "analyze/frame.h"
#include "analyze/pipeline_config.h"
#include "perf/event.h"
#include <stdbool.h>
#include <stdint.h>

struct stitch;

/* A stitcher adding frames up to max_frames in all (inline chains counted
 * once, as the resolver counts them). window: how many samples a cut
 * sample that earlier samples do not stitch waits for the links of later
 * ones (0: it does not wait; records are then never kept). any_order: the
 * sink sums samples up, so they may come in any order and no other record
 * need keep its place: the stitcher then keeps only the samples that wait,
 * not every record after them. */
struct stitch *stitch_new(int max_frames, uint32_t window, bool any_order);
void stitch_free(struct stitch *st);

/* A record in time order, as it leaves the session: EXIT and FORK end the
 * thread's state, a COMM of an exec its process's; others are ignored.
 * Before the record is put (stitch_put). */
void stitch_event(struct stitch *st, const struct perf_event *ev);

/* A record for the sink, in time order: its bytes (NULL: a record whose
 * type, misc and time are all the sink reads) and decoding, rs its
 * resolved sample (NULL: not a sample), the input state as of it;
 * ev_given: the sink had its event() already. */
struct stitch_item {
	const uint8_t *rec;
	uint64_t file_off;
	const struct perf_event *ev;
	const struct resolved_sample *rs;
	const struct pipeline_recstate *state;
	bool ev_given;
};

/* Put record it. True: it goes to the sink now, a sample as *out (rs, or
 * its stitched copy valid until the next call). False: it is kept (with
 * every record after it until those before are given back): the sink gets
 * what stitch_next gives, in the order put. */
bool stitch_put(struct stitch *st, const struct stitch_item *it, const struct resolved_sample **out);

/* A kept record given back: its bytes to decode again (a sample's without
 * the user stack's bytes: ev's stack sizes are these), its input state, and
 * for a sample its resolved stack (ev and attr to be set). */
struct stitch_rec {
	const uint8_t *rec;
	uint64_t file_off;
	const struct pipeline_recstate *state;
	struct resolved_sample *rs;
	bool ev_given;
	uint64_t stack_size, stack_dyn_size;
	/* rec NULL: a record put without its bytes (rec NULL: what the sink
	 * reads of it is its type, misc and time) */
	uint32_t type;
	uint16_t misc;
	uint64_t time;
};

/* The next kept record that may go to the sink, in order (valid until the
 * next call to the stitcher), or false. */
bool stitch_next(struct stitch *st, struct stitch_rec *r);
/* Whether records are kept (a record put now would be). */
bool stitch_holding(const struct stitch *st);
/* The input ended: every kept record may go (stitch_next). */
void stitch_end(struct stitch *st);

/* Samples stitched so far. */
uint64_t stitch_count(const struct stitch *st);

#endif
