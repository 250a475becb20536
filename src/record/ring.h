/*
 * ring.h: one kernel perf ring buffer (a metadata page plus 2^n data pages).
 *
 * Read sequence (the only place it lives): load data_head with acquire
 * semantics, copy the bytes [data_tail, data_head) out (two copies when they
 * wrap the end of the buffer), then store data_tail with release semantics
 * so the kernel may reuse the space. We are the only writer of data_tail.
 * The kernel only advances data_head at record boundaries, so a copy of the
 * whole range always holds whole records; when the destination is smaller,
 * ring_read walks the record headers and stops at the last whole record.
 *
 * Records are copied out (not written from the mapping) so that the kernel's
 * space is free again the moment the copy is done, whatever the disk does.
 */
#ifndef SCORCH_RECORD_RING_H
#define SCORCH_RECORD_RING_H

#include <stddef.h>
#include <stdint.h>

struct ring {
	int fd;
	int cpu;
	uint8_t *base;       /* metadata page */
	uint8_t *data;       /* data pages */
	size_t map_len;
	uint64_t size;       /* data bytes, power of two */
};

/* Map pages data pages (power of two) of fd. Returns 0 or -errno. */
int ring_map(struct ring *r, int fd, int cpu, unsigned pages);
void ring_unmap(struct ring *r);
/* Bytes waiting. */
uint64_t ring_pending(const struct ring *r);
/* Copy whole records, at most cap bytes, into dst and release them to the
 * kernel. Returns the bytes copied. */
size_t ring_read(struct ring *r, uint8_t *dst, size_t cap);

#endif
