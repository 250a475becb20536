/* kident.c: see kident.h. Every note length is checked against the section. */
#include "analyze/kernel/kident.h"
#include "util/xalloc.h"
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define KIDENT_NOTES_MAX (64u << 10)

int kident_notes_build_id(const uint8_t *p, size_t n, uint8_t id[20], size_t *idn)
{
	size_t at = 0;
	while (n - at >= 12) {
		uint32_t nsz, dsz, type;
		memcpy(&nsz, p + at, 4);
		memcpy(&dsz, p + at + 4, 4);
		memcpy(&type, p + at + 8, 4);
		at += 12;
		size_t nal = ((size_t)nsz + 3) & ~(size_t)3, dal = ((size_t)dsz + 3) & ~(size_t)3;
		if (nsz > n - at || nal > n - at || dsz > n - at - nal)
			return -1;
		const uint8_t *name = p + at, *desc = p + at + nal;
		if (type == 3 && nsz == 4 && !memcmp(name, "GNU", 4) && dsz >= 1 && dsz <= 20) {
			memcpy(id, desc, dsz);
			*idn = dsz;
			return 0;
		}
		if (dal > n - at - nal)
			return -1;
		at += nal + dal;
	}
	return -1;
}

int kident_running_build_id(const char *path, uint8_t id[20], size_t *idn)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	uint8_t *b = xmalloc(KIDENT_NOTES_MAX);
	ssize_t n = read(fd, b, KIDENT_NOTES_MAX);
	close(fd);
	int rc = n > 0 ? kident_notes_build_id(b, (size_t)n, id, idn) : -1;
	free(b);
	return rc;
}

static void hex(char *out, const uint8_t *id, size_t n)
{
	for (size_t i = 0; i < n && i < 20; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * (n < 20 ? n : 20)] = 0;
}

/* The address of name in a kallsyms file: 0 with *addr set, or -1. */
static int kallsyms_addr(const char *path, const char *name, uint64_t *addr)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char line[512];
	int rc = -1;
	while (fgets(line, sizeof line, f)) {
		char *end, *sym;
		unsigned long long a = strtoull(line, &end, 16);
		if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		sym = end + 3;
		sym[strcspn(sym, "\t\n")] = 0;
		if (!strcmp(sym, name)) {
			*addr = a;
			rc = a ? 0 : -1; /* all zero: kptr_restrict, no evidence */
			break;
		}
	}
	fclose(f);
	return rc;
}

bool kident_same(const struct kident_evidence *ev, const struct kident_paths *paths, char *why,
		 size_t n)
{
	const char *notes = paths && paths->notes ? paths->notes : "/sys/kernel/notes";
	const char *ks = paths && paths->kallsyms ? paths->kallsyms : "/proc/kallsyms";
	if (ev->build_id && ev->build_id_size) {
		uint8_t id[20];
		size_t idn = 0;
		char a[41], b[41];
		hex(a, ev->build_id, ev->build_id_size);
		if (kident_running_build_id(notes, id, &idn)) {
			snprintf(why, n, "the recording's kernel has build id %s, the running kernel's "
				 "cannot be read (%s)", a, notes);
			return false;
		}
		/* perf records 20 bytes, a shorter id zero-padded */
		size_t m = idn < ev->build_id_size ? idn : ev->build_id_size;
		bool pad = true;
		for (size_t i = m; i < ev->build_id_size; i++)
			pad = pad && ev->build_id[i] == 0;
		if (!memcmp(id, ev->build_id, m) && pad)
			return true;
		hex(b, id, idn);
		snprintf(why, n, "the recording's kernel has build id %s, the running one %s", a, b);
		return false;
	}
	char rel[256];
	if (paths && paths->release) {
		snprintf(rel, sizeof rel, "%s", paths->release);
	} else {
		struct utsname u;
		if (uname(&u))
			rel[0] = 0;
		else
			snprintf(rel, sizeof rel, "%s", u.release);
	}
	if (ev->osrelease && *ev->osrelease && rel[0] && strcmp(ev->osrelease, rel)) {
		snprintf(why, n, "the recording's kernel is %s, the running one %s", ev->osrelease, rel);
		return false;
	}
	if (ev->module_path && rel[0] && !strncmp(ev->module_path, "/lib/modules/", 13)) {
		const char *r = ev->module_path + 13;
		size_t k = strcspn(r, "/");
		if (r[k] == '/' && (k != strlen(rel) || strncmp(r, rel, k))) {
			snprintf(why, n, "the recording's kernel modules are %.*s's, the running kernel is %s",
				 (int)k, r, rel);
			return false;
		}
	}
	uint64_t a;
	if (ev->ref_name && *ev->ref_name && ev->ref_addr && !kallsyms_addr(ks, ev->ref_name, &a) &&
	    a != ev->ref_addr) {
		snprintf(why, n, "the recording's kernel has %s at %#" PRIx64 ", the running one at %#" PRIx64,
			 ev->ref_name, ev->ref_addr, a);
		return false;
	}
	return true;
}
