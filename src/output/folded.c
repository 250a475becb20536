/*
 * folded.c: see folded.h. A preorder walk keeps the path from the root in
 * an array indexed by depth, so each line is written from that array without
 * walking parents. ';' inside a name would split a frame, so it is written
 * as ':' (and a newline as a space).
 */
#include "output/folded.h"
#include "util/buf.h"
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
			abort();
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
