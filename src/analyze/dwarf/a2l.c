/*
 * a2l.c: addr2line's first-lookup naming, replayed in sample order (see
 * a2l.h). Two maps: the name each (DSO, address) got, and the name each
 * (DSO, DIE) gives to addresses looked up after its first one. "No name"
 * is stored as a sentinel string, since the maps cannot hold NULL.
 */
#include "analyze/dwarf/a2l.h"
#include "util/hash.h"
#include "util/xalloc.h"

#include <stdlib.h>

const char *a2l_decide(struct a2l_state *st, uint64_t dso_id, uint64_t rel,
		       const struct inline_entry *e)
{
	if (!e->a2l)
		return e->name;
	if (!st->addr) {
		st->addr = xcalloc(1, sizeof(struct hmap));
		st->die = xcalloc(1, sizeof(struct hmap));
		hmap_init(st->addr);
		hmap_init(st->die);
	}
	static const char none[] = "";
	uint64_t ka = hash_u64(dso_id ^ hash_u64(rel));
	const char *v = hmap_get(st->addr, ka);
	if (v)
		return v == none ? NULL : v;
	uint64_t kd = hash_u64(dso_id ^ hash_u64(e->die ^ 0xd1e));
	const char *name = hmap_get(st->die, kd);
	if (name) {
		if (name == none)
			name = NULL;
	} else {
		/* first lookup of the DIE: the ELF name when one covers rel */
		name = e->alt_name ? e->alt_name : e->name;
		const char *keep = e->keep_alt && e->alt_name ? e->alt_name : e->name;
		hmap_put(st->die, kd, (void *)(keep ? keep : none));
	}
	hmap_put(st->addr, ka, (void *)(name ? name : none));
	return name;
}

void a2l_state_release(struct a2l_state *st)
{
	if (st->addr) {
		hmap_release(st->addr);
		free(st->addr);
	}
	if (st->die) {
		hmap_release(st->die);
		free(st->die);
	}
	st->addr = st->die = NULL;
}
