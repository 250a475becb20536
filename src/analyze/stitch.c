/*
 * stitch.c: see stitch.h.
 *
 * A thread's chain is an array of activations by CFA, innermost (lowest)
 * first, and the frames they hold in one array of the thread; a new chain
 * is made in the stitcher's scratch arrays and swapped in. Maps are copied
 * once into a table of the stitcher (a frame's map pointer is the session's
 * or a snapshot's, neither of which outlives the sample).
 */
#include "analyze/stitch.h"
#include "analyze/session.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

/* A chain longer than this (activations, frames) is cut at its outer end. */
#define STITCH_MAX_ENTRIES 65536u
#define STITCH_MAX_FRAMES (1u << 20)

/* What the thread's samples showed at one CFA: the activation there (its
 * function, its frames) and its caller as seen with it. */
struct act {
	uint64_t cfa, ip;
	uint64_t fn_dso, fn_start;  /* the function; fn_dso 0: no symbol */
	uint64_t caller_cfa, caller_ip; /* caller_cfa 0: not known (or none) */
	uint32_t first, n;          /* its frames in the chain's frame array */
};

struct chain {
	uint32_t pid;
	struct act *a;              /* by CFA, ascending */
	size_t na, cap_a;
	struct frame *f;            /* frames of a, and garbage (compacted) */
	size_t nf, cap_f;
	size_t live;                /* frames of a when last counted */
	/* np > 0: the last sample made the chain its own (a whole stack
	 * reaching the thread's base): its user frames, maps copied, taken
	 * apart into activations only when a later sample needs them */
	struct frame *p;
	uint32_t np;
	size_t cap_p;
};

struct map_copy {
	struct map m;
	struct map_copy *next;      /* same hash */
};

struct stitch {
	int max_frames;
	struct hmap chains;         /* tid -> struct chain * */
	struct hmap maps;           /* hash of a map -> struct map_copy * */
	/* the copies of the maps frames pointed at lately, by their pointer
	 * (most frames of a sample are in a few maps) */
	struct {
		const struct map *src, *copy;
	} recent[64];
	struct chain tmp;           /* the chain being made */
	struct frame *out;          /* a stitched sample's frames */
	size_t cap_out;
	struct resolved_sample rs;
	uint64_t stitched;
};

struct stitch *stitch_new(int max_frames)
{
	struct stitch *st = xcalloc(1, sizeof(*st));
	st->max_frames = max_frames > 0 ? max_frames : 64;
	hmap_init(&st->chains);
	hmap_init(&st->maps);
	return st;
}

static void chain_free(void *v)
{
	struct chain *c = v;
	free(c->a);
	free(c->f);
	free(c->p);
	free(c);
}

static void map_copies_free(void *v)
{
	for (struct map_copy *m = v, *nx; m; m = nx) {
		nx = m->next;
		free(m);
	}
}

void stitch_free(struct stitch *st)
{
	if (!st)
		return;
	hmap_release_vals(&st->chains, chain_free);
	hmap_release_vals(&st->maps, map_copies_free);
	free(st->tmp.a);
	free(st->tmp.f);
	free(st->out);
	free(st);
}

uint64_t stitch_count(const struct stitch *st)
{
	return st ? st->stitched : 0;
}

static void drop(struct stitch *st, uint32_t tid)
{
	struct chain *c = hmap_del(&st->chains, tid);
	if (c)
		chain_free(c);
}

