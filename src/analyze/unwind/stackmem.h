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

/*
 * Ask for the first STACKMEM_PREFETCH bytes of a sample's stack copy
 * before the work that comes ahead of unwinding it (the kernel frames):
 * read in place (SCORCH_INPUT_WINDOWS=1), the copy is read where the page
 * cache holds the file, and the walk's first reads of it, each a miss to
 * memory, were most of apply_rule's time (`perf annotate` on the 1.2 GB
 * build recording). Measured that way (CPU time, `scorch perfparser`,
 * pinned, alternating rounds, prefetching at the unwinder's start): 512
 * bytes 0.952, 1 KiB 0.933, 2 KiB 0.925, 4 KiB 0.905-0.933, 16 KiB 0.960.
 * With the data pread (the default), no change measured (docs/input.md),
 * so the resolver asks only for records read in place
 * (resolver_set_stack_prefetch).
 */
#define STACKMEM_PREFETCH 4096

static inline void stackmem_prefetch(const uint8_t *data, uint64_t size)
{
	if (size > STACKMEM_PREFETCH)
		size = STACKMEM_PREFETCH;
	for (uint64_t o = 0; o < size; o += 64)
		__builtin_prefetch(data + o);
}

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
