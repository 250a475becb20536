/*
 * err.h: errors with a place. Parsers fill a struct err with the byte offset
 * in the input where the problem is and a message; the CLI prints
 * "scorch: FILE: offset N: message" and exits 2. Functions return 0 or a
 * negative errno-style code and never drop an error they were given.
 */
#ifndef SCORCH_ERR_H
#define SCORCH_ERR_H

#include <stdint.h>
#include <stdarg.h>

struct err {
	int set;
	uint64_t offset;     /* byte offset in the input, when has_offset */
	int has_offset;
	char msg[256];
};

/* Record an error at byte offset off; returns -EINVAL for `return err_at(...)`. */
int err_at(struct err *e, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Record an error that has no offset (I/O, allocation); returns code. */
int err_set(struct err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Print e on stderr as "scorch: FILE: offset N: message" (no offset part
 * when it has none). */
void err_print(const char *file, const struct err *e);

#endif
