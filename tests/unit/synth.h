/*
 * synth.h: a small synthetic recording for the resolver and pipeline
 * tests: the unit-test binary's own text mapping (so its symbols
 * resolve), three functions of it as a frame-pointer call chain, and a
 * pipe-format stream of those records (header, attr, COMM, MMAP2, samples).
 * Static helpers: each test file that includes it gets its own copy.
 */
#ifndef SCORCH_TEST_SYNTH_H
#define SCORCH_TEST_SYNTH_H

#include "test.h"
#include "perf/perf_format.h"
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* The functions the synthetic stacks are made of (tests/unit/synth_fns.c). */
unsigned long synth_leaf(unsigned long n);
unsigned long synth_mid(unsigned long n);
unsigned long synth_top(unsigned long n);

#define SYNTH_PID 4242u
#define SYNTH_SAMPLE_TYPE                                                       \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | \
	 PERF_SAMPLE_CALLCHAIN)

struct synth_map {
	uint64_t start, end, pgoff;
	char path[PATH_MAX];
};

/* The executable mapping of this binary that holds synth_leaf. */
static inline void synth_self_map(struct synth_map *m)
{
	FILE *f = fopen("/proc/self/maps", "r");
	CHECK(f);
	char line[PATH_MAX + 128];
	uint64_t at = (uint64_t)(uintptr_t)&synth_leaf;
	bool found = false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perm[8];
		int n = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perm, &off, &n) < 4 || !n)
			continue;
		if (at < s || at >= e)
			continue;
		m->start = s;
		m->end = e;
		m->pgoff = off;
		snprintf(m->path, sizeof(m->path), "%s", line + n);
		m->path[strcspn(m->path, "\n")] = 0;
		found = true;
	}
	fclose(f);
	CHECK(found && m->path[0] == '/');
}

/* The attr every synthetic sample uses. */
static inline struct perf_event_attr synth_attr(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000;
	a.sample_type = SYNTH_SAMPLE_TYPE;
	return a;
}

/* Sample record i (time 1000 + i) into buf: the call chain user marker,
 * then leaf (i % 3 == 0: mid as the leaf), mid, top, each one byte into
 * the function. Returns its size. */
static inline size_t synth_sample(uint8_t *buf, uint32_t i)
{
	uint64_t ips[3] = { (uint64_t)(uintptr_t)&synth_leaf + 1, (uint64_t)(uintptr_t)&synth_mid + 1,
			    (uint64_t)(uintptr_t)&synth_top + 1 };
	uint32_t skip = i % 3 == 0 ? 1 : 0;
	uint64_t nr = 1 + 3 - skip;
	uint64_t v[16];
	size_t k = 0;
	v[k++] = ips[skip];                                     /* IP */
	v[k++] = ((uint64_t)SYNTH_PID << 32) | SYNTH_PID;       /* TID */
	v[k++] = 1000 + i;                                      /* TIME */
	v[k++] = 1000;                                          /* PERIOD */
	v[k++] = nr;                                            /* CALLCHAIN */
	v[k++] = PERF_CONTEXT_USER;
	for (uint32_t j = skip; j < 3; j++)
		v[k++] = ips[j];
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
				       (uint16_t)(8 + k * 8) };
	memcpy(buf, &h, 8);
	memcpy(buf + 8, v, k * 8);
	return 8 + k * 8;
}

struct synth_buf {
	uint8_t *p;
	size_t n, cap;
};

static inline void synth_put(struct synth_buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2;
		b->p = realloc(b->p, b->cap);
		CHECK(b->p);
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static inline void synth_put_hdr(struct synth_buf *b, uint32_t type, uint16_t misc, size_t size)
{
	struct perf_event_header h = { type, misc, (uint16_t)size };
	synth_put(b, &h, 8);
}

/* A pipe-format stream: attr, COMM, MMAP2 of map m (path: m->path, or
 * path when not NULL), nr samples. */
static inline void synth_stream(struct synth_buf *b, const struct synth_map *m, const char *path,
				uint32_t nr)
{
	uint64_t magic = PERF_MAGIC2, sz = 16;
	synth_put(b, &magic, 8);
	synth_put(b, &sz, 8);
	struct perf_event_attr a = synth_attr();
	uint64_t id = 1;
	synth_put_hdr(b, PERF_RECORD_HEADER_ATTR, 0, 8 + sizeof(a) + 8);
	synth_put(b, &a, sizeof(a));
	synth_put(b, &id, 8);
	/* COMM: pid, tid, "synth\0" padded to 8 */
	uint32_t pt[2] = { SYNTH_PID, SYNTH_PID };
	char comm[8] = "synth";
	synth_put_hdr(b, PERF_RECORD_COMM, 0, 8 + 8 + 8);
	synth_put(b, pt, 8);
	synth_put(b, comm, 8);
	/* MMAP2: pid tid start len pgoff maj min ino ino_gen prot flags filename */
	const char *fn = path ? path : m->path;
	size_t fl = (strlen(fn) + 1 + 7) & ~(size_t)7;
	char *name = calloc(1, fl);
	CHECK(name);
	memcpy(name, fn, strlen(fn));
	uint64_t se[3] = { m->start, m->end - m->start, m->pgoff };
	uint32_t mm[2] = { 0, 0 };
	uint64_t ino[2] = { 0, 0 };
	uint32_t pf[2] = { PROT_READ | PROT_EXEC, MAP_PRIVATE };
	synth_put_hdr(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, 8 + 8 + 24 + 8 + 16 + 8 + fl);
	synth_put(b, pt, 8);
	synth_put(b, se, 24);
	synth_put(b, mm, 8);
	synth_put(b, ino, 16);
	synth_put(b, pf, 8);
	synth_put(b, name, fl);
	free(name);
	uint8_t rec[256];
	for (uint32_t i = 0; i < nr; i++)
		synth_put(b, rec, synth_sample(rec, i));
}

/* A memfd holding b's bytes, at offset 0. */
static inline int synth_memfd(const struct synth_buf *b)
{
	int fd = memfd_create("synth", 0);
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, b->p, b->n), (long long)b->n);
	lseek(fd, 0, SEEK_SET);
	return fd;
}

#endif
