/*
 * sys.h: small system helpers the recorder, the live modes and the outputs
 * share: the monotonic clock in nanoseconds, writing a whole buffer to a
 * descriptor, whether a path is plain, and formatting a message for a
 * (log, ctx) callback.
 */
#ifndef SCORCH_UTIL_SYS_H
#define SCORCH_UTIL_SYS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t sys_mono_ns(void);

/* Write all n bytes of p to fd, retrying on EINTR (and, with wait_ready,
 * polling up to 100 ms at a time on EAGAIN). 0 or -errno. */
int sys_write_all(int fd, const void *p, size_t n, bool wait_ready);

/* Whether p is a plain absolute path: no empty, "." or ".." parts (the
 * kernel's d_path never makes those; a hostile name in a file could). */
bool sys_plain_path(const char *p);

/* Format fmt/ap into at most cap bytes (at most 1024, the terminating NUL
 * included) and pass the message to log(ctx, msg); nothing when log is
 * NULL. */
void sys_vlog(void (*log)(void *ctx, const char *msg), void *ctx, size_t cap, const char *fmt,
	      va_list ap);

#endif
