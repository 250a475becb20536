/*
 * symbols.h: per-DSO symbol caches, shared by every process that maps the DSO.
 *
 * A struct dso is one ELF file as the recording saw it, keyed by build id
 * (else by path). On first use it finds the file and its separate debug file
 * (debugfile.h: sysroot, perf's build-id cache, --extra/--app/--debug paths,
 * .gnu_debuglink with CRC, debuginfod), checks the build id, and loads the
 * function symbols of .symtab (debug file first), else .dynsym plus
 * .gnu_debugdata (MiniDebugInfo), plus perf's synthesized "name@plt" and
 * "_start" symbols, into a symbol table built the way perf builds its own
 * (symtab.h). Other per-DSO state belongs to the modules that use it and is
 * opaque here: DWARF lines and inline chains (inlines.h), the unwinder's CFI
 * (unwind.h, kept by the unwinder itself).
 *
 * Address spaces: "rel" is the file offset perf prints for user frames
 * (avma - map start + pgoff); symbols are stored in rel terms so a lookup is
 * one binary search. svma (the ELF's own vaddr) is used only for DWARF.
 *
 * Kernel symbols (kallsyms.h) and perf-PID.map files (perfmap.h) are symbol
 * tables of the same shape with absolute addresses, loaded on first use.
 *
 * Names are demangled on first lookup (demangle.h: C++ Itanium without
 * parameters, as perf prints them; Rust legacy hashes dropped). All strings
 * live until symbols_free.
 * Not thread-safe: one struct symbols per resolving thread, or a lock.
 */
#ifndef SCORCH_SYMBOLS_H
#define SCORCH_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>
#include "analyze/symbols/dso.h"
#include "analyze/symbols/symtab.h"
#include "util/arena.h"
#include "util/hash.h"

/* dso_find_sym's answers by (DSO, address), one table per struct symbols:
 * a sample's frames repeat, and a hit reads one entry where the binary
 * search of a large table misses the cache at each of its ~17 steps */
#define SYM_FAST 8192
struct sym_fast {
	const struct dso *d;
	uint64_t rel;
	const struct sym *y;
};

struct symbols;

struct symbols *symbols_new(const struct symbols_config *c);
void symbols_free(struct symbols *s);
/* What symbols_free stores for later runs (the caches of each DSO's names
 * and DWARF), stored now; nothing freed (the process exits). */
void symbols_keep(struct symbols *s);

/* Record a build id for a path (from the header's build-id feature). */
void symbols_add_build_id(struct symbols *s, const char *path, const uint8_t *id, size_t size);
/* Whether the build-id cache (symbols_config.buildid_dir) holds the ELF
 * file of path's recorded build id. */
bool symbols_cached(struct symbols *s, const char *path);

/* The DSO cache entry for a file as mapped (build id may be NULL/0). Loads
 * it on first use. Never NULL. */
struct dso *symbols_dso(struct symbols *s, const char *name, const uint8_t *build_id,
			size_t build_id_size);

/* The symbol containing rel, or NULL: the table's answer when it has
 * one (inline: most frames), else dso_find_sym_slow's, which keeps it in c. */
const struct sym *dso_find_sym_slow(struct dso *d, uint64_t rel, struct sym_fast *c);
static inline const struct sym *dso_find_sym(struct dso *d, uint64_t rel)
{
	struct sym_fast *c = &d->symfast[hash_u64(rel ^ d->id) & (SYM_FAST - 1)];
	if (c->d == d && c->rel == rel)
		return c->y;
	return dso_find_sym_slow(d, rel, c);
}

/* svma -> rel, false when svma is in no PT_LOAD segment. */
bool dso_svma_to_rel(const struct dso *d, uint64_t svma, uint64_t *rel);

/* The table addr2line sees: the sized symbols of the binary's own .symtab
 * (not of a separate debug file), global preferred among aliases, names
 * still mangled. binutils names an inlined function without a linkage name
 * after the ELF symbol covering the address (see a2l.h). Loaded on first
 * use; empty when the binary has no .symtab. */
const struct symtab *dso_a2l_syms(struct dso *d);

/* Whether the running kernel's /proc/kallsyms may name the recording's
 * kernel (analyze/kernel/kident.h decides): when not (why: the warning), kernel
 * symbols come only from --kallsyms or perf's build-id cache. Call before
 * the first symbols_kernel(). */
void symbols_set_running_kernel(struct symbols *s, bool fits, const char *why);
/* The kernel symbol (kallsyms, loaded on first use) containing addr, or
 * NULL (none there, or no kernel symbols). */
const struct sym *symbols_kernel_find(struct symbols *s, uint64_t addr);
/* The module name ("[nf_tables]") of a kernel symbol, or NULL for vmlinux. */
const char *symbols_kernel_module(struct symbols *s, const struct sym *sym);
/* Both for addr (*mod: the module, NULL in the kernel image or without a
 * symbol), remembered by address. */
const struct sym *symbols_kernel_lookup(struct symbols *s, uint64_t addr, const char **mod);

/* /tmp/perf-PID.map, loaded on first use; NULL when absent. */
const struct symtab *symbols_perfmap(struct symbols *s, uint32_t pid);
/* The JIT dump at recorded_path (under --sysroot), read on first use and
 * kept by path; *name: recorded_path interned. NULL when it cannot be read
 * (one warning); a damaged one keeps the functions before the damage (one
 * warning with the offset). */
struct jitdump;
const struct jitdump *symbols_jitdump(struct symbols *s, const char *recorded_path,
				      const char **name);

/* Intern a string for the life of s. */
const char *symbols_intern(struct symbols *s, const char *str);
/* Whether inline chains carry file:line (symbols_config.no_lines). */
bool symbols_want_lines(const struct symbols *s);
/* The arena of s (strings and objects that live until symbols_free). */
struct arena *symbols_arena(struct symbols *s);

/* Demangle name (C++ Itanium without parameters, Rust legacy without the
 * hash, Rust v0 as far as supported); returns name itself when it is not
 * mangled, else an interned string. */
const char *symbols_demangle(struct symbols *s, const char *name);

#endif
