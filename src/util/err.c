/* err.c: see err.h. The first error recorded wins: it is the cause. */
#include "util/err.h"
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

/* Record the first error: true when this one was recorded (the caller sets
 * the offset). */
static bool record(struct err *e, const char *fmt, va_list ap)
{
	if (!e || e->set)
		return false;
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	e->set = 1;
	e->has_offset = 0;
	return true;
}

int err_at(struct err *e, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (record(e, fmt, ap)) {
		e->has_offset = 1;
		e->offset = off;
	}
	va_end(ap);
	return -EINVAL;
}

int err_set(struct err *e, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	record(e, fmt, ap);
	va_end(ap);
	return code < 0 ? code : -EIO;
}

void err_print(const char *file, const struct err *e)
{
	if (e->has_offset)
		fprintf(stderr, "scorch: %s: offset %llu: %s\n", file,
			(unsigned long long)e->offset, e->msg);
	else
		fprintf(stderr, "scorch: %s: %s\n", file, e->msg);
}
