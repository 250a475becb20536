/*
 * perfmap.h: /tmp/perf-PID.map, the symbol file JITs write for perf: one
 * "START SIZE NAME" line per function (hex addresses, absolute), see
 * perf's Documentation/jit-interface.txt.
 */
#ifndef SCORCH_PERFMAP_H
#define SCORCH_PERFMAP_H

#include "analyze/symbols/symtab.h"
#include "util/arena.h"
#include <stdio.h>

/* Read a perf map from f into t (names interned in a). Lines that do not
 * parse are skipped, as perf skips them; never fails on content. */
void perfmap_read(struct symtab *t, FILE *f, struct arena *a);

#endif
