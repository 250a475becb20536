/*
 * kcore.h: kernel code read from an ELF core image of the kernel's memory
 * (/proc/kcore, or a copy of it such as perf record --kcore keeps).
 *
 * The image is an ELF64 ET_CORE file: its PT_LOAD program headers map
 * kernel virtual addresses (p_vaddr, p_filesz bytes) to file offsets
 * (p_offset); a PT_NOTE may hold a VMCOREINFO note whose text has a
 * "BUILD-ID=<hex>" line, the build id of the kernel the memory belongs to.
 * Every header and note is input: lengths and offsets are checked against
 * what the file holds before use; a bad one refuses the whole image.
 */
#ifndef SCORCH_KCORE_H
#define SCORCH_KCORE_H

#include <stddef.h>
#include <stdint.h>

struct kcore;

/* Open the image at path: NULL with why set ("PATH: offset N: message",
 * or the open error) when it cannot be read or is not an image of this
 * shape. */
struct kcore *kcore_open(const char *path, char *why, size_t n);
/* The image's e_machine (EM_X86_64...). */
unsigned kcore_machine(const struct kcore *k);
/* The build id of its VMCOREINFO note: its size (0: none), into id. */
size_t kcore_build_id(const struct kcore *k, uint8_t id[20]);
/* Up to len bytes of memory at the kernel address vaddr, from the one
 * segment holding vaddr: the count read into buf (0: no segment maps
 * vaddr, or the read failed). */
size_t kcore_read(const struct kcore *k, uint64_t vaddr, void *buf, size_t len);
void kcore_free(struct kcore *k);

#endif