void stitch_event(struct stitch *st, const struct perf_event *ev)
{
	if (ev->type == PERF_RECORD_EXIT || ev->type == PERF_RECORD_FORK) {
		drop(st, ev->fork.tid);
	} else if (ev->type == PERF_RECORD_COMM && ev->comm.exec) {
		/* every thread of the process: exec leaves one, with a new image */
		for (size_t i = 0; i < st->chains.cap; i++) {
			if (!hmap_used(&st->chains, i))
				continue;
			struct chain *c = st->chains.slot[i].val;
			if (c->pid == ev->comm.pid) {
				uint64_t tid = st->chains.slot[i].key;
				drop(st, (uint32_t)tid);
				i = (size_t)-1; /* the table may have moved entries */
			}
		}
	}
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static const struct map *map_intern(struct stitch *st, const struct map *m);

/* The stitcher's copy of map m (equal content, one copy). */
static const struct map *map_keep(struct stitch *st, const struct map *m)
{
	size_t i = ((uintptr_t)m >> 4) & 63;
	const struct map *k = st->recent[i].copy;
	/* the same place may hold another map by now: the fields that
	 * change with it are compared */
	if (st->recent[i].src == m && k->start == m->start && k->end == m->end &&
	    k->pgoff == m->pgoff && k->time == m->time && k->filename == m->filename)
		return k;
	k = map_intern(st, m);
	st->recent[i].src = m;
	st->recent[i].copy = k;
	return k;
}

static const struct map *map_intern(struct stitch *st, const struct map *m)
{
	uint64_t h = hash_u64(m->start ^ hash_u64(m->end ^ (m->pgoff << 1)) ^ m->time);
	struct map_copy *head = hmap_get(&st->maps, h);
	for (struct map_copy *c = head; c; c = c->next) {
		const struct map *k = &c->m;
		if (k->start == m->start && k->end == m->end && k->pgoff == m->pgoff &&
		    k->time == m->time && k->ino == m->ino && k->prot == m->prot &&
		    k->flags == m->flags && k->maj == m->maj && k->min == m->min &&
		    k->ino_generation == m->ino_generation && k->build_id_size == m->build_id_size &&
		    !memcmp(k->build_id, m->build_id, sizeof k->build_id) &&
		    same_str(k->filename, m->filename))
			return k;
	}
	struct map_copy *c = xmalloc(sizeof(*c));
	c->m = *m;
	c->next = head;
	hmap_put(&st->maps, h, c);
	return &c->m;
}

/* Room for n more activations and k more frames in c. */
static void chain_room(struct chain *c, size_t n, size_t k)
{
	if (c->na + n > c->cap_a && ARRAY_GROW(c->a, c->cap_a, c->na + n, STITCH_MAX_ENTRIES * 2 + 1))
		xalloc_die();
	if (c->nf + k > c->cap_f && ARRAY_GROW(c->f, c->cap_f, c->nf + k, STITCH_MAX_FRAMES * 2 + 4096))
		xalloc_die();
}

/* Copy n frames fr to o, their maps copied. */
static void frames_keep(struct stitch *st, struct frame *o, const struct frame *fr, uint32_t n)
{
	memcpy(o, fr, n * sizeof(*fr));
	const struct map *src = NULL, *copy = NULL;
	for (uint32_t i = 0; i < n; i++) {
		if (!o[i].map)
			continue;
		if (o[i].map != src) {
			src = o[i].map;
			copy = map_keep(st, src);
		}
		o[i].map = copy;
	}
}

/* Copy n frames fr into c's frame array (room made), their maps copied
 * unless kept already; their place. */
static uint32_t frames_put(struct stitch *st, struct chain *c, const struct frame *fr, uint32_t n, bool kept)
{
	uint32_t at = (uint32_t)c->nf;
	if (kept)
		memcpy(c->f + at, fr, n * sizeof(*fr));
	else
		frames_keep(st, c->f + at, fr, n);
	c->nf += n;
	return at;
}

/* The activation at cfa in c, or -1 (the CFAs ascend). */
static long find_cfa(const struct chain *c, uint64_t cfa)
{
	size_t lo = 0, hi = c->na;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->a[mid].cfa < cfa)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->na && c->a[lo].cfa == cfa ? (long)lo : -1;
}

/* Whether activations a and b (at one CFA) are of the same function: the
 * same symbol, or without one, the same address. */
static bool same_function(const struct act *a, const struct act *b)
{
	if (a->fn_dso || b->fn_dso)
		return a->fn_dso == b->fn_dso && a->fn_start == b->fn_start;
	return a->ip == b->ip;
}

/* Whether fa's function has another activation among t's, the sample's
 * (recursion): an activation of a recursive function at a CFA may have
 * been left and entered again, the same way, while a caller further out
 * changed its call site, and nothing in the sample shows it. */
static bool recursive(const struct chain *t, const struct act *fa)
{
	for (size_t i = 0; i < t->na; i++)
		if (&t->a[i] != fa && same_function(&t->a[i], fa))
			return true;
	return false;
}

/* c's frame array holds only its activations' frames again (the frames
 * of replaced activations are left behind until then). */
