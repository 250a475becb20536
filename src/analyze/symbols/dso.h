/*
 * dso.h: a DSO as the recording saw it (struct dso: one ELF file, its
 * separate debug file, its PT_LOAD segments and symbol table) and where its
 * files are looked for (struct symbols_config). The DSO cache that fills
 * these is symbols.h; the files are found by debugfile.h; DWARF state is
 * the inline module's (inlines.h), opaque here. Types only, and the one
 * address conversion every reader of a DSO needs.
 */
#ifndef SCORCH_DSO_H
#define SCORCH_DSO_H

#include "analyze/symbols/symtab.h"
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

struct symbols;
struct sym_fast;
struct namecache;
struct dso_dwarf;

struct load_seg {
	uint64_t off, vaddr, filesz, memsz;
	uint64_t rel_end;      /* off + the larger of filesz and memsz */
};

struct dso {
	const char *name;      /* as recorded (map filename) */
	uint64_t id;           /* hash of build id (else name): the same in every cache */
	uint64_t ident;        /* hash of build id and name: tells apart what the cache
				* does, the same in every cache (never 0) */
	uint8_t build_id[20];
	uint8_t build_id_size;
	char *path;            /* the file used, NULL when not found */
	char *debug_path;      /* separate debug file, NULL when none */
	int fd;                /* of path, -1 when none */
	Elf *elf;              /* of path */
	int debug_fd;
	Elf *debug_elf;
	uint16_t e_type;
	struct load_seg segs[16];
	unsigned nr_segs;
	struct symtab symtab;
	void *symtab_map;      /* the cache image symtab's names are in (symcache.h), or NULL */
	struct symtab a2l_syms; /* what addr2line sees (dso_a2l_syms) */
	bool a2l_loaded;
	struct dso_dwarf *dw;  /* DWARF lines and inlines: inlines.c's, opaque here */
	/* Set with dw by its owner (inlines.c): what symbols_keep stores of it
	 * for later runs (nothing freed), and its release when the DSO is
	 * freed; the DSO cache calls them without knowing the owner. */
	void (*dw_keep)(struct dso *d);
	void (*dw_release)(struct dso *d);
	struct namecache *names; /* its names demangled in earlier runs (namecache.h) */
	bool names_tried;
	bool missing;          /* file not found or build id mismatch */
	bool loaded;
	uint64_t first_vaddr;  /* svma of the first PT_LOAD (p_vaddr & ~page) */
	struct symbols *owner;
	struct sym_fast *symfast; /* the owner's dso_find_sym answers */
};

struct symbols_config {
	const char *sysroot;     /* prefix of every recorded path */
	const char *debug_paths; /* ':'-separated dirs searched for debug files */
	const char *extra_paths; /* ':'-separated dirs searched for binaries by basename */
	const char *app_path;    /* dir searched for binaries first */
	const char *kallsyms;    /* file, default /proc/kallsyms */
	const char *buildid_dir; /* perf's cache ($HOME/.debug); NULL: none */
	bool debuginfod;         /* ask debuginfod (DEBUGINFOD_URLS) for missing files */
	bool no_lines;           /* inline chains without file:line (no line tables read) */
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
};

/* rel -> svma, false when rel is in no PT_LOAD segment. */
static inline bool dso_rel_to_svma(const struct dso *d, uint64_t rel, uint64_t *svma)
{
	for (unsigned i = 0; i < d->nr_segs; i++) {
		const struct load_seg *g = &d->segs[i];
		if (rel >= g->off && rel < g->rel_end) {
			*svma = rel - g->off + g->vaddr;
			return true;
		}
	}
	return false;
}

#endif
