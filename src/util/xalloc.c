/* xalloc.c: allocation that aborts on out-of-memory (the policy is in xalloc.h). */
#include "util/xalloc.h"

#include <stdio.h>
#include <string.h>

void xalloc_die(void)
{
	fputs("scorch: out of memory\n", stderr);
	abort();
}

void *xmalloc(size_t sz)
{
	void *p = malloc(sz ? sz : 1);
	if (!p)
		xalloc_die();
	return p;
}

void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);
	if (!p)
		xalloc_die();
	return p;
}

void *xrealloc(void *p, size_t sz)
{
	p = realloc(p, sz ? sz : 1);
	if (!p)
		xalloc_die();
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s ? s : "");
	if (!p)
		xalloc_die();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s ? s : "", n);
	if (!p)
		xalloc_die();
	return p;
}

void *xaligned_calloc(size_t align, size_t sz)
{
	void *p = NULL;
	if (!sz)
		sz = 1;
	if (posix_memalign(&p, align, sz))
		xalloc_die();
	return memset(p, 0, sz);
}

void *xmalloc_input(size_t sz, size_t cap)
{
	return sz > cap ? NULL : malloc(sz ? sz : 1);
}

void *xrealloc_input(void *p, size_t sz, size_t cap)
{
	return sz > cap ? NULL : realloc(p, sz ? sz : 1);
}