static void compact(struct chain *c, struct chain *tmp)
{
	tmp->nf = 0;
	for (size_t i = 0; i < c->na; i++) {
		chain_room(tmp, 0, c->a[i].n);
		memcpy(tmp->f + tmp->nf, c->f + c->a[i].first, c->a[i].n * sizeof(*c->f));
		c->a[i].first = (uint32_t)tmp->nf;
		tmp->nf += c->a[i].n;
	}
	struct frame *f = c->f;
	size_t cap = c->cap_f;
	c->f = tmp->f, c->cap_f = tmp->cap_f, c->nf = tmp->nf;
	tmp->f = f, tmp->cap_f = cap, tmp->nf = 0;
}

/* Whether rs's stack ends where a thread's stack begins (its outermost
 * frame is a program's or a thread's entry point): then nothing outward
 * of it is live (what the dynamic loader ran before the program, say). */
static bool reaches_base(const struct resolved_sample *rs)
{
	const char *o = rs->frames[rs->nr_frames - 1].sym;
	if (!o)
		return false;
	static const char *const base[] = { "_start", "_dl_start_user", "start_thread", "clone3", "__clone3", "clone" };
	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		if (!strcmp(o, base[i]))
			return true;
	return false;
}

/* Sample rs against c (its frames' maps copied already when kept): the
 * stitched sample or rs; c updated. */
static const struct resolved_sample *stitch_in(struct stitch *st, struct chain *c,
					       const struct resolved_sample *rs, bool kept)
{
	/* the sample's activations: runs of frames with one (ip, cfa), as long
	 * as their CFAs are known and ascend; their frames go to c's array */
	struct chain *t = &st->tmp;
	t->na = 0;
	uint32_t nu = rs->nr_frames - rs->user_at;
	chain_room(t, nu, 0);
	chain_room(c, 0, nu);
	bool whole = true;
	uint64_t last_cfa = 0;
	for (uint32_t i = rs->user_at; i < rs->nr_frames;) {
		const struct frame *f = &rs->frames[i];
		uint32_t j = i + 1;
		while (j < rs->nr_frames && rs->frames[j].ip == f->ip && rs->frames[j].cfa == f->cfa)
			j++;
		if (!f->cfa || f->cfa <= last_cfa || t->na >= STITCH_MAX_ENTRIES) {
			whole = false;
			break;
		}
		const struct frame *fn = &rs->frames[j - 1]; /* the function the chain is inlined into */
		struct act *a = &t->a[t->na++];
		*a = (struct act){ .cfa = f->cfa, .ip = f->ip, .first = UINT32_MAX, .n = j - i };
		a->first = i; /* in rs->frames until stored */
		if (fn->sym && fn->dso_ident) {
			a->fn_dso = fn->dso_ident;
			a->fn_start = fn->sym_start;
		}
		if (t->na > 1) {
			t->a[t->na - 2].caller_cfa = a->cfa;
			t->a[t->na - 2].caller_ip = a->ip;
		}
		last_cfa = f->cfa;
		i = j;
	}
	if (!t->na)
		return rs;
	const struct resolved_sample *ret = rs;
	struct act *fa = &t->a[t->na - 1];
	if (rs->copy_end && whole) {
		/* cut at fa: the callers of the same function at its CFA, as far
		 * as each caller is still what was seen at its CFA */
		long j = find_cfa(c, fa->cfa);
		if (j >= 0 && same_function(&c->a[j], fa)) {
			/* the caller kept stays known; a recursive cut frame
			 * only gets none of it */
			fa->caller_cfa = c->a[j].caller_cfa;
			fa->caller_ip = c->a[j].caller_ip;
			uint32_t phys = rs->physical, nf = 0;
			size_t n0 = rs->nr_frames;
			const struct act *e = recursive(t, fa) ? NULL : &c->a[j];
			while (e && e->caller_cfa && phys < (uint32_t)st->max_frames) {
				long k = find_cfa(c, e->caller_cfa);
				if (k < 0 || c->a[k].ip != e->caller_ip)
					break;
				e = &c->a[k];
				size_t need = n0 + nf + e->n;
				if (need > st->cap_out && ARRAY_GROW(st->out, st->cap_out, need, (size_t)1 << 24))
					xalloc_die();
				memcpy(st->out + n0 + nf, c->f + e->first, e->n * sizeof(*st->out));
				nf += e->n;
				phys++;
			}
			if (nf) {
				memcpy(st->out, rs->frames, n0 * sizeof(*rs->frames));
				st->rs = *rs;
				st->rs.frames = st->out;
				st->rs.nr_frames = (uint32_t)(n0 + nf);
				st->rs.nr_stitched = nf;
				st->rs.physical = phys;
				/* callers known beyond max_frames: cut, as the resolver cuts */
				st->rs.truncated = rs->truncated || (e->caller_cfa && phys >= (uint32_t)st->max_frames);
				st->stitched++;
				ret = &st->rs;
			}
		}
	}
	/* what the thread's CFAs hold now: the sample's activations; nothing
	 * deeper than its innermost (those returned) or between its innermost
	 * and outermost (those are gone); outward of it, the rest as it was */
	uint32_t at = frames_put(st, c, rs->frames + rs->user_at, t->a[t->na - 1].first + t->a[t->na - 1].n - rs->user_at, kept);
	for (size_t i = 0; i < t->na; i++)
		t->a[i].first = at + t->a[i].first - rs->user_at;
	size_t out = 0, hi = c->na; /* the first activation outward of fa */
	while (out < hi) {
		size_t mid = out + (hi - out) / 2;
		if (c->a[mid].cfa <= fa->cfa)
			out = mid + 1;
		else
			hi = mid;
	}
	size_t tail = whole && !rs->copy_end && reaches_base(rs) ? 0 : c->na - out;
	if (t->na + tail > STITCH_MAX_ENTRIES)
		tail = STITCH_MAX_ENTRIES - t->na; /* the outermost go */
	chain_room(c, t->na, 0);
	memmove(c->a + t->na, c->a + out, tail * sizeof(*c->a));
	memcpy(c->a, t->a, t->na * sizeof(*t->a));
	c->na = t->na + tail;
	if (c->nf > 2 * c->live + 256 || c->nf > STITCH_MAX_FRAMES) {
		size_t live = 0;
		for (size_t i = 0; i < c->na; i++)
			live += c->a[i].n;
		c->live = live;
		if (c->nf > 2 * live + 256 || c->nf > STITCH_MAX_FRAMES)
			compact(c, t);
	}
	return ret;
}

