/*
 * stitch.h: the outer frames of a stack whose DWARF unwinding stopped at the
 * end of the copied user stack, taken from an earlier sample of the thread.
 *
 * A sample's unwinding stops at frame F when F's return address lies above
 * the end of the copy (`--call-graph dwarf` copies 8 KB by default). F's
 * canonical frame address C (its caller's stack pointer) is still known: the
 * CFI computes it from registers. An activation that is still live has the
 * callers it had: so when an earlier sample of the same thread unwound
 * through the same function at the same C and went on outward, its frames
 * outward of C are F's callers, unless the activation at C was left and
 * entered again in between (a limit: nothing in the copy shows it).
 *
 * Per thread, the stitcher keeps the thread's last known chain of
 * activations, innermost first, each with its CFA, its function (DSO
 * identity and symbol start) and its symbolized frames (inline entries
 * included), and whether the next one out is known to be its caller:
 *   - a sample that unwound to its end (or stopped for another reason)
 *     replaces the entries at CFAs up to its outermost with its own; one
 *     whose stack reaches the thread's base (an entry point: _start,
 *     start_thread, clone3...) replaces the whole chain, and is kept as a
 *     copy of its frames until a later sample needs its activations;
 *   - a sample cut at C: its frames replace the entries at CFAs up to C
 *     (it saw those live frames; a different function at a CFA, or an
 *     entry deeper than its leaf, is stale), the entries outward of C stay;
 *     when the entry at C has F's function and a known caller, and F's
 *     function has no other frame in the sample (recursion re-enters a
 *     function at one CFA while callers change unseen), the sample is
 *     stitched: the entries from there out, up to the first whose
 *     caller is unknown, are appended (no match, no stitch).
 * A thread's chain goes with its EXIT or a FORK of its id, a process's with
 * its exec. Samples must come in time order (sample order), with the
 * records that end threads in their place among them.
 *
 * Stitched frames are copies (their maps copied once, as the session's may
 * move on); strings are the resolvers', which live as long as the pipeline.
 */
#ifndef SCORCH_STITCH_H
#define SCORCH_STITCH_H

#include "analyze/frame.h"
#include "perf/event.h"
#include <stdint.h>

struct stitch;

/* A stitcher adding frames up to max_frames in all (inline chains counted
 * once, as the resolver counts them). */
struct stitch *stitch_new(int max_frames);
void stitch_free(struct stitch *st);

/* A record in time order: EXIT and FORK drop the thread's chain, a COMM of
 * an exec its process's chains; others are ignored. */
void stitch_event(struct stitch *st, const struct perf_event *ev);

/* Sample rs, in time order: rs itself, or its stitched copy (frames
 * appended, nr_stitched set, text NULL) valid until the next call. */
const struct resolved_sample *stitch_sample(struct stitch *st, const struct resolved_sample *rs);

/* Samples stitched so far. */
uint64_t stitch_count(const struct stitch *st);

#endif
