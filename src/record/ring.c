/* ring.c: the ring read sequence; see ring.h. */
#include "record/ring.h"
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int ring_map(struct ring *r, int fd, int cpu, unsigned pages)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->cpu = cpu;
	r->map_len = pg * (pages + 1);
	void *p = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		r->base = NULL;
		return -errno;
	}
	r->base = p;
	r->data = r->base + pg;
	r->size = (uint64_t)pg * pages;
	return 0;
}

void ring_unmap(struct ring *r)
{
	if (r->base)
		munmap(r->base, r->map_len);
	r->base = r->data = NULL;
}

static inline uint64_t head_acquire(const struct ring *r)
{
	const struct perf_event_mmap_page *pc = (const void *)r->base;
	return __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
}

uint64_t ring_pending(const struct ring *r)
{
	const struct perf_event_mmap_page *pc = (const void *)r->base;
	return head_acquire(r) - pc->data_tail;
}

size_t ring_read(struct ring *r, uint8_t *dst, size_t cap)
{
	struct perf_event_mmap_page *pc = (void *)r->base;
	uint64_t head = head_acquire(r);
	uint64_t tail = pc->data_tail;
	uint64_t mask = r->size - 1;
	if (head - tail > r->size) /* cannot happen unless the kernel overwrote: resync */
		tail = head - r->size;
	uint64_t end = head;
	if (head - tail > cap) {
		/* whole records only: headers are 8-aligned, so never wrap */
		uint64_t pos = tail;
		while (pos < head) {
			const struct perf_event_header *h = (const void *)(r->data + (pos & mask));
			if (h->size < sizeof(*h) || pos + h->size - tail > cap)
				break;
			pos += h->size;
		}
		end = pos;
	}
	size_t n = (size_t)(end - tail);
	size_t start = (size_t)(tail & mask);
	size_t first = n < r->size - start ? n : (size_t)(r->size - start);
	memcpy(dst, r->data + start, first);
	if (n > first)
		memcpy(dst + first, r->data, n - first);
	__atomic_store_n(&pc->data_tail, end, __ATOMIC_RELEASE);
	return n;
}
