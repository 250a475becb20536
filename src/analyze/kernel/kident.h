/*
 * kident.h: is the kernel a recording was made on the one running here?
 *
 * Only then may this machine's /proc/kallsyms name its kernel addresses: a
 * wrong name is worse than none. perf 6.1 decides by the build id it
 * recorded for [kernel.kallsyms] (HEADER_BUILD_ID) against the running
 * kernel's (/sys/kernel/notes); without one (pipe mode, old perf) it uses
 * this machine's symbols whatever the kernel was. Here, without a build id,
 * the other things a recording says about its kernel decide: its release
 * (HEADER_OSRELEASE), the /lib/modules/RELEASE/ of its module mappings, and
 * the address of the symbol its kernel mapping is relative to
 * ("[kernel.kallsyms]_text" mapped at pgoff = the address of _text). Any
 * of them different from the running kernel's: another kernel.
 *
 * /sys/kernel/notes is a sequence of ELF notes { u32 namesz, descsz, type;
 * name, desc, each padded to 4 bytes }; the build id is the "GNU" note of
 * type 3 (NT_GNU_BUILD_ID).
 */
#ifndef SCORCH_KIDENT_H
#define SCORCH_KIDENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kident_evidence {
	const uint8_t *build_id;   /* recorded for [kernel.kallsyms], NULL if none */
	size_t build_id_size;
	const char *osrelease;     /* HEADER_OSRELEASE, NULL if none */
	const char *module_path;   /* the path of a recorded module mapping, NULL if none */
	const char *ref_name;      /* "_text" of "[kernel.kallsyms]_text", NULL if no kernel map */
	uint64_t ref_addr;         /* that mapping's pgoff: the symbol's address */
};

/* Where the running kernel's facts are read (tests point them elsewhere). */
struct kident_paths {
	const char *notes;         /* /sys/kernel/notes */
	const char *kallsyms;      /* /proc/kallsyms */
	const char *release;       /* NULL: uname() */
};

/* The GNU build id in a notes section: 0 with id/idn set, or -1. */
int kident_notes_build_id(const uint8_t *p, size_t n, uint8_t id[20], size_t *idn);

/* The running kernel's build id from its notes file (/sys/kernel/notes):
 * 0 with id/idn set, or -1. */
int kident_running_build_id(const char *notes, uint8_t id[20], size_t *idn);

/* true: the recorded kernel is the running one (or nothing says it is
 * not). false: why says how they differ. */
bool kident_same(const struct kident_evidence *ev, const struct kident_paths *paths, char *why,
		 size_t n);

#endif
