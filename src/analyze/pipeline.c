/*
 * pipeline.c: input -> order -> session -> resolve -> sink (see pipeline.h).
 *
 * pipeline_pump pulls raw records from the input into the ordering queue;
 * FINISHED_ROUND flushes it; every record leaves the queue through
 * deliver(), which decodes it in place and applies it to the session
 * (apply), then hands it to the sink (to_sink): event(), and for a sample
 * its resolved stack to sample().
 *
 * With -j (parallel/blocks.h) this is one of several pipelines over the
 * same input, and the delivery meets the blocks at five places, the
 * block_* functions at the end of this file: block_start (the hooks, at
 * the start), block_take (a record leaving the queue is counted: whether
 * it is this pipeline's), block_hand (a record of this pipeline's kept to
 * be written later instead of given to the sink), block_meta (the input
 * changes its attrs: the blocks are cut) and block_end. Pipeline 0 (the
 * leader) reads the input and publishes what leaves its queue to the feed
 * (publish); the others (followers) take their records from there
 * (pipeline_follow) instead of reading.
 */
#include "analyze/pipeline.h"
#include "analyze/parallel/feed.h"
#include "analyze/resolver.h"
#include "analyze/stitch.h"
#include "util/annotate.h"
#include "util/hugeheap.h"
#include "util/xalloc.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/buf.h"

#define PREFETCH_HEAD 2048 /* bytes of the next sample asked for ahead (prefetch_next) */

struct pipeline {
	const struct pipeline_config *cfg;
	struct input *in;
	struct session *sess;
	struct order *ord;
	struct resolver *res;
	struct resolver_stats rstats;
	struct stitch *st;           /* c->stitch, outside block-parallel runs */
	bool live;                   /* fed from memory: the stitcher keeps nothing */
	struct sink *sink;
	struct err *e;
	/* The input state the sink reads (pipeline_input_pos,
	 * pipeline_order_stats) when it is not the input's own: a
	 * follower's (its record's in the feed, or cur at the end), a
	 * replay's view (cur). NULL: the input's. */
	const struct pipeline_recstate *state;
	struct pipeline_recstate cur;
	uint64_t warned_mmap;        /* late MMAPs already warned about */
	/* AUX area data (Intel PT, CoreSight): not decoded, said once */
	uint64_t aux_bytes, auxtrace_bytes, aux_records;
	int aux_attr;
	/* block-parallel (cfg->blocks): records delivered so far, the current
	 * block and its first record, whether it is this pipeline's, whether
	 * its done was called */
	uint64_t nrec, blk, blk_start;
	bool blk_mine, blk_closed;
	/* the feed (cfg->blocks->feed): pipeline 0 publishes there (lead),
	 * the others read from there (follow). meta_cut: the input's meta
	 * hook cut the blocks during this input_next (with had_tracing:
	 * whether the header had tracing data then); input_err: input_next
	 * failed */
	struct feed *lead, *follow;
	bool meta_cut, had_tracing, input_err;
	struct pipeline *view;       /* ordered blocks: the replays' view of this pipeline */
};

/* The block-parallel side of the delivery (at the end of this file). */
static void block_start(struct pipeline *p);
static bool block_take(struct pipeline *p, bool sample, int *rc);
static int block_hand(struct pipeline *p, const uint8_t *rec, uint64_t file_off,
		      const struct perf_event *ev, const struct resolved_sample *rs);
static int block_end(struct pipeline *p, int rc);
static void publish(struct pipeline *p, const uint8_t *rec, uint64_t file_off);
static void publish_meta(struct pipeline *p, const struct input_rec *r);
static void prefetch_next(struct feed *f, int i);
static int pipeline_follow(struct pipeline *p);

