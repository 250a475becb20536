/*
 * stackmem.h: reads from a sample's copy of the user stack (the DWARF
 * unwinder's memory), bounds-checked with one comparison.
 *
 * The copy holds size bytes of the stack from sp. An 8-byte read at addr is
 * in it when addr >= sp and addr - sp <= size - 8. stackmem_init works that
 * out once as lim, so a read compares only o = addr - sp with it: an addr
 * below sp wraps o to more than any lim (lim is at most 2^16 - 7 for a
 * perf copy, and never more than 2^64 - sp), and lim stops before sp + o
 * would wrap. A read that misses notes whether it fell just above the copy
 * (the copy was too short for the stack: the walk ended at its end).
 */
#ifndef SCORCH_STACKMEM_H
#define SCORCH_STACKMEM_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* How far above the copy a failed read still counts as "the copy was too
 * short" (8 MiB: the default stack size limit); farther is a bad address. */
#define ABOVE_COPY_MAX (8ull << 20)

struct stackmem {
	uint64_t sp;
	const uint8_t *data;
	uint64_t size;
	uint64_t lim;          /* a read at sp + o is in the copy when o < lim */
	bool above;            /* a read failed above the copy's end */
};

static inline struct stackmem stackmem_init(uint64_t sp, const uint8_t *data, uint64_t size)
{
	struct stackmem m = { .sp = sp, .data = data, .size = size };
	if (size >= 8) {
		uint64_t last = size - 8; /* the last offset a read may start at */
		if (last > UINT64_MAX - sp)
			last = UINT64_MAX - sp;
		m.lim = last + 1;
	}
	return m;
}

/* A read outside the copy: note whether it was above it (kept out of line
 * so that the hot path below stays small enough to be inlined). */
__attribute__((noinline, cold, unused)) static void stackmem_miss(struct stackmem *m, uint64_t addr)
{
	if (addr >= m->sp && addr - m->sp < m->size + ABOVE_COPY_MAX)
		m->above = true;
}

static inline bool mem_read(struct stackmem *m, uint64_t addr, uint64_t *out)
{
	uint64_t o = addr - m->sp;
	if (o < m->lim) {
		memcpy(out, m->data + o, 8);
		return true;
	}
	stackmem_miss(m, addr);
	return false;
}

#endif
