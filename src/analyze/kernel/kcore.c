/* kcore.c: see kcore.h. The headers are read with pread at their offsets;
 * a read that comes back short is the end of the file. */
#include "analyze/kernel/kcore.h"
#include "util/xalloc.h"
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KCORE_MAX_PHDRS 8192         /* program headers read (memory ranges of a large machine) */
#define KCORE_MAX_NOTES (64u << 10)  /* a PT_NOTE larger than this is not read */

struct kseg {
	uint64_t vaddr, size, off;
};

struct kcore {
	int fd;
	unsigned machine;
	struct kseg *segs;
	size_t nr_segs;
	uint8_t bid[20];
	size_t bid_size;
};

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The BUILD-ID= line of a VMCOREINFO text (n bytes, not terminated). */
static void vmcoreinfo_build_id(struct kcore *k, const uint8_t *p, size_t n)
{
	static const char key[] = "BUILD-ID=";
	for (size_t at = 0; at < n;) {
		const uint8_t *nl = memchr(p + at, '\n', n - at);
		size_t end = nl ? (size_t)(nl - p) : n;
		if (end - at > sizeof(key) - 1 && !memcmp(p + at, key, sizeof(key) - 1)) {
			size_t h = at + sizeof(key) - 1, m = 0;
			while (h + 1 < end && m < 20 && hexval(p[h]) >= 0 && hexval(p[h + 1]) >= 0) {
				k->bid[m++] = (uint8_t)(hexval(p[h]) << 4 | hexval(p[h + 1]));
				h += 2;
			}
			k->bid_size = m;
			return;
		}
		at = end + 1;
	}
}

/* The notes of a PT_NOTE segment: { u32 namesz, descsz, type; name, desc,
 * each padded to 4 bytes }. Stops at the first note that does not fit. */
static void read_notes(struct kcore *k, const uint8_t *p, size_t n)
{
	size_t at = 0;
	while (n - at >= 12) {
		uint32_t nsz, dsz;
		memcpy(&nsz, p + at, 4);
		memcpy(&dsz, p + at + 4, 4);
		at += 12;
		size_t nal = ((size_t)nsz + 3) & ~(size_t)3, dal = ((size_t)dsz + 3) & ~(size_t)3;
		if (nal > n - at || dsz > n - at - nal)
			return;
		const uint8_t *name = p + at, *desc = p + at + nal;
		if (nsz >= 10 && !memcmp(name, "VMCOREINFO", 10) && (nsz == 10 || !name[10]))
			vmcoreinfo_build_id(k, desc, dsz);
		if (dal > n - at - nal)
			return;
		at += nal + dal;
	}
}

static bool full_read(int fd, void *buf, size_t len, uint64_t off)
{
	if (off > (uint64_t)INT64_MAX - len)
		return false;
	size_t got = 0;
	while (got < len) {
		ssize_t r = pread(fd, (uint8_t *)buf + got, len - got, (off_t)(off + got));
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

struct kcore *kcore_open(const char *path, char *why, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, n, "%s: %s", path, strerror(errno));
		return NULL;
	}
	struct kcore *k = xcalloc(1, sizeof(*k));
	k->fd = fd;
	Elf64_Ehdr eh;
	Elf64_Phdr *ph = NULL;
	uint64_t at = 0;
	const char *bad = NULL;
	if (!full_read(fd, &eh, sizeof(eh), 0))
		bad = "the ELF header is cut short";
	else if (memcmp(eh.e_ident, ELFMAG, SELFMAG))
		bad = "no ELF magic";
	else if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
		bad = "not a 64-bit little-endian ELF file";
	else if (eh.e_type != ET_CORE)
		bad = "not an ELF core file";
	else if (eh.e_phentsize != sizeof(Elf64_Phdr))
		at = offsetof(Elf64_Ehdr, e_phentsize), bad = "program header size is not 56";
	else if (!eh.e_phnum || eh.e_phnum > KCORE_MAX_PHDRS)
		at = offsetof(Elf64_Ehdr, e_phnum), bad = "no program headers, or too many";
	if (!bad) {
		ph = xmalloc((size_t)eh.e_phnum * sizeof(*ph));
		if (!full_read(fd, ph, (size_t)eh.e_phnum * sizeof(*ph), eh.e_phoff))
			at = eh.e_phoff, bad = "the program headers are cut short";
	}
	for (size_t i = 0; !bad && i < eh.e_phnum; i++) {
		const Elf64_Phdr *p = &ph[i];
		uint64_t where = eh.e_phoff + i * sizeof(*p);
		if (p->p_type == PT_LOAD && p->p_filesz) {
			if (p->p_offset > UINT64_MAX - p->p_filesz || p->p_vaddr > UINT64_MAX - p->p_filesz) {
				at = where, bad = "a segment's end is past 2^64";
				break;
			}
			if (!k->segs)
				k->segs = xmalloc((size_t)eh.e_phnum * sizeof(*k->segs));
			k->segs[k->nr_segs++] = (struct kseg){ p->p_vaddr, p->p_filesz, p->p_offset };
		} else if (p->p_type == PT_NOTE && p->p_filesz && p->p_filesz <= KCORE_MAX_NOTES &&
			   !k->bid_size) {
			uint8_t *b = xmalloc((size_t)p->p_filesz);
			if (full_read(fd, b, (size_t)p->p_filesz, p->p_offset))
				read_notes(k, b, (size_t)p->p_filesz);
			free(b);
		}
	}
	free(ph);
	if (!bad && !k->nr_segs)
		bad = "no loadable segment";
	if (bad) {
		snprintf(why, n, "%s: offset %" PRIu64 ": %s", path, at, bad);
		kcore_free(k);
		return NULL;
	}
	k->machine = eh.e_machine;
	return k;
}

unsigned kcore_machine(const struct kcore *k)
{
	return k->machine;
}

size_t kcore_build_id(const struct kcore *k, uint8_t id[20])
{
	memcpy(id, k->bid, k->bid_size);
	return k->bid_size;
}

size_t kcore_read(const struct kcore *k, uint64_t vaddr, void *buf, size_t len)
{
	for (size_t i = 0; i < k->nr_segs; i++) {
		const struct kseg *g = &k->segs[i];
		if (vaddr < g->vaddr || vaddr - g->vaddr >= g->size)
			continue;
		uint64_t left = g->size - (vaddr - g->vaddr);
		size_t want = len < left ? len : (size_t)left;
		size_t got = 0;
		uint64_t off = g->off + (vaddr - g->vaddr);
		while (got < want && off + got <= (uint64_t)INT64_MAX) {
			ssize_t r = pread(k->fd, (uint8_t *)buf + got, want - got, (off_t)(off + got));
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		return got;
	}
	return 0;
}

void kcore_free(struct kcore *k)
{
	if (!k)
		return;
	if (k->fd >= 0)
		close(k->fd);
	free(k->segs);
	free(k);
}