void pipeline_config_init(struct pipeline_config *c)
{
	memset(c, 0, sizeof(*c));
	c->input = "perf.data";
	c->input_fd = -1;
	c->max_frames = PIPELINE_FRAMES_ALL;
	c->stitch_window = PIPELINE_STITCH_WINDOW;
	c->resolve = true;
	c->order.buffer_size = 32ull << 20;
	c->order.max_buffer_size = 1ull << 30;
}

struct input *pipeline_input(struct pipeline *p) { return p->in; }
struct session *pipeline_session(struct pipeline *p) { return p->sess; }
const struct order_stats *pipeline_order_stats(struct pipeline *p)
{
	return p->state ? &p->state->os : order_stats(p->ord);
}
uint64_t pipeline_input_pos(struct pipeline *p)
{
	return p->state ? p->state->pos : input_pos(p->in);
}
const struct pipeline_config *pipeline_config(struct pipeline *p) { return p->cfg; }
int pipeline_fail(struct pipeline *p, const char *msg)
{
	return err_set(p->e, -EINVAL, "%s", msg);
}
const struct resolver_stats *pipeline_resolver_stats(struct pipeline *p)
{
	if (!p->res)
		return NULL;
	p->rstats = *resolver_stats(p->res);
	p->rstats.stitched = stitch_count(p->st);
	return &p->rstats;
}

/* What a sink may read about the input as of the record leaving the queue now. */
static struct pipeline_recstate state_now(struct pipeline *p)
{
	if (p->state)
		return *p->state;
	return (struct pipeline_recstate){ .pos = input_pos(p->in), .os = *order_stats(p->ord) };
}

void pipeline_warning_say(const struct pipeline_config *c, const char *msg)
{
	if (c->warn)
		c->warn(c->warn_ctx, msg);
	else
		fprintf(stderr, "scorch: %s: %s\n", c->input ? c->input : "-", msg);
}

static void warn(struct pipeline *p, const char *msg)
{
	const struct pipeline_blocks *b = p->cfg->blocks;
	if (b) {
		/* every pipeline counts the same: the first one says it, once
		 * every block is written (the last blocks' resolver warnings
		 * come first, as in one pipeline) */
		if (!b->index)
			b->late(b->ctx, msg);
		return;
	}
	pipeline_warning_say(p->cfg, msg);
}

static void route_warning(void *ctx, const struct resolver_warning *w)
{
	resolver_warning_route(ctx, w);
}

/* ---- input -> order ---- */

/* Read records until the input has no more (its end, or a fed input's
 * feed used up) into the ordering queue. 0, or an error / a sink's stop. */
static int pipeline_pump(struct pipeline *p)
{
	const struct pipeline_config *c = p->cfg;
	int rc;
	for (unsigned n = 0;; n++) {
		struct input_rec r;
		rc = input_next(p->in, &r, p->e);
		if (p->meta_cut && rc > 0)
			publish_meta(p, &r);
		p->meta_cut = false;
		if (rc <= 0) {
			p->input_err = rc < 0;
			break;
		}
		/* the heap is the process's: one pipeline of several ticks it */
		if (!(n & 1023) && (!c->blocks || !c->blocks->index))
			hugeheap_tick();
		const struct perf_event_header *h = (const void *)r.p;
		if (h->type == PERF_RECORD_FINISHED_ROUND) {
			if (c->unordered)
				continue;
			rc = order_round(p->ord);
		} else {
			uint64_t t = 0;
			bool has_time = !c->unordered && perf_record_time(input_evlist(p->in), r.p, &t);
			rc = order_push(p->ord, &r, has_time, t, h->type == PERF_RECORD_SAMPLE);
		}
		if (rc)
			break;
	}
	return rc;
}
/* Deliver what is queued; warn about late MMAPs once. */
static int pipeline_flush(struct pipeline *p, int rc)
{
	if (rc == 0)
		rc = order_flush_all(p->ord);
	const struct order_stats *os = order_stats(p->ord);
	if (rc >= 0 && os->mmap_violations > p->warned_mmap) {
		char msg[200];
		snprintf(msg, sizeof(msg),
			 "%llu MMAP records arrived out of time order (after samples that may need them); "
			 "raise --buffer-size", (unsigned long long)(os->mmap_violations - p->warned_mmap));
		warn(p, msg);
		p->warned_mmap = os->mmap_violations;
	}
	return rc;
}

