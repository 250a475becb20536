/* err.c: see err.h. The first error recorded wins: it is the cause. */
#include "util/err.h"
#include <errno.h>
#include <stdio.h>

int err_at(struct err *e, uint64_t off, const char *fmt, ...)
{
	if (e && !e->set) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
		e->set = 1;
		e->has_offset = 1;
		e->offset = off;
	}
	return -EINVAL;
}

int err_set(struct err *e, int code, const char *fmt, ...)
{
	if (e && !e->set) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
		e->set = 1;
		e->has_offset = 0;
	}
	return code < 0 ? code : -EIO;
}
