/* buildid.c: DSO hit tracking and ELF build-id notes; see buildid.h. */
#include "record/buildid.h"
#include "util/buf.h"
#include "util/xalloc.h"
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUILDID_MAX_MAPS (1 << 20)

void buildid_init(struct buildid *b)
{
	memset(b, 0, sizeof(*b));
	hmap_init(&b->procs);
	hmap_init(&b->dso_index);
	b->last_pid = (uint32_t)-2;
}

void buildid_release(struct buildid *b)
{
	for (size_t i = 0; i < b->procs.cap; i++) {
		if (hmap_used(&b->procs, i)) {
			struct buildid_proc *p = b->procs.slot[i].val;
			free(p->maps);
			free(p);
		}
	}
	hmap_release(&b->procs);
	hmap_release(&b->dso_index);
	for (size_t i = 0; i < b->nr_dsos; i++)
		free(b->dsos[i].name);
	free(b->dsos);
	free(b->kernel.maps);
	free(b->ended);
	memset(b, 0, sizeof(*b));
}

static int dso_get(struct buildid *b, const char *name, bool kernel, uint32_t *idx)
{
	uint64_t h = hash_bytes(name, strlen(name));
	for (;; h++) { /* open chain on the rare hash collision */
		void *v = hmap_get(&b->dso_index, h);
		if (!v)
			break;
		size_t i = (size_t)(uintptr_t)v - 1;
		if (!strcmp(b->dsos[i].name, name)) {
			*idx = (uint32_t)i;
			return 0;
		}
	}
	int rc = ARRAY_GROW(b->dsos, b->cap_dsos, b->nr_dsos + 1, 1 << 20);
	if (rc)
		return rc;
	b->dsos[b->nr_dsos] = (struct buildid_dso){ xstrdup(name), kernel, false };
	hmap_put(&b->dso_index, h, (void *)(uintptr_t)(b->nr_dsos + 1));
	*idx = (uint32_t)b->nr_dsos++;
	return 0;
}

static struct buildid_proc *proc_get(struct buildid *b, uint32_t pid, bool create)
{
	if (pid == b->last_pid && b->last_proc)
		return b->last_proc;
	struct buildid_proc *p = hmap_get(&b->procs, pid);
	if (!p && create) {
		p = xcalloc(1, sizeof(*p));
		hmap_put(&b->procs, pid, p);
	}
	if (p) {
		b->last_pid = pid;
		b->last_proc = p;
		b->last_map = 0;
	}
	return p;
}

/* p gets maps again (a new process with an ended one's pid): it stays. */
static void revive(struct buildid_proc *p)
{
	p->ended = 0;
}

void buildid_exit(struct buildid *b, uint32_t pid, uint32_t tid)
{
	struct buildid_proc *p = pid == tid ? hmap_get(&b->procs, pid) : NULL;
	if (!p || p->ended)
		return;
	if (ARRAY_GROW(b->ended, b->cap_ended, b->nr_ended + 1, 1u << 24))
		return;
	p->ended = b->pass + 1;
	b->ended[b->nr_ended++] = pid;
}

void buildid_pass_end(struct buildid *b)
{
	b->pass++;
	size_t w = 0;
	for (size_t i = 0; i < b->nr_ended; i++) {
		uint32_t pid = b->ended[i];
		struct buildid_proc *p = hmap_get(&b->procs, pid);
		if (!p || !p->ended)
			continue; /* revived */
		if (p->ended + 2 > b->pass) {
			b->ended[w++] = pid;
			continue;
		}
		hmap_del(&b->procs, pid);
		if (b->last_proc == p) {
			b->last_proc = NULL;
			b->last_pid = (uint32_t)-2;
		}
		free(p->maps);
		free(p);
		b->forgotten++;
	}
	b->nr_ended = w;
}

static void proc_add(struct buildid_proc *p, uint64_t start, uint64_t end, uint32_t dso)
{
	if (ARRAY_GROW(p->maps, p->cap, p->nr + 1, BUILDID_MAX_MAPS))
		return;
	p->maps[p->nr++] = (struct buildid_map){ start, end, dso };
}

void buildid_mmap(struct buildid *b, uint32_t pid, uint64_t start, uint64_t len, const char *name,
		  bool kernel)
{
	if (!kernel && (name[0] == '[' || !strncmp(name, "//", 2) || name[0] != '/'))
		return; /* [vdso], [heap], //anon, memfd: no file to read */
	uint32_t dso;
	if (dso_get(b, name, kernel, &dso))
		return;
	if (kernel) {
		proc_add(&b->kernel, start, start + len, dso);
		return;
	}
	struct buildid_proc *p = proc_get(b, pid, true);
	revive(p);
	proc_add(p, start, start + len, dso);
}

void buildid_fork(struct buildid *b, uint32_t pid, uint32_t ppid)
{
	if (pid == ppid)
		return;
	struct buildid_proc *parent = hmap_get(&b->procs, ppid);
	struct buildid_proc *child = proc_get(b, pid, true);
	revive(child);
	child->nr = 0;
	if (parent && parent != child && parent->nr) {
		if (ARRAY_GROW(child->maps, child->cap, parent->nr, BUILDID_MAX_MAPS))
			return;
		memcpy(child->maps, parent->maps, parent->nr * sizeof(*parent->maps));
		child->nr = parent->nr;
	}
}