/* ---- order -> session -> resolve -> sink ---- */

/* Whether record ev changes what stitching knows (a thread ends, an exec). */
static bool stitch_record(const struct perf_event *ev)
{
	return ev->type == PERF_RECORD_EXIT || ev->type == PERF_RECORD_FORK ||
	       (ev->type == PERF_RECORD_COMM && ev->comm.exec);
}

/* The records the stitcher gives back (stitch_next) to sink, as view v
 * (its state each record's own meanwhile). */
static int stitch_release(struct stitch *st, const struct sink *sink, struct pipeline *v)
{
	struct stitch_rec r;
	const struct pipeline_recstate *was = v->state;
	const struct perf_evlist *el = input_evlist(v->in);
	int rc = 0;
	while (!rc && stitch_next(st, &r)) {
		struct perf_event ev;
		if (r.rec) {
			if ((rc = perf_event_decode(el, r.rec, r.file_off, &ev, v->e)))
				break;
			ev.s.stack_user_size = r.stack_size;
			ev.s.stack_user_dyn_size = r.stack_dyn_size;
		} else {
			perf_event_light(&ev, r.type, r.misc, r.file_off, r.time);
		}
		v->state = r.state;
		if (!r.ev_given && sink->event)
			rc = sink->event(sink->ctx, v, &ev);
		if (!rc && r.rs && sink->sample) {
			r.rs->ev = &ev;
			r.rs->attr = ev.s.attr_idx >= 0 ? &el->attrs[ev.s.attr_idx] : NULL;
			rc = sink->sample(sink->ctx, v, r.rs);
		}
	}
	v->state = was;
	return rc;
}

/* Record it to sink (as view v) through the stitcher: now, or kept until
 * the records before it go. */
static int stitch_deliver(struct stitch *st, const struct sink *sink, struct pipeline *v,
			  const struct stitch_item *it)
{
	const struct resolved_sample *out;
	if (!stitch_put(st, it, &out))
		return stitch_release(st, sink, v);
	int rc = 0;
	if (!it->ev_given && sink->event && (rc = sink->event(sink->ctx, v, it->ev)))
		return rc;
	return out && sink->sample ? sink->sample(sink->ctx, v, out) : 0;
}

/* The session (and what the pipeline itself counts) takes record ev. */
static void apply(struct pipeline *p, const struct perf_event *ev)
{
	session_apply(p->sess, ev);
	if (ev->type == PERF_RECORD_AUX) {
		p->aux_records++;
		p->aux_bytes += ev->aux.aux_size;
		if (p->aux_attr < 0)
			p->aux_attr = ev->s.attr_idx;
	} else if (ev->type == PERF_RECORD_AUXTRACE) {
		p->auxtrace_bytes += ev->auxtrace.size;
	}
	if (p->st && stitch_record(ev))
		stitch_event(p->st, ev);
}

/* Block mode: a sample whose sample() this sink will not get is at this
 * place (sink_jobs.sample_seen). */
static void sample_seen(struct pipeline *p)
{
	if (p->sink->jobs && p->sink->jobs->sample_seen)
		p->sink->jobs->sample_seen(p->sink->ctx, p);
}

/* A record of this pipeline's to the sink: event(), then for a sample its
 * resolved stack to sample(). In block mode what is written later is
 * handed over instead: the ordered sink's every record, and a sample
 * whose names are decided in order. */
