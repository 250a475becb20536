/*
 * dwcache.c: decompressed copies of compressed debug files, by build id.
 *
 * Why: Debian's debug files (libc6-dbg, ld.so) carry zlib-compressed
 * .debug_* sections, and libdw inflates every one of them when it opens the
 * file (dwarf_begin_elf), even for a recording that needs two inline chains
 * from it. For a small recording that inflate (and its adler32) was more
 * than half of all the work. So after the first open, the inflated file is
 * written once to $XDG_CACHE_HOME/scorch/dwarf-v1/<build id>.debug (else
 * ~/.cache/...) and later runs hand libdw that file, mmap'd, instead.
 *
 * Only libdw sees the copy (inlines.c); symbols, sections and addresses
 * still come from the debug file itself. The copy is a plain ELF: the
 * original's ELF header (no program headers), every section's bytes as
 * libelf gives them after the inflate (SHF_COMPRESSED cleared), then the
 * section headers. It is used only when it validates: ELF64 of the same
 * byte order and machine, the same GNU build id as the debug file, no
 * compressed section, every section inside the file. Anything else (a
 * truncated or foreign file, another version's layout, which would live
 * under another dwarf-vN directory) is ignored and replaced by the next
 * store. Writers use a unique temporary name and rename(2), so readers see
 * whole files only and concurrent writers are harmless. Files larger than
 * DWCACHE_MAX are not cached. SCORCH_NO_CACHE=1 turns the cache off;
 * SCORCH_CACHE_MAX bounds it with the other caches (util/cachedir.h).
 */
#include "analyze/cache/dwcache.h"
#include "util/cachedir.h"
#include "util/sys.h"
#include "analyze/symbols/elffile.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DWCACHE_DIR "dwarf-v1"
#define DWCACHE_MAX (512ULL << 20)

static bool scn_name_is(Elf *e, size_t shstrndx, const GElf_Shdr *sh, const char *prefix)
{
	const char *n = elf_strptr(e, shstrndx, sh->sh_name);
	return n && !strncmp(n, prefix, strlen(prefix));
}

bool dwcache_wanted(Elf *e)
{
	if (cachedir_disabled())
		return false;
	GElf_Ehdr eh;
	size_t shstrndx;
	if (!gelf_getehdr(e, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    elf_getshdrstrndx(e, &shstrndx))
		return false;
	for (Elf_Scn *s = elf_nextscn(e, NULL); s; s = elf_nextscn(e, s)) {
		GElf_Shdr sh;
		if (gelf_getshdr(s, &sh) && (sh.sh_flags & SHF_COMPRESSED) &&
		    scn_name_is(e, shstrndx, &sh, ".debug_"))
			return true;
	}
	return false;
}

/* The cache path of e (by its own build id); false when e has none. */
static bool cache_path(Elf *e, char *out, size_t cap, char *dir, size_t dcap)
{
	uint8_t id[20];
	size_t n = 0;
	if (!elffile_build_id(e, id, &n) || n < 4)
		return false;
	char hex[41];
	elffile_hexid(hex, id, n);
	if (!cachedir_path(DWCACHE_DIR, dir, dcap))
		return false;
	int k = snprintf(out, cap, "%s/%s.debug", dir, hex);
	return k > 0 && (size_t)k < cap;
}

Elf *dwcache_open(Elf *orig, int *fdp)
{
	char p[PATH_MAX], dir[PATH_MAX];
	if (!cache_path(orig, p, sizeof p, dir, sizeof dir))
		return NULL;
	int fd;
	Elf *e = elffile_open(p, &fd);
	if (!e)
		return NULL;
	struct stat st;
	GElf_Ehdr eh, oh;
	uint8_t a[20], b[20];
	size_t na = 0, nb = 0;
	bool ok = !fstat(fd, &st) && gelf_getehdr(e, &eh) && gelf_getehdr(orig, &oh) &&
		  eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_ident[EI_DATA] == oh.e_ident[EI_DATA] &&
		  eh.e_machine == oh.e_machine && eh.e_type == oh.e_type &&
		  elffile_build_id(e, a, &na) && elffile_build_id(orig, b, &nb) && na == nb &&
		  !memcmp(a, b, na);
	for (Elf_Scn *s = ok ? elf_nextscn(e, NULL) : NULL; s && ok; s = elf_nextscn(e, s)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh) || (sh.sh_flags & SHF_COMPRESSED))
			ok = false;
		else if (sh.sh_type != SHT_NOBITS &&
			 (sh.sh_offset > (uint64_t)st.st_size ||
			  sh.sh_size > (uint64_t)st.st_size - sh.sh_offset))
			ok = false;
	}
	if (!ok) {
		elf_end(e);
		close(fd);
		return NULL;
	}
	cachedir_used(fd);
	*fdp = fd;
	return e;
}