void buildid_exec(struct buildid *b, uint32_t pid)
{
	struct buildid_proc *p = hmap_get(&b->procs, pid);
	if (p) {
		revive(p);
		p->nr = 0;
	}
	b->last_map = 0;
}

static bool find_hit(struct buildid *b, struct buildid_proc *p, uint64_t ip, bool cache)
{
	if (cache && b->last_map < p->nr) {
		struct buildid_map *m = &p->maps[b->last_map];
		if (ip >= m->start && ip < m->end) {
			b->dsos[m->dso].hit = true;
			return true;
		}
	}
	for (size_t i = p->nr; i-- > 0;) {
		struct buildid_map *m = &p->maps[i];
		if (ip >= m->start && ip < m->end) {
			b->dsos[m->dso].hit = true;
			if (cache)
				b->last_map = i;
			return true;
		}
	}
	return false;
}

void buildid_hit(struct buildid *b, uint32_t pid, uint64_t ip, bool kernel)
{
	if (kernel) {
		find_hit(b, &b->kernel, ip, false);
		return;
	}
	struct buildid_proc *p = proc_get(b, pid, false);
	if (p)
		find_hit(b, p, ip, true);
}

void buildid_reset_hits(struct buildid *b)
{
	for (size_t i = 0; i < b->nr_dsos; i++)
		b->dsos[i].hit = false;
}

int buildid_parse_notes(const uint8_t *p, size_t n, uint8_t id[20])
{
	size_t off = 0;
	while (off + 12 <= n) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		size_t name_off = off + 12;
		size_t desc_off = name_off + ((namesz + 3) & ~3u);
		size_t next = desc_off + ((descsz + 3) & ~3u);
		if (desc_off > n || next > n || next <= off)
			return -EINVAL;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(p + name_off, "GNU", 4) &&
		    descsz > 0) {
			size_t sz = descsz > 20 ? 20 : descsz;
			memcpy(id, p + desc_off, sz);
			return (int)sz;
		}
		off = next;
	}
	return -ENOENT;
}

static ssize_t pread_full(int fd, void *p, size_t n, off_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, (uint8_t *)p + got, n - got, off + (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

int buildid_read_elf(const char *path, uint8_t id[20])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	Elf64_Ehdr eh;
	int rc = -ENOENT;
	if (pread_full(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phnum > 4096) {
		close(fd);
		return -EINVAL;
	}
	for (unsigned i = 0; i < eh.e_phnum && rc < 0; i++) {
		Elf64_Phdr ph;
		if (pread_full(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) != sizeof(ph))
			break;
		if (ph.p_type != PT_NOTE || ph.p_filesz == 0 || ph.p_filesz > (1 << 20))
			continue;
		uint8_t *notes = xmalloc(ph.p_filesz);
		if (pread_full(fd, notes, ph.p_filesz, (off_t)ph.p_offset) == (ssize_t)ph.p_filesz)
			rc = buildid_parse_notes(notes, ph.p_filesz, id);
		free(notes);
	}
	close(fd);
	return rc;
}

static int read_notes_file(const char *path, uint8_t id[20])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	uint8_t data[8192];
	ssize_t n = pread_full(fd, data, sizeof(data), 0);
	close(fd);
	if (n <= 0)
		return -EIO;
	return buildid_parse_notes(data, (size_t)n, id);
}

int buildid_kernel(uint8_t id[20])
{
	return read_notes_file("/sys/kernel/notes", id);
}

int buildid_collect(struct buildid *b, struct perf_build_id **out, size_t *n)
{
	struct perf_build_id *l = NULL;
	size_t nr = 0, cap = 0;
	for (size_t i = 0; i < b->nr_dsos; i++) {
		struct buildid_dso *d = &b->dsos[i];
		if (!d->hit)
			continue;
		uint8_t id[20] = { 0 };
		int sz;
		const char *fname = d->name;
		if (d->kernel && !strncmp(d->name, "[kernel.kallsyms]", 17)) {
			sz = read_notes_file("/sys/kernel/notes", id);
			fname = "[kernel.kallsyms]";
		} else if (d->kernel && d->name[0] == '[') {
			char path[512], mod[256];
			snprintf(mod, sizeof(mod), "%.*s", (int)strcspn(d->name + 1, "]"), d->name + 1);
			snprintf(path, sizeof(path), "/sys/module/%s/notes/.note.gnu.build-id", mod);
			sz = read_notes_file(path, id);
		} else {
			sz = buildid_read_elf(d->name, id);
		}
		if (sz <= 0)
			continue;
		if (ARRAY_GROW(l, cap, nr + 1, 1 << 20))
			break;
		l[nr] = (struct perf_build_id){ .pid = -1,
						.misc = d->kernel ? PERF_RECORD_MISC_KERNEL
								  : PERF_RECORD_MISC_USER,
						.size = (uint8_t)sz,
						.filename = xstrdup(fname) };
		memcpy(l[nr].id, id, 20);
		nr++;
	}
	*out = l;
	*n = nr;
	return 0;
}

void buildid_free_list(struct perf_build_id *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(l[i].filename);
	free(l);
}
