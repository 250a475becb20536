/* jitdump.c: the jit-PID.dump reader; see jitdump.h for the format. */
#include "analyze/symbols/jitdump.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/xalloc.h"
#include <byteswap.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define JITDUMP_MAGIC 0x4A695444u
#define JITDUMP_MAGIC_SWAPPED 0x4454694Au
#define JITDUMP_HEADER_MIN 40
#define JITDUMP_FLAGS_ARCH_TIMESTAMP 1ULL
#define REC_HEAD 16
enum { JIT_CODE_LOAD, JIT_CODE_MOVE, JIT_CODE_DEBUG_INFO, JIT_CODE_CLOSE, JIT_CODE_UNWINDING_INFO };
#define MAX_FNS (1u << 24)
#define MAX_LINES (1u << 26)
#define FIND_WALK 256 /* functions looked at below an address, at most */

static uint32_t ld32(const struct jitdump *j, const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return j->swapped ? bswap_32(v) : v;
}

static uint64_t ld64(const struct jitdump *j, const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return j->swapped ? bswap_64(v) : v;
}

static void fault(struct jitdump *j, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fault(struct jitdump *j, uint64_t off, const char *fmt, ...)
{
	if (j->bad)
		return;
	j->bad = true;
	j->bad_off = off;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(j->bad_msg, sizeof j->bad_msg, fmt, ap);
	va_end(ap);
}

/* The NUL-terminated string at p[0..n): its length, or -1 when it is not. */
static ssize_t str_in(const uint8_t *p, size_t n)
{
	const uint8_t *z = memchr(p, 0, n);
	return z ? z - p : -1;
}

static struct jitdump_fn *add_fn(struct jitdump *j, uint64_t start, uint64_t size, uint64_t time,
				 const char *name, const uint8_t *code)
{
	if (ARRAY_GROW(j->fns, j->cap, j->nr + 1, MAX_FNS))
		return NULL;
	struct jitdump_fn *f = &j->fns[j->nr++];
	*f = (struct jitdump_fn){ .start = start, .size = size, .time = time, .name = name,
				  .code = code };
	if (size > j->max_size)
		j->max_size = size;
	return f;
}

/* A file name as a JIT writes it: text (no control characters). */
static bool text_name(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return n > 0;
}

/* The debug entries of a DEBUG_INFO record (p[0..n) after its head) into
 * lines[]; *first, *nr: where. false when its entries are damaged (they do
 * not fit the record, or a name is not text: V8 has been seen writing
 * freed bytes there); the record's size being sound, the reading goes on
 * without them. */
static bool read_lines(struct jitdump *j, const uint8_t *p, size_t n, uint64_t *code_addr,
		       size_t *first, size_t *nr)
{
	*first = j->nr_lines;
	*nr = 0;
	if (n < 16)
		return false;
	*code_addr = ld64(j, p);
	uint64_t count = ld64(j, p + 8);
	if (count > (n - 16) / 17) /* each entry takes at least 17 bytes */
		return false;
	size_t at = 16;
	const char *prev = NULL;
	for (uint64_t i = 0; i < count; i++) {
		if (n - at < 17)
			goto damaged;
		uint64_t addr = ld64(j, p + at);
		int32_t line = (int32_t)ld32(j, p + at + 8);
		ssize_t len = str_in(p + at + 16, n - at - 16);
		if (len < 0)
			goto damaged;
		const char *file = (const char *)p + at + 16;
		if (len == 1 && (uint8_t)file[0] == 0xff)
			file = prev;
		else if (!text_name(file, (size_t)len))
			goto damaged;
		at += 16 + (size_t)len + 1;
		if (!file || line <= 0)
			continue;
		prev = file;
		if (ARRAY_GROW(j->lines, j->cap_lines, j->nr_lines + 1, MAX_LINES))
			goto damaged;
		j->lines[j->nr_lines++] = (struct jitdump_line){ addr, file, (uint32_t)line };
		(*nr)++;
	}
	return true;
damaged:
	j->nr_lines = *first;
	*nr = 0;
	return false;
}

static int by_start(const void *a, const void *b)
{
	const struct jitdump_fn *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x < y ? -1 : x > y; /* qsort is not stable: keep the file's order */
}

static int by_addr(const void *a, const void *b)
{
	const struct jitdump_line *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x < y ? -1 : x > y;
}

int jitdump_parse(struct jitdump *j, const uint8_t *p, size_t n)
{
	memset(j, 0, sizeof *j);
	j->map = (uint8_t *)p;
	j->size = n;
	if (n < JITDUMP_HEADER_MIN) {
		fault(j, 0, "file too short for a jitdump header (%zu bytes)", n);
		return -EINVAL;
	}
	uint32_t magic;
	memcpy(&magic, p, 4);
	if (magic == JITDUMP_MAGIC_SWAPPED) {
		j->swapped = true;
	} else if (magic != JITDUMP_MAGIC) {
		fault(j, 0, "not a jitdump (magic 0x%08x)", magic);
		return -EINVAL;
	}
	uint32_t hsize = ld32(j, p + 8);
	if (hsize < JITDUMP_HEADER_MIN || hsize > n) {
		fault(j, 8, "bad header size %u", hsize);
		return -EINVAL;
	}
	j->pid = ld32(j, p + 20);
	j->arch_time = ld64(j, p + 32) & JITDUMP_FLAGS_ARCH_TIMESTAMP;

	struct hmap by_index; /* code_index -> the fn's position + 1 */
	hmap_init(&by_index);
	uint64_t pend_addr = 0;
	size_t pend_first = 0, pend_nr = 0;
	bool pending = false;
	size_t off = hsize;
	while (off < n) {
		if (n - off < REC_HEAD) {
			fault(j, off, "record header cut short (%zu bytes left)", n - off);
			break;
		}
		uint32_t id = ld32(j, p + off), rsize = ld32(j, p + off + 4);
		uint64_t time = ld64(j, p + off + 8);
		if (rsize < REC_HEAD || rsize > n - off) {
			fault(j, off, "record size %u %s", rsize,
			      rsize < REC_HEAD ? "is too small" : "runs past the end of the file");
			break;
		}
		const uint8_t *b = p + off + REC_HEAD;
		size_t bn = rsize - REC_HEAD;
		if (id == JIT_CODE_CLOSE)
			break;
		if (id == JIT_CODE_LOAD) {
			if (bn < 40) {
				fault(j, off, "code load record too short");
				break;
			}
			uint64_t addr = ld64(j, b + 16), size = ld64(j, b + 24), index = ld64(j, b + 32);
			ssize_t len = str_in(b + 40, bn - 40);
			if (len < 0) {
				fault(j, off, "code load: name not terminated");
				break;
			}
			if (size > bn - 40 - (size_t)len - 1 || addr + size < addr) {
				fault(j, off, "code load: %llu code bytes do not fit",
				      (unsigned long long)size);
				break;
			}
			struct jitdump_fn *f = add_fn(j, addr, size, time, (const char *)b + 40,
						      b + 40 + len + 1);
			if (!f)
				break;
			if (pending && pend_addr == addr) {
				f->line0 = pend_first;
				f->nr_lines = pend_nr;
			}
			pending = false;
			hmap_put(&by_index, index + 1, (void *)(uintptr_t)j->nr);
		} else if (id == JIT_CODE_MOVE) {
			if (bn < 48) {
				fault(j, off, "code move record too short");
				break;
			}
			uint64_t to = ld64(j, b + 24), size = ld64(j, b + 32), index = ld64(j, b + 40);
			if (to + size < to) {
				fault(j, off, "code move: bad range");
				break;
			}
			uintptr_t at = (uintptr_t)hmap_get(&by_index, index + 1);
			const struct jitdump_fn *old = at ? &j->fns[at - 1] : NULL;
			if (old) {
				struct jitdump_fn o = *old;
				struct jitdump_fn *f = add_fn(j, to, size, time, o.name,
							      size <= o.size ? o.code : NULL);
				if (!f)
					break;
				f->line0 = o.line0;
				f->nr_lines = 0; /* lines are addresses of the old place */
				hmap_put(&by_index, index + 1, (void *)(uintptr_t)j->nr);
			}
		} else if (id == JIT_CODE_DEBUG_INFO) {
			size_t first, nr;
			uint64_t addr = 0;
			pending = read_lines(j, b, bn, &addr, &first, &nr);
			if (!pending)
				j->damaged_lines++;
			pend_addr = addr;
			pend_first = first;
			pend_nr = nr;
		}
		/* UNWINDING_INFO and unknown records: skipped */
		off += rsize;
	}
	hmap_release(&by_index);
	for (size_t i = 0; i < j->nr; i++)
		if (j->fns[i].nr_lines)
			qsort(j->lines + j->fns[i].line0, j->fns[i].nr_lines, sizeof *j->lines, by_addr);
	if (j->nr)
		qsort(j->fns, j->nr, sizeof *j->fns, by_start);
	return 0;
}

bool jitdump_is_marker(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	if (strncmp(b, "jit-", 4))
		return false;
	size_t d = strspn(b + 4, "0123456789");
	return d && !strcmp(b + 4 + d, ".dump");
}

int jitdump_open(struct jitdump *j, const char *path)
{
	memset(j, 0, sizeof *j);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		close(fd);
		fault(j, 0, "not a regular file with data");
		return -EINVAL;
	}
	size_t n = (size_t)st.st_size;
	void *m = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -errno;
	int rc = jitdump_parse(j, m, n);
	j->mapped = true;
	return rc;
}