static int to_sink(struct pipeline *p, const uint8_t *rec, uint64_t file_off, const struct perf_event *ev)
{
	const struct pipeline_blocks *b = p->cfg->blocks;
	bool ordered = b && b->ordered;
	bool resolve = ev->type == PERF_RECORD_SAMPLE && p->sink->sample;
	int rc;
	if (ordered && !resolve)
		return block_hand(p, rec, file_off, ev, NULL);
	/* while the stitcher keeps records, this one's event() goes with it */
	bool keeping = p->st && stitch_holding(p->st);
	if (!ordered && p->sink->event && !keeping && (rc = p->sink->event(p->sink->ctx, p, ev)))
		return rc;
	if (!resolve) {
		if (!keeping || !p->sink->event)
			return 0;
		struct pipeline_recstate now = state_now(p);
		return stitch_deliver(p->st, p->sink, p,
				      &(struct stitch_item){ .rec = rec, .file_off = file_off, .ev = ev, .state = &now });
	}
	struct resolved_sample rs;
	const struct perf_evlist *el = input_evlist(p->in);
	const struct perf_attr *pa = ev->s.attr_idx >= 0 ? &el->attrs[ev->s.attr_idx] : NULL;
	if ((rc = resolver_resolve(p->res, ev, pa, &rs)))
		return err_set(p->e, rc, "out of memory resolving a sample");
	uint32_t nd = 0;
	if (b && !ordered)
		resolver_deferred(p->res, &nd);
	if (ordered || nd) {
		if (!ordered)
			sample_seen(p);
		return block_hand(p, rec, file_off, ev, &rs);
	}
	if (!p->st)
		return p->sink->sample(p->sink->ctx, p, &rs);
	/* the input state, for a sample that may be kept: one cut, or any
	 * while records are kept */
	struct pipeline_recstate now;
	if (rs.copy_end || keeping)
		now = state_now(p);
	return stitch_deliver(p->st, p->sink, p,
			      &(struct stitch_item){ .rec = rec, .file_off = file_off, .ev = ev, .rs = &rs,
						     .state = rs.copy_end || keeping ? &now : NULL,
						     .ev_given = !keeping && p->sink->event });
}

/* Every record leaving the ordering queue (a follower's: from the feed). */
static int deliver(void *ctx, const uint8_t *rec, uint64_t file_off)
{
	struct pipeline *p = ctx;
	struct perf_event ev;
	int rc;
	if (p->lead)
		publish(p, rec, file_off);
	/* block mode: a sample changes nothing in the session, so another
	 * pipeline's is counted and not decoded (a damaged one is its owner's
	 * error: blocks.c writes nothing after the block of the first) */
	bool sample = ((const struct perf_event_header *)rec)->type == PERF_RECORD_SAMPLE;
	if (p->cfg->blocks && sample) {
		if (!block_take(p, true, &rc))
			return rc;
		if (p->follow)
			prefetch_next(p->follow, p->cfg->blocks->index);
	}
	if ((rc = perf_event_decode(input_evlist(p->in), rec, file_off, &ev, p->e)))
		return rc;
	apply(p, &ev);
	/* every pipeline applies every record; the sink gets its own blocks' */
	if (p->cfg->blocks && !sample && !block_take(p, false, &rc))
		return rc;
	return to_sink(p, rec, file_off, &ev);
}

/* ---- a run ---- */

/* Everything but the input: session, queue, resolver; then the
 * sink's begin. */
static int pipeline_start(struct pipeline *p)
{
	const struct pipeline_config *c = p->cfg;
	struct sink *sink = p->sink;
	p->aux_attr = -1;
	p->sess = session_new();
	p->ord = order_new(&c->order, deliver, p);
	if (sink->sample)
		p->res = resolver_new(c, p->sess, input_header(p->in));
	if (sink->sample && c->stitch && !c->blocks)
		p->st = stitch_new(c->max_frames, p->live ? 0 : c->stitch_window, sink->any_order);
	if (p->res)
		resolver_set_warn(p->res, route_warning, (void *)c);
	if (c->blocks)
		block_start(p);
	return sink->begin ? sink->begin(sink->ctx, p) : 0;
}

