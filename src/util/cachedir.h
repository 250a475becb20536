/*
 * cachedir.h: where scorch keeps what it derives from files and can build
 * again (decompressed debug files, parsed kallsyms): under
 * $XDG_CACHE_HOME/scorch/, else ~/.cache/scorch/, one versioned directory
 * per kind. SCORCH_NO_CACHE=1 turns every such cache off.
 */
#ifndef SCORCH_UTIL_CACHEDIR_H
#define SCORCH_UTIL_CACHEDIR_H

#include <stdbool.h>
#include <stddef.h>

/* SCORCH_NO_CACHE is set (to anything but 0). */
bool cachedir_disabled(void);
/* The directory of kind `sub` ("dwarf-v1") in out; false when there is no
 * absolute XDG_CACHE_HOME or HOME, or it does not fit. */
bool cachedir_path(const char *sub, char *out, size_t cap);
/* Create dir and its parents (0755); 0, or -1. */
int cachedir_mkdirs(char *dir);

#endif
