/*
 * hugeheap.c: analysis on a heap of transparent huge pages (see hugeheap.h).
 *
 * The analysis commands allocate tens of megabytes in small pieces: symbol
 * tables, the kernel's 120k symbols, CFI rows, DWARF indexes and the
 * per-address caches. Each 4 KB page costs a page fault on first touch, and
 * on a virtual machine a fault costs microseconds: on a 2.7 MB recording
 * of cc1, 5,200 faults were a third of the run. glibc backs its heap with
 * transparent huge pages (madvise(MADV_HUGEPAGE) on what it maps, one fault
 * per 2 MB) when the tunable glibc.malloc.hugetlb=1 is set, and it reads
 * tunables only when a program starts. So an analysis command starts itself
 * once more with the tunable added, and the second start puts
 * GLIBC_TUNABLES back as it was, so that programs it runs see the user's
 * environment.
 *
 * Not done: when the user set glibc.malloc.hugetlb themselves, when the
 * kernel's THP mode is "never", under valgrind (its client would run
 * unchecked) or a sanitizer (its own allocator), when /proc/self/exe
 * cannot be executed, and with SCORCH_HUGE_HEAP=0.
 */
#include "util/hugeheap.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ORIG_VAR "SCORCH_HUGE_HEAP_ORIG"
#define TUNABLE "glibc.malloc.hugetlb=1"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
	__has_feature(memory_sanitizer)
#define SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#endif

/* The kernel's THP mode allows madvise'd huge pages ("always" or
 * "madvise" selected). */
static int thp_allowed(void)
{
	char b[128];
	int fd = open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, b, sizeof b - 1);
	close(fd);
	if (n <= 0)
		return 0;
	b[n] = 0;
	return strstr(b, "[always]") || strstr(b, "[madvise]");
}

void hugeheap_start(char **argv)
{
	const char *orig = getenv(ORIG_VAR);
	if (orig) {
		/* the second start: the user's GLIBC_TUNABLES back ("-": unset) */
		if (!strcmp(orig, "-"))
			unsetenv("GLIBC_TUNABLES");
		else
			setenv("GLIBC_TUNABLES", orig + 1, 1);
		unsetenv(ORIG_VAR);
		return;
	}
#if defined(__GLIBC__) && !defined(SANITIZED)
	const char *opt = getenv("SCORCH_HUGE_HEAP");
	if (opt && !strcmp(opt, "0"))
		return;
	const char *t = getenv("GLIBC_TUNABLES");
	if (t && strstr(t, "glibc.malloc.hugetlb"))
		return;
	const char *pre = getenv("LD_PRELOAD");
	if (pre && strstr(pre, "vgpreload"))
		return;
	if (!thp_allowed())
		return;
	size_t n = t ? strlen(t) : 0;
	char *keep = malloc(n + 2), *val = malloc(n + sizeof(TUNABLE) + 1);
	if (!keep || !val) {
		free(keep);
		free(val);
		return;
	}
	if (t) {
		keep[0] = '=';
		memcpy(keep + 1, t, n + 1);
		snprintf(val, n + sizeof(TUNABLE) + 1, "%s%s%s", t, n ? ":" : "", TUNABLE);
	} else {
		strcpy(keep, "-");
		strcpy(val, TUNABLE);
	}
	if (!setenv(ORIG_VAR, keep, 1) && !setenv("GLIBC_TUNABLES", val, 1))
		execv("/proc/self/exe", argv);
	/* not started again: as it was */
	if (t)
		setenv("GLIBC_TUNABLES", keep + 1, 1);
	else
		unsetenv("GLIBC_TUNABLES");
	unsetenv(ORIG_VAR);
	free(keep);
	free(val);
#else
	(void)argv;
#endif
}