/* The sink's end, then everything freed but the pipeline itself (or, when
 * the process exits after the run, only the caches stored). */
static int pipeline_finish(struct pipeline *p, int rc)
{
	struct err *e = p->e;
	if (rc >= 0 && (p->aux_records || p->auxtrace_bytes)) {
		struct perf_evlist *el = input_evlist(p->in);
		const char *name = p->aux_attr >= 0 && (size_t)p->aux_attr < el->nr && el->attrs[p->aux_attr].name
					   ? el->attrs[p->aux_attr].name : "an AUX area event";
		char msg[300];
		snprintf(msg, sizeof(msg),
			 "AUX area data of %s not decoded (Intel PT / CoreSight decoding is not supported): "
			 "%llu bytes in %llu AUX records, %llu bytes of AUXTRACE data skipped", name,
			 (unsigned long long)p->aux_bytes, (unsigned long long)p->aux_records,
			 (unsigned long long)p->auxtrace_bytes);
		warn(p, msg);
	}
	/* damaged features: said when the file was otherwise read (a fatal
	 * error stays the one line about the input) */
	const struct perf_header *hdr = input_header(p->in);
	for (unsigned i = 0; rc >= 0 && i < hdr->nr_warnings; i++)
		warn(p, hdr->warnings[i]);
	if (p->st && (rc == 0 || (rc < 0 && p->input_err))) {
		/* what the stitcher kept, as far as the input was read */
		stitch_end(p->st);
		int r2 = stitch_release(p->st, p->sink, p);
		if (!rc)
			rc = r2;
	}
	if (p->cfg->blocks)
		rc = block_end(p, rc);
	if (rc > 0)
		rc = 0; /* a sink asked to stop */
	if (rc < 0 && !e->set)
		err_set(e, rc, "analysis failed (%s)", strerror(-rc));
	if (p->sink->end) {
		int r2 = p->sink->end(p->sink->ctx, p, rc);
		if (!rc)
			rc = r2;
	}
	if (p->cfg->exit_after) {
		resolver_keep(p->res);
		return rc;
	}
	stitch_free(p->st);
	free(p->view);
	resolver_free(p->res);
	order_free(p->ord);
	session_free(p->sess);
	/* every follower is done (block_end waited for all): the chunks go
	 * back to this input's pool before it is freed */
	feed_release(p->lead);
	input_free(p->in);
	return rc;
}

int pipeline_run(const struct pipeline_config *c, struct sink *sink, struct err *e)
{
	struct pipeline p = { .cfg = c, .sink = sink, .e = e };
	int rc = 0;
	p.in = c->input_fd >= 0 ? input_open_fd(c->input_fd, c->input ? c->input : "-", c->tmpdir, e)
				: input_open_named(c->input ? pipeline_input_file(c) : "perf.data",
						   c->input ? c->input : "perf.data", c->tmpdir, e);
	struct feed *f = c->blocks ? c->blocks->feed : NULL;
	if (!p.in) {
		/* the followers meet the leader's error as their own */
		if (f && !c->blocks->index)
			feed_end(f, -EINVAL, true, e);
		else if (f)
			feed_leave(f, c->blocks->index);
		if (sink->end)
			sink->end(sink->ctx, &p, -EINVAL);
		return -EINVAL;
	}
	if (f && !c->blocks->index)
		p.lead = f;
	else if (f) {
		p.follow = f;
		p.state = &p.cur; /* the leader's records' (pipeline_follow) */
	}
	rc = pipeline_start(&p);
	if (!rc)
		rc = p.follow ? pipeline_follow(&p) : pipeline_pump(&p);
	if (!rc)
		rc = pipeline_flush(&p, rc);
	return pipeline_finish(&p, rc);
}

/* ---- fed from memory (live) ---- */

