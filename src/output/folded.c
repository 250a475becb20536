/*
 * folded.c: see folded.h. A preorder walk keeps the path from the root in
 * an array indexed by depth, so each line is written from that array without
 * walking parents. ';' inside a name would split a frame, so it is written
 * as ':' (and a newline as a space).
 */
#include "output/folded.h"
#include "util/buf.h"
#include "util/xalloc.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

static void put_name(const struct pframe *f, bool annotate, FILE *out)
{
	for (const char *c = f->name; *c; c++) {
		char ch = *c == ';' ? ':' : (*c == '\n' || *c == '\r') ? ' ' : *c;
		putc(ch, out);
	}
	if (!annotate)
		return;
	if (f->inlined)
		fputs("_[i]", out);
	else if (f->kind == PF_KERNEL || f->kind == PF_GUEST_KERNEL || f->kind == PF_HV)
		fputs("_[k]", out);
}

int folded_write(const struct profile *p, const struct folded_config *c, FILE *out)
{
	uint32_t *order = profile_preorder(p, PROFILE_ORDER_NAME);
	uint32_t *path = NULL;
	size_t cap = 0;
	for (size_t i = 0; i < p->nr_nodes; i++) {
		const struct pnode *n = &p->nodes[order[i]];
		if (!n->depth)
			continue;
		if (ARRAY_GROW(path, cap, n->depth + 1, PROFILE_MAX_NODES))
			xalloc_die();
		path[n->depth] = n->frame;
		uint64_t v = c->usecs ? (n->self_period + 500) / 1000
				 : c->period ? n->self_period : n->self_samples;
		if (!v)
			continue;
		for (uint32_t d = 1; d <= n->depth; d++) {
			if (d > 1)
				putc(';', out);
			put_name(&p->frames[path[d]], c->annotate, out);
		}
		fprintf(out, " %" PRIu64 "\n", v);
	}
	free(path);
	free(order);
	return ferror(out) ? -EIO : 0;
}

/* The self weight of node (of p), 0 for PROFILE_NONE. */
static uint64_t self_of(const struct profile *p, uint32_t node, bool period)
{
	if (node == PROFILE_NONE)
		return 0;
	return period ? p->nodes[node].self_period : p->nodes[node].self_samples;
}

/* One pass over p's stacks in name order; other is the second profile and
 * map p's nodes into it. Writes stacks with a nonzero self count in p (and
 * all with one in other when p is the new side), counts in base, new order. */
static void diff_pass(const struct profile *p, const struct profile *other, const uint32_t *map,
		      bool p_is_new, const struct folded_config *c, FILE *out)
{
	uint32_t *order = profile_preorder(p, PROFILE_ORDER_NAME);
	uint32_t *path = NULL;
	size_t cap = 0;
	for (size_t i = 0; i < p->nr_nodes; i++) {
		uint32_t id = order[i];
		const struct pnode *n = &p->nodes[id];
		if (!n->depth)
			continue;
		if (ARRAY_GROW(path, cap, n->depth + 1, PROFILE_MAX_NODES))
			xalloc_die();
		path[n->depth] = n->frame;
		uint64_t mine = self_of(p, id, c->period);
		uint64_t theirs = self_of(other, map[id], c->period);
		/* the new side writes every stack it has a count for on either
		 * side; the base side only those the new side has no node for */
		if (p_is_new ? !mine && !theirs : !mine || map[id] != PROFILE_NONE)
			continue;
		for (uint32_t d = 1; d <= n->depth; d++) {
			if (d > 1)
				putc(';', out);
			put_name(&p->frames[path[d]], c->annotate, out);
		}
		fprintf(out, " %" PRIu64 " %" PRIu64 "\n", p_is_new ? theirs : mine, p_is_new ? mine : theirs);
	}
	free(path);
	free(order);
}

int folded_write_diff(const struct profile *base, const struct profile *new,
		      const uint32_t *new_to_base, const uint32_t *base_to_new,
		      const struct folded_config *c, FILE *out)
{
	diff_pass(new, base, new_to_base, true, c, out);
	diff_pass(base, new, base_to_new, false, c, out);
	return ferror(out) ? -EIO : 0;
}
