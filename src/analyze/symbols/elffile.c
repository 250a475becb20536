/*
 * elffile.c: libelf helpers (see elffile.h). Files are mapped
 * (ELF_C_READ_MMAP), so symbol names may point into them for as long as
 * the Elf handle lives.
 */
#include "analyze/symbols/elffile.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool elffile_build_id(Elf *elf, uint8_t *id, size_t *size)
{
	const void *p;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &p);
	if (n <= 0)
		return false;
	if (n > 20)
		n = 20;
	memcpy(id, p, (size_t)n);
	*size = (size_t)n;
	return true;
}

Elf *elffile_open(const char *path, int *fdp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		close(fd);
		return NULL;
	}
	*fdp = fd;
	return e;
}

bool elffile_id_matches(Elf *e, const uint8_t *id, size_t size)
{
	if (!size)
		return true;
	uint8_t got[20];
	size_t n;
	if (!elffile_build_id(e, got, &n))
		return true; /* no note: cannot tell, accept */
	return n >= size ? !memcmp(got, id, size) : !memcmp(got, id, n);
}

void elffile_hexid(char *out, const uint8_t *id, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = 0;
}

Elf_Scn *elffile_scn(Elf *e, Elf64_Word type, const char *name, GElf_Shdr *out)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		if (!gelf_getshdr(scn, out))
			continue;
		if (type && out->sh_type != type)
			continue;
		if (name) {
			const char *n = elf_strptr(e, shstrndx, out->sh_name);
			if (!n || strcmp(n, name))
				continue;
		}
		return scn;
	}
	return NULL;
}

bool elffile_exists(const char *p)
{
	struct stat st;
	return !stat(p, &st) && S_ISREG(st.st_mode);
}

bool elffile_section_bytes(Elf *e, const char *name, const uint8_t **p, size_t *size)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elffile_scn(e, SHT_PROGBITS, name, &sh);
	if (!scn)
		return true;
	if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return false;
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf)
		return false;
	*p = d->d_buf;
	*size = d->d_size;
	return true;
}
