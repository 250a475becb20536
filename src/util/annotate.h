/*
 * annotate.h: telling helgrind about orders it cannot see. Happens-before
 * through atomics (a release store or decrement read by another thread's
 * acquire) is invisible to it, so where threads hand data over that way
 * the code says so with ANNOTATE_HAPPENS_BEFORE (the publishing side,
 * before its atomic) and ANNOTATE_HAPPENS_AFTER (the reading side, after
 * its atomic), on the same address. Without valgrind's header (HAVE_VALGRIND,
 * from scripts/configure.sh) these do nothing; under valgrind but not
 * helgrind, next to nothing.
 */
#ifndef SCORCH_ANNOTATE_H
#define SCORCH_ANNOTATE_H

#ifdef HAVE_VALGRIND
#include <valgrind/helgrind.h>
#else
#define ANNOTATE_HAPPENS_BEFORE(obj) ((void)(obj))
#define ANNOTATE_HAPPENS_AFTER(obj) ((void)(obj))
#define VALGRIND_HG_DISABLE_CHECKING(addr, len) ((void)(addr), (void)(len))
#endif

#endif