void jitdump_release(struct jitdump *j)
{
	if (j->mapped && j->map)
		munmap(j->map, j->size);
	free(j->fns);
	free(j->lines);
	memset(j, 0, sizeof *j);
}

const struct jitdump_fn *jitdump_find(const struct jitdump *j, uint64_t avma, uint64_t time)
{
	/* the last function starting at or below avma */
	size_t lo = 0, hi = j->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (j->fns[mid].start <= avma)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct jitdump_fn *best = NULL, *after = NULL;
	for (size_t i = lo, k = 0; i-- > 0 && k < FIND_WALK; k++) {
		const struct jitdump_fn *f = &j->fns[i];
		if (avma - f->start >= j->max_size)
			break; /* nothing further down reaches avma */
		if (avma - f->start >= f->size)
			continue;
		if (f->time <= time) {
			if (!best || f->time > best->time)
				best = f;
		} else if (!after || f->time < after->time) {
			after = f;
		}
	}
	return best ? best : after;
}

bool jitdump_line(const struct jitdump *j, const struct jitdump_fn *f, uint64_t avma,
		  const char **file, uint32_t *line)
{
	if (!f->nr_lines)
		return false;
	const struct jitdump_line *l = j->lines + f->line0;
	size_t lo = 0, hi = f->nr_lines;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l[mid].addr <= avma)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	*file = l[lo - 1].file;
	*line = l[lo - 1].line;
	return true;
}
