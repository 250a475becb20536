/*
 * elffile.h: small helpers over libelf shared by the symbol cache, the
 * debug-file search and the DWARF code: open a file as ELF, its GNU build
 * id, a section by type and/or name.
 */
#ifndef SCORCH_ELFFILE_H
#define SCORCH_ELFFILE_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Open path read-only as an ELF file (mmap'd); NULL when it is not one.
 * *fdp gets the descriptor, to close after elf_end. */
Elf *elffile_open(const char *path, int *fdp);
/* The GNU build id note (at most 20 bytes); false when there is none. */
bool elffile_build_id(Elf *e, uint8_t *id, size_t *size);
/* e has the build id id[0..size) (a prefix match either way), or has no
 * build id note at all (cannot tell: accepted). True when size is 0. */
bool elffile_id_matches(Elf *e, const uint8_t *id, size_t size);
/* The first section of this type (0: any) and name (NULL: any). */
Elf_Scn *elffile_scn(Elf *e, Elf64_Word type, const char *name, GElf_Shdr *out);
/* The bytes of PROGBITS section name (a compressed one is decompressed in
 * place, as libdw does); true also when there is none (*p stays NULL),
 * false when it is there and cannot be read. */
bool elffile_section_bytes(Elf *e, const char *name, const uint8_t **p, size_t *size);
/* Lower-case hex of id[0..n) into out (2n + 1 bytes). */
void elffile_hexid(char *out, const uint8_t *id, size_t n);
/* path is a regular file. */
bool elffile_exists(const char *path);

#endif
