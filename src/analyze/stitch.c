/*
 * stitch.c: see stitch.h.
 *
 * A thread's chain is an array of activations by CFA, innermost (lowest)
 * first, and the frames they hold in one array of the thread; a new chain
 * is made in the stitcher's scratch arrays and swapped in. Maps are copied
 * once into a table of the stitcher (a frame's map pointer is the session's
 * or a snapshot's, neither of which outlives the sample). A thread's links
 * are an array with an index table by (CFA, function), their callers'
 * frames in one array; the call sites seen, one table of the stitcher's.
 * The window is a ring of kept records, each with its own buffers, reused.
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
/* A thread's links past this many (or with more frames) are not kept. */
#define STITCH_MAX_LINKS (1u << 18)
/* Records kept in the window past this many bytes release the oldest
 * cut sample early. */
#define STITCH_HOLD_BYTES ((size_t)256 << 20)

/* What the thread's samples showed at one CFA: the activation there (its
 * function, its frames) and its caller as seen with it. */
struct act {
	uint64_t cfa, ip;
	uint64_t fn_dso, fn_start;  /* the function; fn_dso 0: no symbol */
	uint64_t caller_cfa, caller_ip; /* caller_cfa 0: not known (or none) */
	uint32_t first, n;          /* its frames in the chain's frame array */
};

/* A link the thread's samples showed: the function at a CFA (the callee)
 * called from an address at a CFA further out (the caller), with the
 * caller's frames. Links are never dropped (they are what was seen, not
 * what is live); one seen with two different callers is ambiguous. */
struct link {
	uint64_t cfa, fn_dso, fn_start, ip; /* the callee (ip: without a symbol) */
	uint64_t caller_cfa, caller_ip;
	uint64_t caller_dso, caller_start; /* the caller's function */
	uint32_t first, n;          /* the caller's frames in the chain's lf */
	bool ambiguous;
};

struct chain {
	uint32_t pid;
	bool linking;               /* links kept: a quarter of its samples cut */
	uint32_t nsamples, ncut;    /* its samples, those cut */
	uint32_t held;              /* its pending samples in the window */
	struct link *l;             /* every link seen, by itab */
	size_t nl, cap_l;
	struct itab lt;
	struct frame *lf;           /* the links' callers' frames */
	size_t nlf, cap_lf;
	struct act *a;              /* by CFA, ascending */
	size_t na, cap_a;
	struct frame *f;            /* frames of a, and garbage (compacted) */
	size_t nf, cap_f;
	size_t live;                /* frames of a when last counted */
	/* pchain: the last sample made the chain its own (a whole stack
	 * reaching the thread's base): its user frames, outermost first,
	 * maps copied, taken apart into activations only when a later
	 * sample needs them. The np frames stay for the next such sample,
	 * which shares the outer ones most often. */
	struct frame *p;
	const struct map **psrc;    /* the maps p's frames had */
	uint32_t np;
	size_t cap_p;
	bool pchain;
	bool plinked;               /* p's links are in */
};

/* A function seen calling another (both with symbols), and from where:
 * one place, or several. */
struct pairsite {
	uint64_t fa, fb, ga, gb;    /* the callee, the caller */
	uint64_t ip;                /* the first call site seen */
	bool several;
};

