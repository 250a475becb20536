/*
 * symbols.h: per-DSO symbol caches, shared by every process that maps the DSO.
 *
 * A struct dso is one ELF file as the recording saw it, keyed by build id
 * (else by path). On first use it finds the file (sysroot, perf's build-id
 * cache, --extra/--app paths), checks the build id, finds the separate debug
 * file (/usr/lib/debug/.build-id, perf's cache, .gnu_debuglink with CRC,
 * --debug paths), and loads:
 *   - the function symbols of .symtab (debug file first), else .dynsym plus
 *     .gnu_debugdata (MiniDebugInfo), chosen among aliases the way perf does
 *     (sized over unsized, non-weak over weak, global over local, fewer
 *     leading underscores, longer name, first in the table), unsized symbols
 *     extended to the next symbol;
 *   - DWARF (libdw) for file:line and inline chains, looked up lazily and
 *     cached per address.
 *
 * Address spaces: "rel" is the file offset perf prints for user frames
 * (avma - map start + pgoff); symbols are stored in rel terms so a lookup is
 * one binary search. svma (the ELF's own vaddr) is used only for DWARF.
 *
 * Kernel symbols (kallsyms) and perf-PID.map files are symbol tables of the
 * same shape (struct symtab) with absolute addresses.
 *
 * Names are demangled (C++ Itanium without parameters, as perf prints them;
 * Rust legacy hashes dropped). All strings live until symbols_free.
 * Not thread-safe: one struct symbols per resolving thread, or a lock.
 */
#ifndef SCORCH_SYMBOLS_H
#define SCORCH_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include "util/hash.h"

struct sym {
	uint64_t start, end;   /* rel (file offset) or absolute address; end exclusive */
	const char *name;      /* DSO symbols: demangled once dso_find_sym returned it;
				* perf maps and kallsyms: as written (perf does not
				* demangle them either) */
	bool demangled;
};

struct symtab {
	struct sym *syms;      /* sorted by start, aliases removed */
	size_t nr;
};

/* Binary search: the symbol containing addr, or NULL. */
const struct sym *symtab_find(const struct symtab *t, uint64_t addr);

/* One entry of an inline chain, innermost first; the last one is the
 * subprogram (the out-of-line function). */
struct inline_entry {
	const char *name;      /* demangled, NULL when DWARF has none */
	const char *file;
	uint32_t line, column;
	/* Innermost entry only: addr2line's naming depends on lookup order
	 * (see a2l_decide); a2l says the decision applies, alt_name is the ELF
	 * symbol addr2line would give on the DIE's first lookup. */
	bool a2l, keep_alt;
	const char *alt_name;
	uint64_t die;
};

/* The order-dependent part of addr2line's names, replayed in sample order:
 * the name an address gets is fixed at its first lookup. */
struct a2l_state {
	struct hmap *addr;     /* (dso, rel) -> name */
	struct hmap *die;      /* (dso, DIE) -> name later lookups give */
};
void a2l_state_release(struct a2l_state *st);
/* The name of innermost entry e (a2l set) of address rel of DSO dso_id. */
const char *a2l_decide(struct a2l_state *st, uint64_t dso_id, uint64_t rel,
		       const struct inline_entry *e);

struct load_seg {
	uint64_t off, vaddr, filesz, memsz;
};

struct dso {
	const char *name;      /* as recorded (map filename) */
	uint64_t id;           /* hash of build id (else name): the same in every cache */
	uint8_t build_id[20];
	uint8_t build_id_size;
	char *path;            /* the file used, NULL when not found */
	char *debug_path;      /* separate debug file, NULL when none */
	int fd;                /* of path, -1 when none */
	Elf *elf;              /* of path */
	int debug_fd;
	Elf *debug_elf;
	Dwarf *dwarf;          /* of the debug file or of path; NULL when none */
	bool dwarf_tried;
	uint16_t e_type;
	struct load_seg segs[16];
	unsigned nr_segs;
	struct symtab symtab;
	struct symtab a2l_syms; /* what addr2line sees (see symbols.c) */
	bool a2l_loaded;
	void *inl_cache;       /* rel -> cached inline chain (struct hmap *) */
	void *cu_index;        /* CU offset -> function ranges (symbols.c) */
	bool missing;          /* file not found or build id mismatch */
	bool loaded;
	uint64_t first_vaddr;  /* svma of the first PT_LOAD (p_vaddr & ~page) */
	struct symbols *owner;
};

struct symbols_config {
	const char *sysroot;     /* prefix of every recorded path */
	const char *debug_paths; /* ':'-separated dirs searched for debug files */
	const char *extra_paths; /* ':'-separated dirs searched for binaries by basename */
	const char *app_path;    /* dir searched for binaries first */
	const char *kallsyms;    /* file, default /proc/kallsyms */
	const char *buildid_dir; /* perf's cache, default $HOME/.debug */
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
};

struct symbols;

struct symbols *symbols_new(const struct symbols_config *c);
void symbols_free(struct symbols *s);

/* Record a build id for a path (from the header's build-id feature). */
void symbols_add_build_id(struct symbols *s, const char *path, const uint8_t *id, size_t size);

/* The DSO cache entry for a file as mapped (build id may be NULL/0). Loads
 * it on first use. Never NULL except on allocation failure. */
struct dso *symbols_dso(struct symbols *s, const char *name, const uint8_t *build_id,
			size_t build_id_size);

/* The symbol containing rel, or NULL. */
const struct sym *dso_find_sym(struct dso *d, uint64_t rel);

/* Inline chain at rel (innermost first, ending with the subprogram).
 * Returns the number of entries (0: no DWARF there); *out points into the
 * cache. */
unsigned dso_inlines(struct dso *d, uint64_t rel, const struct inline_entry **out);

/* rel -> svma, false when rel is in no PT_LOAD segment. */
bool dso_rel_to_svma(const struct dso *d, uint64_t rel, uint64_t *svma);

/* Kernel symbols (kallsyms), loaded on first use; NULL when unavailable. */
const struct symtab *symbols_kernel(struct symbols *s);
/* The module name ("[nf_tables]") of a kernel symbol, or NULL for vmlinux. */
const char *symbols_kernel_module(struct symbols *s, const struct sym *sym);

/* /tmp/perf-PID.map, loaded on first use; NULL when absent. */
const struct symtab *symbols_perfmap(struct symbols *s, uint32_t pid);

/* Intern a string for the life of s. */
const char *symbols_intern(struct symbols *s, const char *str);

/* Demangle name (C++ Itanium without parameters, Rust legacy without the
 * hash, Rust v0 as far as supported); returns name itself when it is not
 * mangled, else an interned string. */
const char *symbols_demangle(struct symbols *s, const char *name);

/* Demangle into a malloc'd string, NULL when not mangled (for tests). */
char *demangle_alloc(const char *name);

#endif
