/* cachedir.c: see cachedir.h. */
#include "util/cachedir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool cachedir_disabled(void)
{
	const char *off = getenv("SCORCH_NO_CACHE");
	return off && *off && strcmp(off, "0");
}

bool cachedir_path(const char *sub, char *out, size_t cap)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int k;
	if (x && x[0] == '/')
		k = snprintf(out, cap, "%s/scorch/%s", x, sub);
	else if (home && home[0] == '/')
		k = snprintf(out, cap, "%s/.cache/scorch/%s", home, sub);
	else
		return false;
	return k > 0 && (size_t)k < cap;
}

int cachedir_mkdirs(char *dir)
{
	for (char *s = dir + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		int rc = mkdir(dir, 0755);
		*s = '/';
		if (rc && errno != EEXIST)
			return -1;
	}
	return mkdir(dir, 0755) && errno != EEXIST ? -1 : 0;
}