struct pipeline *pipeline_feed_new(const struct pipeline_config *c, struct sink *sink,
				   const uint8_t *head, size_t n, struct err *e)
{
	struct pipeline *p = xcalloc(1, sizeof(*p));
	*p = (struct pipeline){ .cfg = c, .sink = sink, .e = e, .live = true };
	p->in = input_open_feed(c->input ? c->input : "(live)", head, n, e);
	if (!p->in) {
		if (sink->end)
			sink->end(sink->ctx, p, -EINVAL);
		free(p);
		return NULL;
	}
	int rc = pipeline_start(p);
	if (!rc)
		rc = pipeline_pump(p);
	if (rc) {
		pipeline_finish(p, rc);
		free(p);
		return NULL;
	}
	return p;
}

int pipeline_feed(struct pipeline *p, const uint8_t *data, size_t n)
{
	input_feed(p->in, data, n);
	return pipeline_pump(p);
}

int pipeline_feed_flush(struct pipeline *p)
{
	return pipeline_flush(p, 0);
}

int pipeline_feed_end(struct pipeline *p, int rc)
{
	if (!p)
		return rc;
	if (!rc)
		rc = pipeline_flush(p, rc);
	rc = pipeline_finish(p, rc);
	free(p);
	return rc;
}


/* ---- block-parallel runs (cfg->blocks, parallel/blocks.h) ---- */

static bool block_mine(struct pipeline *p, uint64_t blk)
{
	const struct pipeline_blocks *b = p->cfg->blocks;
	return b->mine(b->ctx, b->index, blk);
}

/* The current block ends (done, if it is this pipeline's); the next
 * begins at the next record. The done callback's nonzero return. */
static int block_next(struct pipeline *p)
{
	const struct pipeline_blocks *b = p->cfg->blocks;
	/* the leader decides who has the next block before its done, which
	 * may write blocks for a while: the next block's first record is
	 * published already, and a follower that reached it waits for the
	 * decision (it spun and yielded through the leader's writing:
	 * sched_yield was 0.4% of `perfparser -j 2`'s samples) */
	bool next_mine = p->lead && block_mine(p, p->blk + 1);
	/* the followers go on with what is there: the done below may wait
	 * for their blocks */
	feed_flush(p->lead);
	if (p->blk_mine && !p->blk_closed) {
		p->blk_closed = true;
		int rc = b->done(b->ctx, b->index, p->blk);
		if (rc)
			return rc;
	}
	p->blk++;
	p->blk_start = p->nrec;
	p->blk_mine = p->lead ? next_mine : block_mine(p, p->blk);
	p->blk_closed = false;
	return 0;
}

/* Count the record leaving the queue; whether it is this pipeline's (else
 * it is in another's block, and a sample there is only seen: sample_seen).
 * *rc: the done callback's nonzero return. */
static bool block_take(struct pipeline *p, bool sample, int *rc)
{
	const struct pipeline_blocks *b = p->cfg->blocks;
	*rc = 0;
	if (p->nrec - p->blk_start >= b->size && (*rc = block_next(p)))
		return false;
	p->nrec++;
	if (!p->blk_mine && sample)
		sample_seen(p);
	return p->blk_mine;
}

/* A record of this pipeline's kept to be written later (rs: its resolved
 * sample, NULL for other records), with the input state as of now. */
static int block_hand(struct pipeline *p, const uint8_t *rec, uint64_t file_off,
		      const struct perf_event *ev, const struct resolved_sample *rs)
{
	const struct pipeline_blocks *b = p->cfg->blocks;
	uint32_t nd = 0;
	const struct resolver_deferred *d = rs ? resolver_deferred(p->res, &nd) : NULL;
	struct pipeline_recstate st = state_now(p);
	return b->hand(b->ctx, b->index, p, rec, file_off, ev, rs, d, nd, &st);
}

