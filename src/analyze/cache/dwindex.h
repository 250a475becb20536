/*
 * dwindex.h: what scorch derives from a debug file's DWARF to answer
 * lookups (line tables' indexes, CUs' function indexes), kept on disk
 * across runs (see dwindex.c).
 */
#ifndef SCORCH_DWINDEX_H
#define SCORCH_DWINDEX_H

#include "analyze/cache/cacheimg.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kinds of entries, each keyed by an offset in the file's DWARF. */
enum dwindex_kind {
	DWINDEX_LINES = 1,  /* a line table's (dwline_index), by .debug_line offset */
	DWINDEX_FUNCS = 2,  /* a CU's function ranges (inlines.c), by CU DIE offset */
	DWINDEX_KIDS = 3,   /* a scope's children the inline walk tests (dwdie.c), by DIE offset */
	DWINDEX_ABBREVS = 4, /* a CU's abbreviations (dwdie.c), by .debug_abbrev offset */
	DWINDEX_ARANGES = 5, /* the file's .debug_aranges as a table (inlines.c), at 0 */
	DWINDEX_NOSCOPE = 6, /* addresses in no function (inlines.c), at 0 */
	/* in DWINDEX_UNWIND_DIR's images, of a DSO's file (unwind_dwarf.c) */
	DWINDEX_UNWIND_RULES = 7, /* the rules its rows name, at 0 */
	DWINDEX_UNWIND_ROWS = 8,  /* its CFI rows as rules, by address, at 0 */
	/* in DWINDEX_NAMES_DIR's, of a DSO's file (namecache.c) */
	DWINDEX_NAMES = 9,        /* its demangled symbol names, at 0 */
};

/* The stores: what is derived from DWARF (dwindex-v1), the unwinder's
 * rules of a file's CFI (unwind-v1), its demangled names (names-v1). */
#define DWINDEX_DIR "dwindex-v1"
#define DWINDEX_UNWIND_DIR "unwind-v1"
#define DWINDEX_NAMES_DIR "names-v1"

struct dwindex;

/* The kept entries of the file open as fd (the one whose DWARF is read);
 * NULL when caches are off (SCORCH_NO_CACHE) or fd is not a regular
 * file. An empty one when none is stored yet. */
struct dwindex *dwindex_open(int fd);
/* The same in another store (store: a DWINDEX_*_DIR, kept by the caller). */
struct dwindex *dwindex_open_in(const char *store, int fd);
/* The same for a file of this identity. */
struct dwindex *dwindex_open_id(const struct cacheimg_id *id);
/* The entry of kind at off, *size bytes (8-byte aligned, mapped until
 * dwindex_close); NULL when none. */
const void *dwindex_find(const struct dwindex *x, enum dwindex_kind kind, uint64_t off,
			 size_t *size);
/* Keep p (malloc'd, size bytes; x takes it) as the entry of kind at off,
 * made this run (none was kept, or it did not check), to be stored on
 * close. */
void dwindex_add(struct dwindex *x, enum dwindex_kind kind, uint64_t off, void *p, size_t size);
/* Store the entries (those kept, and those added in their place) when any
 * was added, then free x. Whatever uses an entry in place (a line table
 * opened with its index) must be freed before. Failures are silent: the
 * cache is a shortcut. */
void dwindex_close(struct dwindex *x);
/* When an image was stored for *xp's file since *xp was opened (another
 * writer's: another thread of this run, another run): *xp replaced by that
 * image, opened as dwindex_open does, with the entries added to *xp (to be
 * stored from there), and closed; true (what was found in *xp's image is
 * gone with it). Else false, *xp as it was. close() merges a newer image
 * itself, by entry: a caller whose one entry holds many rows (the kept
 * unwind rows, the names) takes the newer one's rows as its kept ones
 * this way before it adds its own. */
bool dwindex_refresh(struct dwindex **xp);
/* Store x's added entries now (as close would), and forget them. */
void dwindex_store_now(struct dwindex *x);
/* Held from such a caller's dwindex_refresh to its store: of the threads of
 * a run, one stores at a time, each after the one before (recursive; a
 * store takes it too). Writers in other processes can still meet: of
 * those, the last one's image stays, and the others' entries are made
 * again by a later run. */
void dwindex_lock(void);
void dwindex_unlock(void);

/* The image of n entries (keys[i]: kind << 56 | offset, strictly
 * increasing; p[i] of sizes[i] bytes) for id: malloc'd, its size in
 * *size. */
uint8_t *dwindex_image(const struct cacheimg_id *id, size_t n, const uint64_t *keys,
		       const void *const *p, const size_t *sizes, size_t *size);
/* A dwindex over p (size bytes, 8-byte aligned, kept by the caller) when
 * it is a whole, consistent image for id; NULL when not. It never
 * stores. */
struct dwindex *dwindex_over(const struct cacheimg_id *id, const void *p, size_t size);

#endif