/* A record kept in the window, with what it needs to be given back. */
struct held {
	uint8_t *rec;               /* its bytes (a sample's without its user stack) */
	size_t cap_rec;
	uint64_t file_off;
	struct pipeline_recstate state;
	uint64_t stack_size, stack_dyn_size;
	bool light;                 /* put without its bytes: type, misc, time */
	uint32_t type;
	uint16_t misc;
	uint64_t time;
	bool sample, ev_given;
	bool pending;               /* cut, unstitched: walked at its release */
	uint32_t tid;
	uint64_t seq;               /* samples put before it */
	uint64_t cfa, fa, fb;       /* pending: the cut frame's function at its CFA */
	struct resolved_sample rs;  /* a sample's; frames in f */
	struct frame *f;
	size_t cap_f;
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
	struct pairsite *ps;        /* by pt */
	size_t nps, cap_ps;
	struct itab pt;
	/* the window: records kept while a cut sample waits for the links of
	 * later samples (a ring, from qhead) */
	uint32_t window;
	bool any_order;             /* samples go in any order: only the waiting are kept */
	struct held *q;
	size_t qcap, qhead, qlen, qbytes;
	bool qpopped;               /* q[qhead] was given back: goes at the next call */
	bool ending;
	uint64_t nsamples;          /* samples put */
	/* what stitch_in leaves for stitch_put: rs is cut, unstitched, and its
	 * cut frame's function at its CFA is (pcfa, pfa, pfb) */
	bool pend;
	uint64_t pcfa, pfa, pfb;
	const char *base_name;      /* reaches_base's last */
	struct chain tmp;           /* the chain being made */
	struct frame *rev;          /* a chain's p innermost first */
	size_t cap_rev;
	struct frame *out;          /* a stitched sample's frames */
	size_t cap_out;
	struct resolved_sample rs;
	uint64_t stitched;
};

struct stitch *stitch_new(int max_frames, uint32_t window, bool any_order)
{
	struct stitch *st = xcalloc(1, sizeof(*st));
	st->max_frames = max_frames > 0 ? max_frames : 64;
	st->window = window;
	st->any_order = any_order;
	hmap_init(&st->chains);
	hmap_init(&st->maps);
	return st;
}

static void chain_free(void *v)
{
	struct chain *c = v;
	free(c->l);
	itab_release(&c->lt);
	free(c->lf);
	free(c->a);
	free(c->f);
	free(c->p);
	free(c->psrc);
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
	free(st->ps);
	itab_release(&st->pt);
	for (size_t i = 0; i < st->qcap; i++) {
		free(st->q[i].rec);
		free(st->q[i].f);
	}
	free(st->q);
	free(st->tmp.a);
	free(st->tmp.f);
	free(st->rev);
	free(st->out);
	free(st);
}

uint64_t stitch_count(const struct stitch *st)
{
	return st ? st->stitched : 0;
}

static void release_thread(struct stitch *st, uint32_t tid);

/* Thread tid ends (or its id is another thread's from now on): its cut
 * samples in the window are walked with what it showed, then its state
 * goes. */