/*
 * The input is about to change its attrs or header (a HEADER_ATTR,
 * EVENT_UPDATE, ... after records were delivered). Records already
 * delivered but not yet written (kept, to be replayed or named later) must
 * be written as they were delivered, with the attrs and header of before;
 * so the current block ends here (every pipeline reads the same change at
 * the same place, so all cut their blocks alike) and the change waits
 * until every block before it is written.
 */
static void block_meta(void *ctx)
{
	struct pipeline *p = ctx;
	const struct pipeline_blocks *b = p->cfg->blocks;
	if (p->lead) {
		/* the followers cut theirs at the same place, before this one
		 * waits for their blocks; what the record says follows
		 * (pipeline_pump) */
		feed_slot(p->lead)->kind = FEED_CUT;
		feed_publish(p->lead);
		p->meta_cut = true;
		p->had_tracing = input_header(p->in)->tracing_data != NULL;
	}
	if (!p->nrec)
		return;
	/* a stop (the run was aborted) is not taken here: the next block's
	 * done says it again, and nothing more is written meanwhile */
	if (p->nrec > p->blk_start)
		block_next(p);
	b->barrier(b->ctx, b->index, p->blk);
}

/* The hooks, before the sink's begin. */
static void block_start(struct pipeline *p)
{
	const struct pipeline_blocks *b = p->cfg->blocks;
	p->blk_mine = block_mine(p, 0);
	input_set_meta_hook(p->in, block_meta, p);
	if (p->res) {
		/* names decided in order across the pipelines */
		resolver_defer_a2l(p->res);
		resolver_set_warn(p->res, b->warn, b->ctx);
		if (b->unwind_share)
			resolver_set_unwind_share(p->res, b->unwind_share);
	}
	if (b->ordered) {
		p->view = xmalloc(sizeof(*p->view));
		*p->view = *p;
		p->view->view = NULL;
		p->view->res = NULL;
		p->view->state = &p->view->cur;
	}
}

/* After the last record (rc: the run's result so far): the followers
 * end where this one did (at the input's end or error as they would have
 * met it, else they stop there); the last block (or the one an error
 * ended) is written too; returns once every pipeline's blocks are. */
static int block_end(struct pipeline *p, int rc)
{
	const struct pipeline_blocks *b = p->cfg->blocks;
	if (p->lead)
		feed_end(p->lead, rc, rc == 0 || p->input_err, p->e);
	if (p->follow)
		feed_leave(p->follow, b->index);
	if (rc < 0)
		b->failed(b->ctx, b->index, p->blk);
	if (p->blk_mine && !p->blk_closed) {
		p->blk_closed = true;
		int r2 = b->done(b->ctx, b->index, p->blk);
		if (!rc && r2)
			rc = r2;
	}
	b->finish(b->ctx, b->index, p, rc > 0 ? 0 : rc);
	return rc;
}

int pipeline_replay(struct pipeline *p, const struct sink *sink, const struct perf_event *ev,
		    const struct resolved_sample *rs, const struct pipeline_recstate *st)
{
	struct pipeline *v = p->view;
	struct stitch *sti = p->cfg->blocks ? p->cfg->blocks->stitch : NULL;
	v->cur = *st;
	if (sti) {
		if (!rs)
			stitch_event(sti, ev);
		return stitch_deliver(sti, sink, v,
				      &(struct stitch_item){ .rec = ev->data, .file_off = ev->file_off, .ev = ev,
							     .rs = rs, .state = st });
	}
	int rc = sink->event ? sink->event(sink->ctx, v, ev) : 0;
	if (!rc && rs && sink->sample)
		rc = sink->sample(sink->ctx, v, rs);
	return rc;
}

int pipeline_replay_end(struct pipeline *p, const struct sink *sink)
{
	struct stitch *sti = p->cfg->blocks ? p->cfg->blocks->stitch : NULL;
	if (!sti)
		return 0;
	stitch_end(sti);
	return stitch_release(sti, sink, p->view);
}