void dwcache_store(Elf *e)
{
	char p[PATH_MAX], dir[PATH_MAX], tmp[PATH_MAX + 64];
	if (!cache_path(e, p, sizeof p, dir, sizeof dir))
		return;
	Elf64_Ehdr *eh = elf64_getehdr(e);
	size_t shnum;
	if (!eh || elf_getshdrnum(e, &shnum) || shnum < 2 || shnum >= SHN_LORESERVE ||
	    eh->e_shstrndx >= SHN_LORESERVE)
		return;
	Elf64_Shdr *sh = xcalloc(shnum, sizeof *sh);
	Elf_Data **data = xcalloc(shnum, sizeof *data);
	/* layout: header, sections in index order (each at its alignment),
	 * then the section header table */
	uint64_t off = sizeof(Elf64_Ehdr);
	for (size_t i = 1; i < shnum; i++) {
		Elf_Scn *s = elf_getscn(e, i);
		Elf64_Shdr *h = s ? elf64_getshdr(s) : NULL;
		if (!h || (h->sh_flags & SHF_COMPRESSED))
			goto out;
		sh[i] = *h;
		if (h->sh_type == SHT_NOBITS) {
			sh[i].sh_offset = off;
			continue;
		}
		Elf_Data *d = elf_rawdata(s, NULL);
		if (!d || (d->d_size && !d->d_buf) || d->d_size != h->sh_size ||
		    elf_rawdata(s, d) != NULL)
			goto out;
		data[i] = d;
		uint64_t al = h->sh_addralign > 1 ? h->sh_addralign : 1;
		if (al > 4096 || (al & (al - 1)))
			goto out;
		off = (off + al - 1) & ~(al - 1);
		sh[i].sh_offset = off;
		off += h->sh_size;
		if (off > DWCACHE_MAX)
			goto out;
	}
	off = (off + 7) & ~7ULL;
	Elf64_Ehdr nh = *eh;
	nh.e_phoff = 0;
	nh.e_phnum = 0;
	nh.e_phentsize = 0;
	nh.e_shoff = off;
	nh.e_shnum = (Elf64_Half)shnum;
	nh.e_shentsize = sizeof(Elf64_Shdr);
	nh.e_ehsize = sizeof(Elf64_Ehdr);
	int fd = cachedir_create(dir, p, tmp, sizeof tmp);
	if (fd < 0)
		goto out;
	bool ok = !sys_write_all(fd, &nh, sizeof nh, false);
	uint64_t pos = sizeof nh;
	static const char zero[4096];
	for (size_t i = 1; ok && i < shnum; i++) {
		if (!data[i])
			continue;
		while (ok && pos < sh[i].sh_offset) {
			size_t z = sh[i].sh_offset - pos > sizeof zero ? sizeof zero : sh[i].sh_offset - pos;
			ok = !sys_write_all(fd, zero, z, false);
			pos += z;
		}
		ok = ok && !sys_write_all(fd, data[i]->d_buf, data[i]->d_size, false);
		pos += data[i]->d_size;
	}
	while (ok && pos < off) {
		ok = !sys_write_all(fd, zero, off - pos, false);
		pos = off;
	}
	ok = ok && !sys_write_all(fd, sh, shnum * sizeof *sh, false);
	cachedir_commit(fd, ok, tmp, p);
out:
	free(sh);
	free(data);
}
