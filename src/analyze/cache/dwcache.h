/*
 * dwcache.h: an on-disk cache of decompressed debug files (see dwcache.c).
 */
#ifndef SCORCH_DWCACHE_H
#define SCORCH_DWCACHE_H

#include <gelf.h>
#include <stdbool.h>

/* e has SHF_COMPRESSED .debug_* sections (what libdw inflates on open). */
bool dwcache_wanted(Elf *e);
/* The cached, decompressed copy of debug file e, validated (same build id,
 * nothing compressed, every section inside the file); NULL when there is
 * none or it does not validate. *fdp gets its descriptor. */
Elf *dwcache_open(Elf *e, int *fdp);
/* Store e, whose debug sections libdw has decompressed in memory, as the
 * cached copy: written to a temporary file, then renamed into place (so a
 * reader sees a whole file or none, and concurrent writers each rename a
 * whole one). Failures are silent: the cache is only a shortcut. */
void dwcache_store(Elf *e);

#endif