/* Leader: the record leaving the queue now, for the followers. */
static void publish(struct pipeline *p, const uint8_t *rec, uint64_t file_off)
{
	struct feed_entry *en = feed_slot(p->lead);
	uint32_t size = ((const struct perf_event_header *)rec)->size;
	struct input_chunk *ch;
	if (order_keepable(p->ord, &ch)) {
		/* in an input chunk (a reference), or for the input's life */
		if (ch)
			input_chunk_get(ch);
		en->chunk = ch;
		en->rec = rec;
	} else {
		en->copy = xmalloc(size);
		memcpy(en->copy, rec, size);
		en->rec = en->copy;
	}
	en->kind = FEED_REC;
	en->type = ((const struct perf_event_header *)rec)->type;
	en->size = size;
	en->file_off = file_off;
	*feed_state(p->lead, en) = state_now(p);
	feed_publish(p->lead);
}

/* Leader: the meta hook cut the blocks while input_next read r: the
 * followers take what r says. */
static void publish_meta(struct pipeline *p, const struct input_rec *r)
{
	const struct perf_header *h = input_header(p->in);
	uint32_t tracing = !p->had_tracing && h->tracing_data ? (uint32_t)h->tracing_data_size : 0;
	size_t at = ((size_t)r->size + 7) & ~(size_t)7;
	struct feed_entry *en = feed_slot(p->lead);
	en->kind = FEED_META;
	en->copy = xmalloc(at + tracing + 1);
	memcpy(en->copy, r->p, r->size);
	if (tracing)
		memcpy(en->copy + at, h->tracing_data, tracing);
	en->rec = en->copy;
	en->size = r->size;
	en->file_off = r->file_off;
	en->tracing = tracing;
	feed_publish(p->lead);
}

/* Follower, about to resolve a sample of its own: the next sample's bytes
 * that decoding and unwinding read first (its start: the fields, the
 * kernel's call chain, the registers and the top of the user stack; its
 * last line: the stack's dyn_size) are asked for now, while this one is
 * resolved: they were copied in by the leader's read, on another CPU. */
static void prefetch_next(struct feed *f, int i)
{
	const struct feed_entry *nx = feed_peek(f, i, 1);
	if (!nx || nx->kind != FEED_REC || nx->type != PERF_RECORD_SAMPLE)
		return;
	size_t n = nx->size < PREFETCH_HEAD ? nx->size : PREFETCH_HEAD;
	for (size_t at = 0; at < n; at += 64)
		__builtin_prefetch(nx->rec + at);
	if (nx->size > PREFETCH_HEAD)
		__builtin_prefetch(nx->rec + nx->size - 1);
}

/* Follower: the leader's records instead of the input's. 0 at the
 * input's end, else as pipeline_pump. */
static int pipeline_follow(struct pipeline *p)
{
	int index = p->cfg->blocks->index;
	struct feed *f = p->follow;
	for (;;) {
		const struct feed_entry *en = feed_next(f, index);
		int rc = 0;
		if (en->kind == FEED_REC) {
			p->state = feed_state(f, en);
			rc = deliver(p, en->rec, en->file_off);
		} else if (en->kind == FEED_CUT) {
			block_meta(p);
		} else if (en->kind == FEED_META) {
			size_t at = ((size_t)en->size + 7) & ~(size_t)7;
			rc = input_absorb(p->in, en->rec, en->size, en->file_off,
					  en->tracing ? en->rec + at : NULL, en->tracing, p->e);
		} else {
			/* the leader's end: the input's (its error, as this
			 * input would have met it), or a stop of its own */
			rc = en->input ? en->rc : 1;
			if (rc < 0)
				*p->e = *feed_error(f);
			p->cur = *p->state; /* the last record's, past the feed's life */
			p->state = &p->cur;
		}
		/* en is the leader's again once consumed (it may refill it) */
		bool end = en->kind == FEED_END;
		feed_consumed(f, index);
		if (rc || end)
			return rc;
	}
}

