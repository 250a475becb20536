/*
 * xalloc.h: the out-of-memory policy of scorch, stated once.
 *
 *  1. A size that comes from the input (a length field, a record count, a
 *     file's size) is never allocated as asked: it goes through a capped
 *     buffer (util/buf.h: buf_reserve, array_grow) or xmalloc_input below,
 *     which fail with -E2BIG or -ENOMEM, and that failure is an ordinary
 *     error, reported with its place ("scorch: FILE: offset N: message",
 *     exit 2). Hostile input can make scorch refuse a file, never abort it.
 *  2. Every other allocation (bookkeeping bounded by what was already read:
 *     a symbol table, a hash map, an interned string) uses the x* helpers
 *     below, which print "scorch: out of memory" and abort. There is no
 *     recovery path to test for these, so none is pretended: functions
 *     built on them do not return NULL for lack of memory.
 *
 * New code follows one of the two; a header that says "NULL on allocation
 * failure" is a bug in that header. Outside src/util nothing calls malloc,
 * calloc, realloc, strdup or their kin directly (tests/e2e/source_rules.sh
 * checks it, with its short list of exceptions and their reasons).
 */
#ifndef SCORCH_XALLOC_H
#define SCORCH_XALLOC_H

#include <stddef.h>
#include <stdlib.h>

/* Report "scorch: out of memory" and abort. */
_Noreturn void xalloc_die(void);

void *xmalloc(size_t sz);
void *xcalloc(size_t n, size_t sz);
void *xrealloc(void *p, size_t sz);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Zeroed, aligned to align (a power of two, a multiple of sizeof(void *)):
 * blocks that threads write side by side, a cache line each. */
void *xaligned_calloc(size_t align, size_t sz);

/* Rule 1's allocation: a block whose size the input chose (a record, a
 * section copied whole, data unpacked from a file). NULL when sz is over
 * cap or memory is short; the caller reports it as an error of the input,
 * never aborts. */
void *xmalloc_input(size_t sz, size_t cap);
/* The same for growing p; on NULL, p is unchanged and still the caller's. */
void *xrealloc_input(void *p, size_t sz, size_t cap);

#endif
