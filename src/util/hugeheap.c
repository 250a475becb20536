/*
 * hugeheap.c: analysis on a heap of transparent huge pages (see hugeheap.h).
 *
 * The analysis commands allocate tens of megabytes in small pieces: symbol
 * tables, the kernel's 120k symbols, CFI rows, DWARF indexes and the
 * per-address caches. Each 4 KB page costs a page fault on first touch,
 * and on a virtual machine a fault costs microseconds: reading the 120k
 * lines of a kallsyms file faulted 1,975 times and took 42 ms, 14-19 ms
 * (136 faults) on huge pages.
 *
 * glibc's own switch (the tunable glibc.malloc.hugetlb=1) is read only
 * when a program starts, and it advises the heap in the pieces it grows by,
 * which are seldom 2 MB-aligned: tried, it left most faults in place. So
 * this does it itself: the heap grows in steps of at least HEAP_PAD (brk
 * reserves address space; only touched pages become memory), allocations
 * up to MMAP_MAX come from it instead of from mmap, and every 2 MB-aligned
 * stretch of it gets madvise(MADV_HUGEPAGE): the stretch below the break
 * at start, and new ones when hugeheap_tick sees the break move (the
 * pipeline calls it as it reads). Touched memory is then 2 MB pages: one
 * fault each instead of 512.
 *
 * Worker threads share this heap (M_ARENA_MAX 1) instead of arenas of
 * their own, which nothing would advise.
 *
 * Not done when the kernel's THP mode is "never" (nor called with
 * SCORCH_HUGE_HEAP=0: src/cli/env.c). Under valgrind or a sanitizer the allocator is
 * theirs: the settings do nothing and the heap does not grow.
 */
#include "util/hugeheap.h"
#include "util/xalloc.h"

#include <fcntl.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_PAGE ((uintptr_t)2 << 20)
#define HEAP_PAD (32 << 20)
#define MMAP_MAX (32 << 20)

static bool on;
static uintptr_t floor_at, done; /* advised: [floor_at, done) */
static void *volatile head;       /* fills the heap up to its first 2 MB edge
				   * (volatile: an unread malloc may be removed) */

/* The kernel's THP mode allows madvise'd huge pages ("always" or
 * "madvise" selected). */
static bool thp_allowed(void)
{
	char b[128];
	int fd = open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, b, sizeof b - 1);
	close(fd);
	if (n <= 0)
		return false;
	b[n] = 0;
	return strstr(b, "[always]") || strstr(b, "[madvise]");
}

void hugeheap_tick(void)
{
	if (!on)
		return;
	uintptr_t brk_now = (uintptr_t)sbrk(0);
	if (brk_now == (uintptr_t)-1)
		return;
	uintptr_t top = brk_now & ~(HUGE_PAGE - 1);
	if (top < done) {
		/* the heap shrank: what grows again is a new mapping */
		done = top > floor_at ? top : floor_at;
		return;
	}
	if (top > done) {
		madvise((void *)done, top - done, MADV_HUGEPAGE);
		done = top;
	}
}

void hugeheap_init(void)
{
	if (on)
		return;
	if (!thp_allowed())
		return;
	if (sbrk(0) == (void *)-1)
		return;
	mallopt(M_MMAP_THRESHOLD, MMAP_MAX);
	mallopt(M_TOP_PAD, HEAP_PAD);
	/* the -j threads allocate from this heap too, not from arenas of
	 * their own that nothing advises (their per-thread caches keep most
	 * small allocations off the shared lock): a 93 MB build recording,
	 * perfparser -j 2 0.30 -> 0.22 s */
	mallopt(M_ARENA_MAX, 1);
	/* Where the heap's free top begins: just past a small block taken
	 * now, the second one (the first may set up glibc's per-thread cache,
	 * which goes first). This also grows the heap by the pad. */
	void *volatile first = malloc(64), *volatile probe = malloc(64);
	if (!first || !probe) {
		free(first);
		free(probe);
		return;
	}
	uintptr_t top = (uintptr_t)probe + 64 + 32;
	/* The stretch below the first 2 MB edge cannot be a huge page, and a
	 * 2 MB page that is touched before it is advised stays small pages:
	 * glibc writes the header of its free top where the top begins. So
	 * one block, never touched past its header, takes the heap up to
	 * about 4 KB below the edge, where the top header then goes; what
	 * is above the edge is first touched once advised. */
	floor_at = done = (top + 8192 + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	head = malloc(floor_at - top - 4096);
	free(first);
	free(probe);
	on = true;
	hugeheap_tick();
}

void *hugeheap_zeroed(size_t n)
{
	void *p = xmalloc(n);
	memset(p, 0, n);
	return p;
}