static void drop(struct stitch *st, uint32_t tid)
{
	struct chain *c = hmap_get(&st->chains, tid);
	if (!c)
		return;
	if (c->held)
		release_thread(st, tid);
	hmap_del(&st->chains, tid);
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

/* Whether a frame of function sym is where a thread's stack begins (a
 * program's or a thread's entry point). */
static bool base_sym(const char *sym)
{
	if (!sym)
		return false;
	static const char *const base[] = { "_start", "_dl_start_user", "start_thread", "clone3", "__clone3", "clone" };
	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		if (!strcmp(sym, base[i]))
			return true;
	return false;
}

/* Whether rs's stack ends where a thread's stack begins: then nothing
 * outward of it is live (what the dynamic loader ran before the program,
 * say). The last base symbol's name is remembered by its pointer (names
 * are interned). */
static bool reaches_base(struct stitch *st, const struct resolved_sample *rs)
{
	const char *o = rs->frames[rs->nr_frames - 1].sym;
	if (o && o == st->base_name)
		return true;
	if (!base_sym(o))
		return false;
	st->base_name = o;
	return true;
}

/* The function of activation a as a link names it: its DSO and symbol
 * start, or without a symbol 0 and its address. */
static uint64_t fn_b(const struct act *a)
{
	return a->fn_dso ? a->fn_start : a->ip;
}

static uint64_t link_hash(uint64_t cfa, uint64_t fa, uint64_t fb)
{
	return hash_u64(cfa ^ fa * 0x9e3779b97f4a7c15ULL ^ fb * 0xc2b2ae3d27d4eb4fULL);
}

static uint64_t link_hash_at(const void *ctx, size_t i)
{
	const struct link *l = &((const struct chain *)ctx)->l[i];
	return link_hash(l->cfa, l->fn_dso, l->fn_start);
}

/* c's link from the function (fa, fb) at cfa, or NULL with *slot where a
 * new one goes (c->lt has room: link_room). */
static struct link *link_find(struct chain *c, uint64_t cfa, uint64_t fa, uint64_t fb, size_t *slot)
{
	*slot = SIZE_MAX;
	if (!c->lt.cap)
		return NULL;
	size_t j = itab_first(&c->lt, link_hash(cfa, fa, fb));
	for (; c->lt.slot[j] != ITAB_EMPTY; j = itab_next(&c->lt, j)) {
		struct link *l = &c->l[c->lt.slot[j]];
		if (l->cfa == cfa && l->fn_dso == fa && l->fn_start == fb)
			return l;
	}
	*slot = j;
	return NULL;
}

static uint64_t pair_hash(uint64_t fa, uint64_t fb, uint64_t ga, uint64_t gb)
{
	return hash_u64(fa ^ fb * 0x9e3779b97f4a7c15ULL ^ ga * 0xc2b2ae3d27d4eb4fULL ^ gb * 0x165667b19e3779f9ULL);
}

static uint64_t pair_hash_at(const void *ctx, size_t i)
{
	const struct pairsite *p = &((const struct stitch *)ctx)->ps[i];
	return pair_hash(p->fa, p->fb, p->ga, p->gb);
}

/* The call sites seen of callee (fa, fb) in caller (ga, gb), or NULL
 * with *slot where a new one goes (st->pt has room). */
static struct pairsite *pair_find(struct stitch *st, uint64_t fa, uint64_t fb, uint64_t ga, uint64_t gb, size_t *slot)
{
	*slot = SIZE_MAX;
	if (!st->pt.cap)
		return NULL;
	size_t j = itab_first(&st->pt, pair_hash(fa, fb, ga, gb));
	for (; st->pt.slot[j] != ITAB_EMPTY; j = itab_next(&st->pt, j)) {
		struct pairsite *p = &st->ps[st->pt.slot[j]];
		if (p->fa == fa && p->fb == fb && p->ga == ga && p->gb == gb)
			return p;
	}
	*slot = j;
	return NULL;
}

/* Activation a called from b: where b's function calls a's. */
static void pair_add(struct stitch *st, const struct act *a, const struct act *b)
{
	if (!a->fn_dso || !b->fn_dso)
		return; /* without a symbol a function is one address: one site */
	if (st->nps < STITCH_MAX_LINKS)
		itab_reserve(&st->pt, st->nps, 0, 256, pair_hash_at, st);
	size_t slot;
	struct pairsite *p = pair_find(st, a->fn_dso, a->fn_start, b->fn_dso, b->fn_start, &slot);
	if (p) {
		p->several |= p->ip != b->ip;
		return;
	}
	if (st->nps >= STITCH_MAX_LINKS || slot == SIZE_MAX)
		return;
	if (st->nps == st->cap_ps && ARRAY_GROW(st->ps, st->cap_ps, st->nps + 1, STITCH_MAX_LINKS))
		xalloc_die();
	st->ps[st->nps] = (struct pairsite){ .fa = a->fn_dso, .fb = a->fn_start, .ga = b->fn_dso,
					     .gb = b->fn_start, .ip = b->ip };
	st->pt.slot[slot] = (uint32_t)st->nps++;
}

/* Whether callee (fa, fb) was seen called from several places in caller
 * (ga, gb): then which of them a link's CFAs stand for is not known (every
 * call site of a function has the same frame below it). */
static bool pair_several(struct stitch *st, uint64_t fa, uint64_t fb, uint64_t ga, uint64_t gb)
{
	size_t slot;
	const struct pairsite *p = fa && ga ? pair_find(st, fa, fb, ga, gb, &slot) : NULL;
	return p && p->several;
}

/* The link of activation a's function at its CFA, called from b (whose
 * frames are bf, maps copied when kept): kept, or made ambiguous when seen
 * with another caller before. */
static void link_put(struct stitch *st, struct chain *c, const struct act *a, const struct act *b,
		     const struct frame *bf, bool kept)
{
	pair_add(st, a, b);
	if (c->nl < STITCH_MAX_LINKS)
		itab_reserve(&c->lt, c->nl, 0, 256, link_hash_at, c);
	size_t slot;
	struct link *l = link_find(c, a->cfa, a->fn_dso, fn_b(a), &slot);
	if (l) {
		if (l->caller_cfa != b->cfa || l->caller_ip != b->ip)
			l->ambiguous = true;
		return;
	}
	if (c->nl >= STITCH_MAX_LINKS || c->nlf + b->n > STITCH_MAX_FRAMES || slot == SIZE_MAX)
		return;
	if (c->nl == c->cap_l && ARRAY_GROW(c->l, c->cap_l, c->nl + 1, STITCH_MAX_LINKS))
		xalloc_die();
	if (c->nlf + b->n > c->cap_lf && ARRAY_GROW(c->lf, c->cap_lf, c->nlf + b->n, STITCH_MAX_FRAMES + 4096))
		xalloc_die();
	if (kept)
		memcpy(c->lf + c->nlf, bf, b->n * sizeof(*c->lf));
	else
		frames_keep(st, c->lf + c->nlf, bf, b->n);
	c->l[c->nl] = (struct link){ .cfa = a->cfa, .fn_dso = a->fn_dso, .fn_start = fn_b(a),
				     .caller_cfa = b->cfa, .caller_ip = b->ip,
				     .caller_dso = b->fn_dso, .caller_start = fn_b(b),
				     .first = (uint32_t)c->nlf, .n = b->n };
	c->lt.slot[slot] = (uint32_t)c->nl++;
	c->nlf += b->n;
}

/* The links of c's activations (with their callers kept), once a sample of
 * the thread is cut: from then on each sample adds the links it shows
 * that c has not (stitch_in). */
static void links_of_chain(struct stitch *st, struct chain *c)
{
	for (size_t i = 0; i < c->na; i++) {
		const struct act *e = &c->a[i];
		long k = e->caller_cfa ? find_cfa(c, e->caller_cfa) : -1;
		if (k >= 0 && c->a[k].ip == e->caller_ip)
			link_put(st, c, e, &c->a[k], c->f + c->a[k].first, true);
	}
}

/* Put n frames f after the stitched frames so far (st->out from n0 + *nf)
 * while fewer than max_frames are counted; *phys counts them all. */
static void put(struct stitch *st, size_t n0, uint32_t *nf, uint32_t *phys, const struct frame *f, uint32_t n)
{
	if (*phys < (uint32_t)st->max_frames) {
		size_t need = n0 + *nf + n;
		if (need > st->cap_out && ARRAY_GROW(st->out, st->cap_out, need, (size_t)1 << 24))
			xalloc_die();
		memcpy(st->out + n0 + *nf, f, n * sizeof(*f));
		*nf += n;
	}
	(*phys)++;
}

/* r, whose frames are now frames (its own and nf stitched after them,
 * phys counted in all), is stitched. */
static void stitched(struct stitch *st, struct resolved_sample *r, struct frame *frames, uint32_t nf, uint32_t phys)
{
	r->frames = frames;
	r->nr_frames += nf;
	r->nr_stitched = nf;
	/* callers beyond max_frames: cut, as the resolver cuts */
	r->truncated = r->truncated || phys > (uint32_t)st->max_frames;
	r->physical = phys > (uint32_t)st->max_frames ? (uint32_t)st->max_frames : phys;
	st->stitched++;
}

/* From the function (fa, fb) at cfa out to the thread's base, by links
 * seen with one caller only, from a caller seen calling the function from
 * one place only (put); whether the base was reached. */
static bool links_walk(struct stitch *st, struct chain *c, uint64_t cfa, uint64_t fa, uint64_t fb,
		       size_t n0, uint32_t *nf, uint32_t *phys)
{
	for (uint32_t steps = 0; steps < STITCH_MAX_ENTRIES; steps++) {
		size_t slot;
		const struct link *l = link_find(c, cfa, fa, fb, &slot);
		if (!l || l->ambiguous || l->caller_cfa <= cfa ||
		    pair_several(st, fa, fb, l->caller_dso, l->caller_start))
			return false;
		put(st, n0, nf, phys, c->lf + l->first, l->n);
		if (base_sym(c->lf[l->first + l->n - 1].sym))
			return true;
		cfa = l->caller_cfa;
		fa = l->caller_dso;
		fb = l->caller_start;
	}
	return false;
}

/* Sample rs against c (its frames' maps copied already when kept): the
 * stitched sample or rs; c updated. */
/* rs's activations into st->tmp: runs of frames with one (ip, cfa), as
 * long as their CFAs are known and ascend (each one's first: its place in
 * rs->frames), up to the first that starts at frame lim or after; whether
 * all of its user frames are in them. */
static bool acts_of(struct stitch *st, const struct resolved_sample *rs, uint32_t lim)
{
	struct chain *t = &st->tmp;
	t->na = 0;
	chain_room(t, rs->nr_frames - rs->user_at, 0);
	uint64_t last_cfa = 0;
	for (uint32_t i = rs->user_at; i < rs->nr_frames;) {
		const struct frame *f = &rs->frames[i];
		uint32_t j = i + 1;
		while (j < rs->nr_frames && rs->frames[j].ip == f->ip && rs->frames[j].cfa == f->cfa)
			j++;
		if (!f->cfa || f->cfa <= last_cfa || t->na >= STITCH_MAX_ENTRIES)
			return false;
		const struct frame *fn = &rs->frames[j - 1]; /* the function the chain is inlined into */
		struct act *a = &t->a[t->na++];
		*a = (struct act){ .cfa = f->cfa, .ip = f->ip, .first = i, .n = j - i };
		if (fn->sym && fn->dso_ident) {
			a->fn_dso = fn->dso_ident;
			a->fn_start = fn->sym_start;
		}
		if (t->na > 1) {
			t->a[t->na - 2].caller_cfa = a->cfa;
			t->a[t->na - 2].caller_ip = a->ip;
		}
		last_cfa = f->cfa;
		if (i >= lim)
			break;
		i = j;
	}
	return true;
}

static const struct resolved_sample *stitch_in(struct stitch *st, struct chain *c,
					       const struct resolved_sample *rs, bool kept)
{
	/* the sample's activations; their frames go to c's array */
	struct chain *t = &st->tmp;
	bool whole = acts_of(st, rs, rs->nr_frames);
	chain_room(c, 0, rs->nr_frames - rs->user_at);
	if (!t->na)
		return rs;
	const struct resolved_sample *ret = rs;
	struct act *fa = &t->a[t->na - 1];
	if (rs->copy_end && whole) {
		/* cut at fa: the callers of the same function at its CFA, as far
		 * as each caller is still what was seen at its CFA; from the
		 * last of those (or fa), the links seen with one caller only;
		 * stitched only when that reaches the thread's base */
		size_t n0 = rs->nr_frames;
		uint32_t nf = 0, phys = rs->physical;
		bool based = false;
		const struct act *w = fa; /* where the walk is */
		long j = find_cfa(c, fa->cfa);
		if (j >= 0 && same_function(&c->a[j], fa)) {
			/* the caller kept stays known; a recursive cut frame
			 * only gets none of it */
			fa->caller_cfa = c->a[j].caller_cfa;
			fa->caller_ip = c->a[j].caller_ip;
			const struct act *e = recursive(t, fa) ? NULL : &c->a[j];
			while (e && e->caller_cfa) {
				long k = find_cfa(c, e->caller_cfa);
				if (k < 0 || c->a[k].ip != e->caller_ip)
					break;
				e = w = &c->a[k];
				put(st, n0, &nf, &phys, c->f + e->first, e->n);
				if (base_sym(c->f[e->first + e->n - 1].sym)) {
					based = true;
					break;
				}
			}
		}
		if (!based && st->window && c->linking) {
			/* the links of later samples too: walked at its
			 * release (stitch_put) */
			st->pend = true;
			st->pcfa = fa->cfa;
			st->pfa = fa->fn_dso;
			st->pfb = fn_b(fa);
			nf = 0;
		} else if (!based) {
			based = links_walk(st, c, w->cfa, w->fn_dso, fn_b(w), n0, &nf, &phys);
		}
		if (based && nf) {
			memcpy(st->out, rs->frames, n0 * sizeof(*rs->frames));
			st->rs = *rs;
			stitched(st, &st->rs, st->out, nf, phys);
			ret = &st->rs;
		}
	}
	/* the links the sample shows that the chain does not have with the
	 * same caller (those are in) */
	if (c->linking) {
		size_t j = 0;
		for (size_t i = 0; i + 1 < t->na; i++) {
			const struct act *a = &t->a[i], *b = &t->a[i + 1];
			while (j < c->na && c->a[j].cfa < a->cfa)
				j++;
			if (j < c->na && c->a[j].cfa == a->cfa && c->a[j].ip == a->ip &&
			    c->a[j].caller_cfa == b->cfa && c->a[j].caller_ip == b->ip)
				continue;
			link_put(st, c, a, b, rs->frames + b->first, kept);
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
	size_t tail = whole && !rs->copy_end && reaches_base(st, rs) ? 0 : c->na - out;
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

/* c's p becomes the n frames f (innermost first), outermost first: the
 * outer frames it has already are kept (the same address and CFA in the
 * same map: the same frame); how many those are. */
static uint32_t keep_p(struct stitch *st, struct chain *c, const struct frame *f, uint32_t n)
{
	uint32_t same = 0;
	while (same < n && same < c->np && c->p[same].ip == f[n - 1 - same].ip &&
	       c->p[same].cfa == f[n - 1 - same].cfa && c->psrc[same] == f[n - 1 - same].map)
		same++;
	if (n > c->cap_p) {
		size_t cap = c->cap_p;
		if (ARRAY_GROW(c->p, cap, n, STITCH_MAX_FRAMES) || ARRAY_GROW(c->psrc, c->cap_p, n, STITCH_MAX_FRAMES))
			xalloc_die();
	}
	const struct map *src = NULL, *copy = NULL;
	for (uint32_t i = same; i < n; i++) {
		const struct frame *g = &f[n - 1 - i];
		c->p[i] = *g;
		c->psrc[i] = g->map;
		if (g->map) {
			if (g->map != src) {
				src = g->map;
				copy = map_keep(st, src);
			}
			c->p[i].map = copy;
		}
	}
	c->np = n;
	return same;
}

/* Whether rs, not cut, makes c's chain its own: its user frames are
 * activations with known, ascending CFAs (as stitch_in takes them apart)
 * and reach the thread's base. */
static bool supersedes(struct stitch *st, const struct resolved_sample *rs)
{
	const struct frame *f = rs->frames + rs->user_at;
	uint32_t n = rs->nr_frames - rs->user_at;
	if (rs->copy_end || n > STITCH_MAX_ENTRIES || !reaches_base(st, rs))
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

static const struct resolved_sample *stitch_one(struct stitch *st, const struct resolved_sample *rs)
{
	st->pend = false;
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

	c->nsamples += c->nsamples < UINT32_MAX;
	c->ncut += rs->copy_end;
	if (rs->copy_end && !c->linking && (uint64_t)c->ncut * 4 >= c->nsamples) {
		/* links from now on: those of what the chain holds first */
		c->linking = true;
		links_of_chain(st, c);
	}
	if (supersedes(st, rs)) {
		/* the chain becomes rs's activations: kept as frames until
		 * needed (most threads' stacks fit their copies) */
		uint32_t same = keep_p(st, c, rs->frames + rs->user_at, rs->nr_frames - rs->user_at);
		c->na = c->nf = c->live = 0;
		c->pchain = true;
		if (c->linking) {
			/* its links, but those of the outer frames it shares
			 * with the sample before (in already) */
			uint32_t lim = c->plinked ? rs->nr_frames - same : rs->nr_frames;
			acts_of(st, rs, lim);
			const struct chain *t = &st->tmp;
			for (size_t i = 0; i + 1 < t->na && t->a[i].first < lim; i++)
				link_put(st, c, &t->a[i], &t->a[i + 1], rs->frames + t->a[i + 1].first, false);
		}
		c->plinked = c->linking;
		return rs;
	}
	if (c->pchain) {
		if (c->np > st->cap_rev && ARRAY_GROW(st->rev, st->cap_rev, c->np, STITCH_MAX_FRAMES))
			xalloc_die();
		for (uint32_t i = 0; i < c->np; i++)
			st->rev[i] = c->p[c->np - 1 - i];
		struct resolved_sample p = { .frames = st->rev, .nr_frames = c->np };
		c->pchain = false;
		stitch_in(st, c, &p, true);
	}
	return stitch_in(st, c, rs, false);
}

/* ---- the window ---- */

/* Walk pending sample e's links (its thread's, as they are now); it is
 * pending no more. */
static void release(struct stitch *st, struct held *e)
{
	e->pending = false;
	struct chain *c = hmap_get(&st->chains, e->tid);
	if (c)
		c->held--;
	size_t n0 = e->rs.nr_frames;
	uint32_t nf = 0, phys = e->rs.physical;
	if (!c || !links_walk(st, c, e->cfa, e->fa, e->fb, n0, &nf, &phys) || !nf)
		return;
	if (n0 + nf > e->cap_f && ARRAY_GROW(e->f, e->cap_f, n0 + nf, (size_t)1 << 24))
		xalloc_die();
	memcpy(e->f + n0, st->out + n0, nf * sizeof(*e->f));
	st->qbytes += nf * sizeof(*e->f);
	stitched(st, &e->rs, e->f, nf, phys);
}

static void release_thread(struct stitch *st, uint32_t tid)
{
	for (size_t i = 0; i < st->qlen; i++) {
		struct held *e = &st->q[(st->qhead + i) % st->qcap];
		if (e->pending && e->tid == tid)
			release(st, e);
	}
}

/* Keep the record put (rs: its sample as it goes to the sink; pending:
 * it waits for later samples' links). */
static void hold(struct stitch *st, const struct stitch_item *it, const struct resolved_sample *rs, bool pending)
{
	if (st->qpopped) {
		st->qhead = (st->qhead + 1) % st->qcap;
		st->qlen--;
		st->qpopped = false;
	}
	if (st->qlen == st->qcap) {
		/* grow the ring, its entries in order from 0 */
		size_t ncap = st->qcap ? st->qcap * 2 : 64;
		struct held *nq = xcalloc(ncap, sizeof(*nq));
		for (size_t i = 0; i < st->qcap; i++)
			nq[i] = st->q[(st->qhead + i) % st->qcap];
		free(st->q);
		st->q = nq;
		st->qcap = ncap;
		st->qhead = 0;
	}
	struct held *e = &st->q[(st->qhead + st->qlen++) % st->qcap];
	const uint8_t *rec = it->rec;
	const struct perf_event *ev = it->ev;
	e->light = !rec;
	e->type = ev->type;
	e->misc = ev->misc;
	e->time = ev->s.time;
	e->file_off = it->file_off;
	uint16_t size = 0;
	if (rec)
		memcpy(&size, rec + 6, 2);
	/* a sample without its stack's bytes; their sizes kept (stats reads
	 * them) */
	size_t n = rec ? perf_sample_without_stack(rec, ev, NULL) : 0;
	size_t room = n ? n : size;
	if (room > e->cap_rec && ARRAY_GROW(e->rec, e->cap_rec, room, (size_t)1 << 16))
		xalloc_die();
	if (n)
		perf_sample_without_stack(rec, ev, e->rec);
	else if (rec)
		memcpy(e->rec, rec, size);
	e->stack_size = n ? ev->s.stack_user_size : 0;
	e->stack_dyn_size = n ? ev->s.stack_user_dyn_size : 0;
	size = (uint16_t)room;
	if (it->state)
		e->state = *it->state;
	e->ev_given = it->ev_given;
	e->sample = rs != NULL;
	e->pending = pending;
	e->seq = st->nsamples;
	st->qbytes += size;
	if (!rs)
		return;
	e->tid = rs->tid;
	e->rs = *rs;
	if (rs->nr_frames > e->cap_f && ARRAY_GROW(e->f, e->cap_f, rs->nr_frames, (size_t)1 << 24))
		xalloc_die();
	frames_keep(st, e->f, rs->frames, rs->nr_frames);
	e->rs.frames = e->f;
	e->rs.ev = NULL;
	e->rs.attr = NULL;
	st->qbytes += rs->nr_frames * sizeof(*e->f);
	if (pending) {
		e->cfa = st->pcfa;
		e->fa = st->pfa;
		e->fb = st->pfb;
		struct chain *c = hmap_get(&st->chains, rs->tid);
		if (c)
			c->held++;
	}
}

bool stitch_put(struct stitch *st, const struct stitch_item *it, const struct resolved_sample **out)
{
	*out = NULL;
	const struct resolved_sample *rs = it->rs;
	if (rs) {
		rs = stitch_one(st, rs);
		*out = rs;
		st->nsamples++;
	}
	bool pending = rs && st->pend;
	if (st->any_order && !pending)
		return true; /* only a sample that waits is kept */
	if (!pending && (!st->qlen || (st->qlen == 1 && st->qpopped)))
		return true;
	hold(st, it, rs, pending);
	return false;
}

bool stitch_next(struct stitch *st, struct stitch_rec *r)
{
	if (st->qpopped) {
		st->qhead = (st->qhead + 1) % st->qcap;
		st->qlen--;
		st->qpopped = false;
	}
	if (!st->qlen)
		return false;
	struct held *e = &st->q[st->qhead];
	if (e->pending) {
		if (!st->ending && st->nsamples - e->seq < st->window && st->qbytes <= STITCH_HOLD_BYTES)
			return false;
		release(st, e);
	}
	uint16_t size = 0;
	if (!e->light)
		memcpy(&size, e->rec + 6, 2);
	st->qbytes -= size + (e->sample ? e->rs.nr_frames * sizeof(*e->f) : 0);
	st->qpopped = true;
	*r = (struct stitch_rec){ .rec = e->light ? NULL : e->rec, .file_off = e->file_off, .state = &e->state,
				  .rs = e->sample ? &e->rs : NULL, .ev_given = e->ev_given,
				  .stack_size = e->stack_size, .stack_dyn_size = e->stack_dyn_size,
				  .type = e->type, .misc = e->misc, .time = e->time };
	return true;
}

void stitch_end(struct stitch *st)
{
	st->ending = true;
}

bool stitch_holding(const struct stitch *st)
{
	return !st->any_order && st->qlen > (st->qpopped ? 1u : 0u);
}