/* Whether rs, not cut, makes c's chain its own: its user frames are
 * activations with known, ascending CFAs (as stitch_in takes them apart)
 * and reach the thread's base. */
static bool supersedes(const struct resolved_sample *rs)
{
	const struct frame *f = rs->frames + rs->user_at;
	uint32_t n = rs->nr_frames - rs->user_at;
	if (rs->copy_end || n > STITCH_MAX_ENTRIES || !reaches_base(rs))
		return false;
	uint64_t cfa = 0, ip = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (f[i].cfa == cfa && f[i].ip == ip)
			continue;
		if (f[i].cfa <= cfa)
			return false;
		cfa = f[i].cfa;
		ip = f[i].ip;
	}
	return true;
}

const struct resolved_sample *stitch_sample(struct stitch *st, const struct resolved_sample *rs)
{
	if (rs->user_at >= rs->nr_frames)
		return rs; /* no frames unwound from a stack copy: nothing learned */
	struct chain *c = hmap_get(&st->chains, rs->tid);
	if (c && c->pid != rs->pid) {
		drop(st, rs->tid); /* the id of an ended thread (its EXIT lost) */
		c = NULL;
	}
	if (!c) {
		c = xcalloc(1, sizeof(*c));
		c->pid = rs->pid;
		hmap_put(&st->chains, rs->tid, c);
	}
	if (supersedes(rs)) {
		/* the chain becomes rs's activations: kept as frames until
		 * needed (most threads' stacks fit their copies) */
		uint32_t n = rs->nr_frames - rs->user_at;
		c->na = c->nf = c->live = 0;
		if (n > c->cap_p && ARRAY_GROW(c->p, c->cap_p, n, STITCH_MAX_FRAMES))
			xalloc_die();
		frames_keep(st, c->p, rs->frames + rs->user_at, n);
		c->np = n;
		return rs;
	}
	if (c->np) {
		struct resolved_sample p = { .frames = c->p, .nr_frames = c->np };
		c->np = 0;
		stitch_in(st, c, &p, true);
	}
	return stitch_in(st, c, rs, false);
}
