/*
 * inlines.c: DWARF source lines and inline chains of a DSO's addresses (see
 * inlines.h).
 *
 * Per DSO (struct dso_dwarf, created on the first lookup and freed by
 * inlines_release): the libdw handle, a per-CU index of function ranges,
 * and the chains already computed, keyed by address. Finding the function
 * of an address is a binary search in its CU's index (built once per CU)
 * instead of a walk over the CU's DIE tree (dwarf_getscopes), which was the
 * largest cost of symbolizing C++ code; the inlined subroutines below the
 * function are then followed down to the address. When the index has no
 * function there (assembler CUs, odd producers), dwarf_getscopes decides.
 *
 * Names are what addr2line prints (and so perf): the linkage name
 * demangled, else DW_AT_name through abstract origins; file:line of the
 * innermost entry from the line table, of each caller from the inline's
 * call site. Where addr2line's name depends on lookup order, the entry
 * carries what a2l.c needs to replay it (a2l_prepare).
 */
#include "analyze/dwarf/inlines.h"
#include "analyze/cache/dwcache.h"
#include "analyze/dwarf/dwdie.h"
#include "analyze/dwarf/dwline.h"
#include "analyze/symbols/elffile.h"
#include "analyze/cache/dwindex.h"
#include "srchash.h"
#include "analyze/symbols/symbols.h"
#include "util/amap.h"
#include "util/arena.h"
#include "util/bsearch.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/ksort.h"
#include "util/xalloc.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct dso_dwarf {
	Dwarf *dwarf;          /* of the debug file or of the binary; NULL when none */
	struct hmap cu_index;  /* CU DIE offset -> struct cu_index * */
	struct amap inl;       /* rel -> 0 (no inline frames: no_inl) or 1 + the
				* number of its struct inl_result in res[] */
	struct inl_result **res;
	size_t nr_res, cap_res;
	Elf *cache_elf;        /* the decompressed copy libdw reads (dwcache.c), or NULL */
	int cache_fd;
	/* line tables (dwline.h): .debug_line offset + 1 -> struct dwline *
	 * or &no_lines (libdw decides that CU) */
	struct hmap lines;
	struct dwline_sections sec;
	int sec_state;         /* 0: not looked up, 1: usable, -1: libdw only */
	/* line tables' and CUs' indexes kept across runs (dwindex.h), of
	 * the file libdw reads (dwarf_fd), opened on first use */
	int dwarf_fd;
	struct dwindex *dx;
	bool dx_tried;
	struct dwdie_store store;  /* dwdie's kept data, in dx */
	/* the sections dwdie reads for the CU index, and the same states */
	struct dwdie_sections dies;
	int dies_state;
	/* every CU's own ranges, by start, built on the first address
	 * .debug_aranges does not list (cu_by_ranges) */
	struct cu_range *cur;
	size_t nr_cur;
	bool cur_built;
	/* .debug_aranges read by dwdie (aranges_find); ar_state 0: not
	 * read, 1: usable, -1: libdw's dwarf_addrdie; ar_kept: ar is in
	 * the kept indexes (dx), not malloc'd */
	const struct dwdie_arange *ar;
	size_t nar;
	int ar_state;
	bool ar_kept;
	/* addresses of a CU outside every function of its index where
	 * dwarf_getscopes found no function either (noscope_known): kept
	 * (in dx, sorted) and found this run */
	const uint64_t *ns_kept;
	size_t nns_kept;
	bool ns_loaded;
	uint64_t *ns_new;
	size_t nns_new, cap_ns_new;
};

struct cu_range {
	uint64_t lo, hi;       /* [lo, hi) */
	uint64_t cu_off;       /* the CU DIE's offset */
};

static struct dwline no_lines;

/* A CU known by its offsets; libdw's DIE of it is looked up only when
 * libdw is asked about the CU (dwarf_offdie of a CU late in .debug_info
 * makes libdw read every unit header before it). */
struct lazy_cu {
	Dwarf *dbg;
	uint64_t die_off;      /* dwarf_dieoffset of the CU DIE */
	uint64_t hdr_off;      /* its unit header's offset */
	Dwarf_Die die;
	int state;             /* 0: not looked up, 1: die, -1: none */
};

static Dwarf_Die *lcu(struct lazy_cu *l)
{
	if (!l->state)
		l->state = dwarf_offdie(l->dbg, l->die_off, &l->die) ? 1 : -1;
	return l->state > 0 ? &l->die : NULL;
}

static void lazy_cu_of_die(struct lazy_cu *l, Dwarf *dbg, Dwarf_Die *cu)
{
	*l = (struct lazy_cu){ dbg, dwarf_dieoffset(cu), dwarf_dieoffset(cu) - dwarf_cuoffset(cu),
			       *cu, 1 };
}

struct inl_result {
	unsigned n;
	struct inline_entry e[];
};

static bool has_linkage_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	       dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a);
}

static const char *die_name(struct symbols *s, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		n = dwarf_formstring(&a);
	if (!n)
		n = dwarf_diename(die);
	if (!n) {
		/* dwarf_diename does not follow origins */
		if (dwarf_attr_integrate(die, DW_AT_name, &a))
			n = dwarf_formstring(&a);
	}
	return n ? symbols_demangle(s, n) : NULL;
}

/* The sections dwline reads, looked up once per DSO. */
static bool line_sections(struct dso_dwarf *dw)
{
	if (!dw->sec_state)
		dw->sec_state = dwline_sections_of(dwarf_getelf(dw->dwarf), &dw->sec) ? 1 : -1;
	return dw->sec_state > 0;
}

/* dw's kept indexes (dwindex.h), opened on first use; NULL when none. */
static struct dwindex *dwindex_of(struct dso_dwarf *dw)
{
	if (!dw->dx_tried) {
		dw->dx_tried = true;
		dw->dx = dwindex_open(dw->dwarf_fd);
	}
	return dw->dx;
}

/* dwdie's store (dwdie.h) in dw's kept indexes. */
static enum dwindex_kind store_kind(enum dwdie_kept kind)
{
	return kind == DWDIE_KEPT_KIDS ? DWINDEX_KIDS : DWINDEX_ABBREVS;
}

static const void *store_find(void *ctx, enum dwdie_kept kind, uint64_t off, size_t *size)
{
	struct dso_dwarf *dw = ctx;
	return dwindex_find(dw->dx, store_kind(kind), off, size);
}

static void store_keep(void *ctx, enum dwdie_kept kind, uint64_t off, void *p, size_t size)
{
	struct dso_dwarf *dw = ctx;
	dwindex_add(dw->dx, store_kind(kind), off, p, size);
}

/* Line tables of fewer rows are scanned each run, not kept. */
#define LINES_MIN_ROWS 1024

/* cu's line table from dwline, or NULL: libdw decides. Cached by the
 * table's offset (libdw's key too: CUs sharing a table share the first
 * one's comp_dir). */
static struct dwline *cu_lines(struct dso_dwarf *dw, struct lazy_cu *lc, struct dwdie_cu *dc)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Attribute a;
	Dwarf_Word off;
	uint64_t v;
	uint8_t unit_type = 0, asz = 0;
	/* the CU DIE's attributes through dwdie's reader of the CU when there
	 * is one (libdw would read the CU's whole abbreviation table for
	 * them: GCC puts the CU's abbreviation last), else libdw's */
	int h = dc ? dwdie_cu_udata(dc, DW_AT_stmt_list, &v) : -1;
	if (!line_sections(dw) || !h)
		return NULL;
	if (h > 0)
		off = v;
	else if (!(cu = lcu(lc)) || !dwarf_attr(cu, DW_AT_stmt_list, &a) || dwarf_formudata(&a, &off))
		return NULL;
	struct dwline *t = hmap_get(&dw->lines, off + 1);
	if (t)
		return t == &no_lines ? NULL : t;
	bool unit_ok;
	if (dc) {
		/* dwdie reads compile units only (DWARF 5: DW_UT_compile) */
		unit_ok = true;
		asz = (uint8_t)dwdie_cu_addr_size(dc);
	} else {
		unit_ok = (cu = lcu(lc)) &&
			  !dwarf_cu_info(cu->cu, NULL, &unit_type, NULL, NULL, NULL, &asz, NULL) &&
			  unit_type != DW_UT_split_compile && unit_type != DW_UT_split_type;
	}
	if (unit_ok) {
		const char *comp_dir = NULL;
		h = dc ? dwdie_cu_string(dc, DW_AT_comp_dir, &comp_dir) : -1;
		if (h < 0 && (cu = lcu(lc)) && dwarf_attr(cu, DW_AT_comp_dir, &a))
			comp_dir = dwarf_formstring(&a);
		struct dwindex *dx = dwindex_of(dw);
		size_t isz;
		const void *idx = dx ? dwindex_find(dx, DWINDEX_LINES, off, &isz) : NULL;
		bool used = false;
		t = idx ? dwline_open_indexed(&dw->sec, off, comp_dir, asz, idx, isz, &used)
			: dwline_open(&dw->sec, off, comp_dir, asz);
		/* kept: tables whose scan costs more than their share of a file */
		size_t size;
		if (t && dx && !used && t->nrows >= LINES_MIN_ROWS && (size = dwline_index(t, NULL))) {
			void *p = xmalloc(size);
			dwline_index(t, p);
			dwindex_add(dx, DWINDEX_LINES, off, p, size);
		}
	}
	hmap_put(&dw->lines, off + 1, t ? t : &no_lines);
	return t;
}

struct cu_index;
static struct dwline *ix_lines(struct dso_dwarf *dw, struct cu_index *ix, struct lazy_cu *lc);

static const char *file_name(struct symbols *s, struct dso_dwarf *dw, struct cu_index *ix,
			     struct lazy_cu *lc, Dwarf_Word idx)
{
	struct dwline *t = ix_lines(dw, ix, lc);
	if (t) {
		const char *f = dwline_file(t, idx);
		return f ? symbols_intern(s, f) : NULL;
	}
	Dwarf_Files *files;
	size_t nf;
	Dwarf_Die *cu = lcu(lc);
	if (!cu || dwarf_getsrcfiles(cu, &files, &nf) || idx >= nf)
		return NULL;
	return symbols_intern(s, dwarf_filesrc(files, idx, NULL, NULL));
}

static void inlines_keep(struct dso *d);
static void inlines_release(struct dso *d);

/* d's DWARF state, created on first use: libdw over the debug file (its
 * decompressed copy from the cache when its sections are compressed; the
 * first open stores that copy), else over the binary itself. */
static struct dso_dwarf *dso_dwarf_of(struct dso *d)
{
	if (d->dw)
		return d->dw;
	struct dso_dwarf *dw = xcalloc(1, sizeof(*dw));
	hmap_init(&dw->cu_index);
	amap_init(&dw->inl);
	hmap_init(&dw->lines);
	dw->cache_fd = -1;
	dw->dwarf_fd = -1;
	if (d->debug_elf) {
		bool cache = dwcache_wanted(d->debug_elf);
		if (cache)
			dw->cache_elf = dwcache_open(d->debug_elf, &dw->cache_fd);
		if (dw->cache_elf) {
			dw->dwarf = dwarf_begin_elf(dw->cache_elf, DWARF_C_READ, NULL);
			/* the copy's sections are the debug file's, decompressed
			 * (as dwline reads the debug file's): its tables too */
			dw->dwarf_fd = d->debug_fd;
			if (!dw->dwarf) {
				elf_end(dw->cache_elf);
				close(dw->cache_fd);
				dw->cache_elf = NULL;
				dw->cache_fd = -1;
			}
		}
		if (!dw->dwarf) {
			dw->dwarf = dwarf_begin_elf(d->debug_elf, DWARF_C_READ, NULL);
			dw->dwarf_fd = d->debug_fd;
			if (dw->dwarf && cache)
				dwcache_store(d->debug_elf);
		}
	}
	if (!dw->dwarf && d->elf) {
		dw->dwarf = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL);
		dw->dwarf_fd = d->fd;
	}
	d->dw = dw;
	d->dw_keep = inlines_keep;
	d->dw_release = inlines_release;
	return dw;
}

/* Assembler CUs (gas) carry one subprogram per symbol alias, all with the
 * same range; addr2line (and so perf) names the last of them. */
static void last_alias(Dwarf_Die *cu, Dwarf_Die *inner, uint64_t svma)
{
	Dwarf_Attribute a;
	Dwarf_Word lang;
	if (!dwarf_attr(cu, DW_AT_language, &a) || dwarf_formudata(&a, &lang) ||
	    lang != DW_LANG_Mips_Assembler)
		return;
	Dwarf_Die d = *inner;
	while (dwarf_siblingof(&d, &d) == 0) {
		if (dwarf_tag(&d) == DW_TAG_subprogram && dwarf_haspc(&d, svma) > 0)
			*inner = d;
	}
}

/* What a2l_decide (a2l.h) needs to replay addr2line's name for the
 * innermost entry e at rel: the ELF symbol covering rel and whether it
 * starts where the DIE does. Not for languages that do not mangle. */
static void a2l_prepare(struct symbols *s, struct dso *d, Dwarf *dbg, Dwarf_Word lang,
			uint64_t off, uint64_t rel, struct inline_entry *e)
{
	/* binutils treats DW_AT_name as the linkage name in languages that do
	 * not mangle (C, assembler, Fortran 77, Pascal, ...); lang: the
	 * DIE's CU's */
	switch (lang) {
	case DW_LANG_C89: case DW_LANG_C: case DW_LANG_C99: case DW_LANG_C11:
	case DW_LANG_Mips_Assembler: case DW_LANG_Fortran77: case DW_LANG_Pascal83:
	case DW_LANG_Cobol74: case DW_LANG_Cobol85: case DW_LANG_PLI: case DW_LANG_UPC:
		return;
	case DW_LANG_Go:
		/* not in binutils' list, but Go's DW_AT_name is the symbol's
		 * name ("sort.Ints"): addr2line would name an inlined Go
		 * function after the ELF symbol of its caller, a frame perf
		 * prints as the caller once more. perf 6.1 never unwinds a Go
		 * stack past its leaf with DWARF, so only a leaf inside an
		 * inlined call could show that; scorch names it "sort.Ints" */
		return;
	default:
		break;
	}
	const struct symtab *a2l_syms = dso_a2l_syms(d);
	if (!a2l_syms->nr)
		return;
	e->a2l = true;
	e->die = off;
	const struct sym *y = symtab_find(a2l_syms, rel);
	Dwarf_Die die;
	if (y) {
		e->alt_name = symbols_demangle(s, y->name);
		Dwarf_Addr base, lo, hi;
		uint64_t lo_rel;
		e->keep_alt = dwarf_offdie(dbg, off, &die) && dwarf_ranges(&die, 0, &base, &lo, &hi) > 0 &&
			      dso_svma_to_rel(d, lo, &lo_rel) && lo_rel == y->start;
	}
}

/*
 * Per-CU index of function ranges, built once per CU: finding the function
 * of an address is then a binary search instead of a walk over the CU's
 * DIE tree (dwarf_getscopes, dwarf_getscopes_die), which was the largest
 * cost of symbolizing C++ code.
 */
struct fn_range {
	uint64_t lo, hi;
	uint64_t off;      /* DIE offset */
	uint64_t seq;      /* DIE order (64 bits: no padding in a kept index) */
};

struct cu_index {
	struct fn_range *r;
	size_t n, cap;
	bool asm_cu;
	Dwarf_Word lang;       /* DW_AT_language, 0 when none */
	struct dwdie_cu *dc;   /* dwdie's reader of the CU, or NULL: libdw's walks */
	/* the line table (cu_lines), looked up on the first address */
	struct dwline *lt;
	bool lt_done;
};

static int fn_range_cmp(const void *a, const void *b)
{
	const struct fn_range *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* C has no functions inside types: its CUs' structs and unions need no walk
 * (on a C program's big CUs that walk was most of the index's cost) */
static bool lang_is_c(Dwarf_Word lang)
{
	return lang == DW_LANG_C89 || lang == DW_LANG_C || lang == DW_LANG_C99 ||
	       lang == DW_LANG_C11 || lang == 0x2c /* DW_LANG_C17 */;
}

static void add_fn(struct cu_index *ix, uint64_t lo, uint64_t hi, uint64_t off)
{
	if (lo >= hi)
		return;
	if (ix->n == ix->cap) {
		ix->cap = ix->cap ? ix->cap * 2 : 64;
		ix->r = xrealloc(ix->r, ix->cap * sizeof(*ix->r));
	}
	ix->r[ix->n] = (struct fn_range){ lo, hi, off, ix->n };
	ix->n++;
}

static void add_ranges(struct cu_index *ix, Dwarf_Die *fn)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(fn, off, &base, &lo, &hi)) > 0)
		add_fn(ix, lo, hi, dwarf_dieoffset(fn));
}

static void index_scope(struct cu_index *ix, Dwarf_Die *parent, int depth, bool types)
{
	Dwarf_Die c;
	if (depth > 8 || dwarf_child(parent, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);
		if (tag == DW_TAG_subprogram) {
			add_ranges(ix, &c);
		} else if (types && (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
				     tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
				     tag == DW_TAG_module)) {
			index_scope(ix, &c, depth + 1, types);
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* dwdie's walks (dwdie.h) report here */
struct dwdie_ctx {
	struct cu_index *ix;
	Dwarf *dwarf;
};

static void dwdie_range(void *ctx, uint64_t die_off, uint64_t lo, uint64_t hi)
{
	add_fn(((struct dwdie_ctx *)ctx)->ix, lo, hi, die_off);
}

static void dwdie_ask(void *ctx, uint64_t die_off)
{
	struct dwdie_ctx *x = ctx;
	Dwarf_Die fn;
	if (dwarf_offdie(x->dwarf, die_off, &fn))
		add_ranges(x->ix, &fn);
}

static int dwdie_haspc(void *ctx, uint64_t die_off, uint64_t pc)
{
	struct dwdie_ctx *x = ctx;
	Dwarf_Die d;
	return dwarf_offdie(x->dwarf, die_off, &d) ? dwarf_haspc(&d, pc) : -1;
}

/* The CU's functions by dwdie, else (it gave up) by libdw's walk; dwdie's
 * reader of the CU is kept for the inline walks when it did the first. */
static void index_cu(struct dso_dwarf *dw, struct cu_index *ix, struct lazy_cu *lc, bool types,
		     struct dwdie_cu *dc)
{
	if (dc) {
		struct dwdie_ctx x = { ix, dw->dwarf };
		struct dwdie_visitor v = { dwdie_range, dwdie_ask, dwdie_haspc, &x };
		if (dwdie_functions(dc, &v)) {
			ix->dc = dc;
			return;
		}
		dwdie_cu_free(dc);
		ix->n = 0;
	}
	Dwarf_Die *cu = lcu(lc);
	if (cu)
		index_scope(ix, cu, 0, types);
}

/*
 * A CU's index kept across runs (dwindex.h, DWINDEX_FUNCS): the sorted
 * ranges as index_cu and the sort made them, and whether dwdie made them
 * (its reader of the CU then does the inline walks, as after index_cu).
 * FN_INDEX_VERSION names the way index_cu builds an index: change it with
 * that. Used only when it checks: its size, every range non-empty, the
 * order of the sort.
 */
struct fn_index_hdr {
	uint32_t version;
	uint32_t by_dwdie;
	uint64_t n;
};
#define FN_INDEX_VERSION 1

/* ix's ranges from the kept index p: 1 (libdw made them), 2 (dwdie), 0
 * when p does not check. */
static int fn_index_load(struct cu_index *ix, const void *p, size_t size)
{
	struct fn_index_hdr h;
	if (size < sizeof h)
		return 0;
	memcpy(&h, p, sizeof h);
	if (h.version != FN_INDEX_VERSION || h.by_dwdie > 1 ||
	    h.n > (size - sizeof h) / sizeof(struct fn_range) ||
	    size != sizeof h + h.n * sizeof(struct fn_range))
		return 0;
	size_t n = (size_t)h.n;
	struct fn_range *r = xmalloc((n ? n : 1) * sizeof *r);
	memcpy(r, (const uint8_t *)p + sizeof h, n * sizeof *r);
	for (size_t i = 0; i < n; i++)
		if (r[i].lo >= r[i].hi || (i && fn_range_cmp(&r[i - 1], &r[i]) > 0)) {
			free(r);
			return 0;
		}
	ix->r = r;
	ix->n = ix->cap = n;
	return h.by_dwdie ? 2 : 1;
}

static void fn_index_keep(struct dwindex *dx, uint64_t key, const struct cu_index *ix)
{
	struct fn_index_hdr h = { FN_INDEX_VERSION, ix->dc != NULL, ix->n };
	size_t size = sizeof h + ix->n * sizeof *ix->r;
	uint8_t *p = xmalloc(size);
	memcpy(p, &h, sizeof h);
	if (ix->n)
		memcpy(p + sizeof h, ix->r, ix->n * sizeof *ix->r);
	dwindex_add(dx, DWINDEX_FUNCS, key, p, size);
}

static struct cu_index *cu_index_of(struct dso_dwarf *dw, struct lazy_cu *lc)
{
	uint64_t key = lc->die_off;
	Dwarf_Die *cu;
	struct cu_index *ix = hmap_get(&dw->cu_index, key);
	if (ix)
		return ix;
	ix = xcalloc(1, sizeof(*ix));
	/* dwdie's reader of the CU (its language read through it), else
	 * libdw's walks */
	if (!dw->dies_state)
		dw->dies_state = dwdie_sections_of(dwarf_getelf(dw->dwarf), &dw->dies) ? 1 : -1;
	struct dwdie_store *store = NULL;
	if (dwindex_of(dw)) {
		dw->store = (struct dwdie_store){ store_find, store_keep, dw };
		store = &dw->store;
	}
	struct dwdie_cu *dc = dw->dies_state > 0 ?
		dwdie_cu_open_stored(&dw->dies, lc->hdr_off, false, store) : NULL;
	Dwarf_Attribute a;
	Dwarf_Word lang = 0;
	uint64_t v;
	int h = dc ? dwdie_cu_udata(dc, DW_AT_language, &v) : -1;
	if (h > 0)
		lang = v;
	else if (h < 0 && (cu = lcu(lc)) && dwarf_attr(cu, DW_AT_language, &a))
		dwarf_formudata(&a, &lang);
	ix->asm_cu = lang == DW_LANG_Mips_Assembler;
	ix->lang = lang;
	bool types = !lang_is_c(lang);
	if (dc)
		dwdie_cu_set_types(dc, types);
	struct dwindex *dx = dwindex_of(dw);
	size_t isz;
	const void *kept = dx ? dwindex_find(dx, DWINDEX_FUNCS, key, &isz) : NULL;
	int st = kept ? fn_index_load(ix, kept, isz) : 0;
	if (st == 2 && dc) {
		ix->dc = dc; /* dwdie made it: its reader does the inline walks */
	} else if (st == 1) {
		dwdie_cu_free(dc); /* libdw made it: its walks */
	} else if (st) {
		free(ix->r); /* (dwdie made it, but cannot read the CU now) */
		ix->r = NULL;
		ix->n = ix->cap = 0;
		st = 0;
	}
	if (!st) {
		index_cu(dw, ix, lc, types, dc);
		ksort_u64(ix->r, ix->n, sizeof(*ix->r), offsetof(struct fn_range, lo), fn_range_cmp);
		if (dx)
			fn_index_keep(dx, key, ix);
	}
	hmap_put(&dw->cu_index, key, ix);
	return ix;
}

/* The function DIE containing svma: the first in DIE order, or for gas's
 * alias subprograms the last (see last_alias); *ixp: the CU's index. */
static bool index_find(struct dso_dwarf *dw, struct lazy_cu *lc, uint64_t svma, uint64_t *out,
		       struct cu_index **ixp)
{
	struct cu_index *ix = cu_index_of(dw, lc);
	*ixp = ix;
	if (!ix || !ix->n)
		return false;
	size_t lo = UPPER_BOUND(ix->r, ix->n, lo, svma);
	const struct fn_range *best = NULL;
	/* ranges of different functions do not overlap, but aliases share one
	 * and a function may have several; look back over a few */
	for (size_t i = lo, k = 0; i-- > 0 && k < 64; k++) {
		const struct fn_range *r = &ix->r[i];
		if (svma >= r->lo && svma < r->hi) {
			if (!best || (ix->asm_cu ? r->seq > best->seq : r->seq < best->seq))
				best = r;
		}
	}
	if (best)
		*out = best->off;
	return best != NULL;
}

/* Descend from a function DIE to the innermost inlined subroutine at svma;
 * path[0] is the function, path[n-1] the innermost. */
static int descend_inlines(Dwarf_Die *fn, uint64_t svma, Dwarf_Die *path, int max)
{
	int n = 0;
	path[n++] = *fn;
	Dwarf_Die scope = *fn;
	for (int guard = 0; guard < 256 && n < max; guard++) {
		Dwarf_Die c;
		bool found = false, descend = false;
		if (dwarf_child(&scope, &c) != 0)
			break;
		do {
			int tag = dwarf_tag(&c);
			if (tag == DW_TAG_inlined_subroutine) {
				if (dwarf_haspc(&c, svma) > 0) {
					path[n++] = c;
					scope = c;
					found = true;
					break;
				}
			} else if (tag == DW_TAG_lexical_block || tag == DW_TAG_try_block ||
				   tag == DW_TAG_catch_block || tag == DW_TAG_with_stmt ||
				   tag == DW_TAG_common_block) {
				if (dwarf_haspc(&c, svma) > 0) {
					scope = c;
					descend = true;
					break;
				}
			}
		} while (dwarf_siblingof(&c, &c) == 0);
		if (!found && !descend)
			break;
	}
	return n;
}

/* descend_inlines by dwdie: the DIEs from their offsets; -1 when dwdie
 * (or an offset) leaves it to libdw. */
static int dwdie_path(struct dso_dwarf *dw, struct dwdie_cu *dc, Dwarf_Die *fn, uint64_t svma,
		      Dwarf_Die *path, int max)
{
	uint64_t offs[64];
	struct dwdie_ctx x = { NULL, dw->dwarf };
	struct dwdie_visitor v = { dwdie_range, dwdie_ask, dwdie_haspc, &x };
	int n = dwdie_inlines(dc, dwarf_dieoffset(fn), svma, offs, max < 64 ? max : 64, &v);
	if (n <= 0)
		return -1;
	path[0] = *fn;
	for (int i = 1; i < n; i++)
		if (!dwarf_offdie(dw->dwarf, offs[i], &path[i]))
			return -1;
	return n;
}

static int cu_range_cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return x->cu_off < y->cu_off ? -1 : x->cu_off > y->cu_off;
}

/* The .debug_info offsets of the CUs .debug_aranges lists (dwdie.h), or
 * none without the section. */
static size_t aranges_listed(Elf *e, uint64_t **out)
{
	*out = NULL;
	const uint8_t *p = NULL;
	size_t size = 0;
	if (!e || !elffile_section_bytes(e, ".debug_aranges", &p, &size) || !p)
		return 0;
	const unsigned char *ident = (const unsigned char *)elf_getident(e, NULL);
	return dwdie_aranges_cus(p, size, ident && ident[EI_DATA] == ELFDATA2MSB, out);
}

/* The CU whose own ranges (DW_AT_low_pc/high_pc or DW_AT_ranges of its
 * compile-unit DIE) hold svma, for an address dwarf_addrdie cannot place
 * because .debug_aranges does not list its CU: clang (and so rustc) writes
 * no .debug_aranges by default, and a binary linking GCC and clang objects
 * has the GCC CUs' sets only. perf (through addr2line) and
 * hotspot-perfparser (its own CU ranges) find such CUs, and show the inline
 * frames and file:line there. Built once per DSO, on the first such
 * address, from the CUs .debug_aranges does not list: a file from GCC alone
 * lists every CU, and then no CU's DIE is read (libdw keeps each CU it
 * reads: reading them all cost 2.5 MB on the 2.3 GB build recording, for
 * addresses of libc and ld.so in no CU). Of overlapping ranges the one
 * starting last at or before svma is taken (the first CU in .debug_info
 * order for equal starts). */
static bool cu_by_ranges(struct dso_dwarf *dw, uint64_t svma, Dwarf_Die *cu)
{
	if (!dw->cur_built) {
		dw->cur_built = true;
		uint64_t *listed;
		size_t nlisted = aranges_listed(dwarf_getelf(dw->dwarf), &listed);
		size_t cap = 0;
		Dwarf_Off off = 0, next;
		size_t hsize;
		for (unsigned units = 0;
		     units < (1u << 20) && !dwarf_nextcu(dw->dwarf, off, &next, &hsize, NULL, NULL, NULL);
		     off = next, units++) {
			size_t at = upper_bound_u64(listed, nlisted, sizeof *listed, 0, off);
			if (at && listed[at - 1] == off)
				continue;
			Dwarf_Die die;
			if (!dwarf_offdie(dw->dwarf, off + hsize, &die) ||
			    dwarf_tag(&die) != DW_TAG_compile_unit)
				continue;
			Dwarf_Addr base, lo, hi;
			ptrdiff_t it = 0;
			unsigned nr = 0;
			while (nr++ < (1u << 16) && (it = dwarf_ranges(&die, it, &base, &lo, &hi)) > 0) {
				if (lo >= hi)
					continue;
				if (ARRAY_GROW(dw->cur, cap, dw->nr_cur + 1, (size_t)1 << 22))
					break;
				dw->cur[dw->nr_cur++] = (struct cu_range){ lo, hi, dwarf_dieoffset(&die) };
			}
		}
		free(listed);
		ksort_u64(dw->cur, dw->nr_cur, sizeof *dw->cur, offsetof(struct cu_range, lo),
			  cu_range_cmp);
	}
	/* the last range starting at or before svma */
	size_t at = UPPER_BOUND(dw->cur, dw->nr_cur, lo, svma);
	if (!at || svma >= dw->cur[at - 1].hi)
		return false;
	return dwarf_offdie(dw->dwarf, dw->cur[at - 1].cu_off, cu) != NULL;
}

/* The arange table kept across runs (dwindex.h, DWINDEX_ARANGES, at 0): a
 * version, the count, then the table as dwdie_aranges made it. Making it
 * reads the header of every CU the section lists, scattered over
 * .debug_info: libpython3.11's 2,322 CUs cost 180 page faults, a third of
 * a small recording's. */
/* the source that made it (mk/unwind.mk): inlines.c and dwdie.c */
#define ARANGES_VERSION (INLINES_SRC_HASH ^ 1)
struct aranges_hdr {
	uint64_t version, n;
};

/* dw's arange table, from the kept indexes or made (and then kept): 1,
 * or -1 where libdw must answer. */
static int aranges_load(struct dso_dwarf *dw)
{
	/* (elffile_section_bytes leaves them as they are when there is
	 * no such section: no .debug_aranges is no range) */
	const uint8_t *p = NULL;
	size_t size = 0;
	Elf *e = dwarf_getelf(dw->dwarf);
	if (!dw->dies_state)
		dw->dies_state = dwdie_sections_of(e, &dw->dies) ? 1 : -1;
	if (dw->dies_state < 0 || !elffile_section_bytes(e, ".debug_aranges", &p, &size))
		return -1;
	struct dwindex *dx = dwindex_of(dw);
	size_t ksz = 0;
	const uint8_t *kept = dx ? dwindex_find(dx, DWINDEX_ARANGES, 0, &ksz) : NULL;
	if (kept && ksz > sizeof(struct aranges_hdr)) {
		struct aranges_hdr h;
		memcpy(&h, kept, sizeof h);
		size_t body = ksz - sizeof h;
		if (h.version == ARANGES_VERSION && h.n == body / sizeof *dw->ar &&
		    dwdie_aranges_kept(&dw->dies, kept + sizeof h, body, &dw->ar, &dw->nar)) {
			dw->ar_kept = true;
			return 1;
		}
	}
	struct dwdie_arange *ar;
	if (!dwdie_aranges(&dw->dies, p, size, &ar, &dw->nar))
		return -1;
	dw->ar = ar;
	if (dx && dw->nar) {
		struct aranges_hdr h = { ARANGES_VERSION, dw->nar };
		size_t body = dw->nar * sizeof *ar;
		uint8_t *k = xmalloc(sizeof h + body);
		memcpy(k, &h, sizeof h);
		memcpy(k + sizeof h, ar, body);
		dwindex_add(dx, DWINDEX_ARANGES, 0, k, sizeof h + body);
	}
	return 1;
}

/* The addresses kept across runs (dwindex.h, DWINDEX_NOSCOPE, at 0) that
 * no function of their CU's index holds and where dwarf_getscopes, which
 * walks the CU's whole DIE tree, found no function either (code between
 * functions, or of a function whose DIE has no ranges): a version, the
 * count, the addresses in increasing order. Such an address cost 2.1 M
 * instructions in libpython3.11 (its CU: 86 KB of DIEs), each run. */
#define NOSCOPE_VERSION (INLINES_SRC_HASH ^ 2)
#define NOSCOPE_MAX 65536

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The kept addresses of dx into dw (none when they do not check). */
static void noscope_load(struct dso_dwarf *dw, struct dwindex *dx)
{
	dw->ns_kept = NULL;
	dw->nns_kept = 0;
	size_t size = 0;
	const uint8_t *p = dx ? dwindex_find(dx, DWINDEX_NOSCOPE, 0, &size) : NULL;
	struct aranges_hdr h; /* the same two words */
	if (!p || size < sizeof h)
		return;
	memcpy(&h, p, sizeof h);
	const uint64_t *v = (const uint64_t *)(p + sizeof h);
	bool ok = h.version == NOSCOPE_VERSION && h.n <= NOSCOPE_MAX && size == sizeof h + h.n * sizeof *v;
	for (size_t i = 1; ok && i < h.n; i++)
		ok = v[i] > v[i - 1];
	if (ok) {
		dw->ns_kept = v;
		dw->nns_kept = (size_t)h.n;
	}
}

/* Whether an earlier run found svma to be such an address. */
static bool noscope_known(struct dso_dwarf *dw, uint64_t svma)
{
	if (!dw->ns_loaded) {
		dw->ns_loaded = true;
		noscope_load(dw, dwindex_of(dw));
	}
	size_t at = upper_bound_u64(dw->ns_kept, dw->nns_kept, sizeof *dw->ns_kept, 0, svma);
	return at && dw->ns_kept[at - 1] == svma;
}

/* svma is such an address: kept on release (when caches are on). */
static void noscope_add(struct dso_dwarf *dw, uint64_t svma)
{
	if (dwindex_of(dw) && dw->nns_new < NOSCOPE_MAX &&
	    !ARRAY_GROW(dw->ns_new, dw->cap_ns_new, dw->nns_new + 1, NOSCOPE_MAX))
		dw->ns_new[dw->nns_new++] = svma;
}

/* The kept addresses and this run's, as one entry of dx. */
static void noscope_keep(struct dso_dwarf *dw)
{
	if (!dw->nns_new || !dw->dx)
		return;
	/* addresses stored since the kept ones were read (another thread's of
	 * this run, another run's): those are the kept ones now, so that this
	 * store keeps them with this run's (dwindex.h; the tables that read
	 * the old image in place are freed) */
	dwindex_lock();
	if (dwindex_refresh(&dw->dx))
		noscope_load(dw, dw->dx);
	qsort(dw->ns_new, dw->nns_new, sizeof *dw->ns_new, u64_cmp);
	size_t cap = dw->nns_kept + dw->nns_new;
	if (cap > NOSCOPE_MAX) {
		dwindex_unlock();
		return;
	}
	struct aranges_hdr h = { NOSCOPE_VERSION, 0 };
	uint8_t *p = xmalloc(sizeof h + cap * sizeof(uint64_t));
	uint64_t *v = (uint64_t *)(p + sizeof h);
	size_t i = 0, j = 0, n = 0;
	while (i < dw->nns_kept || j < dw->nns_new) {
		uint64_t x = j == dw->nns_new || (i < dw->nns_kept && dw->ns_kept[i] <= dw->ns_new[j]) ?
				     dw->ns_kept[i++] : dw->ns_new[j++];
		if (!n || v[n - 1] != x)
			v[n++] = x;
	}
	h.n = n;
	memcpy(p, &h, sizeof h);
	dwindex_add(dw->dx, DWINDEX_NOSCOPE, 0, p, sizeof h + n * sizeof(uint64_t));
	dwindex_store_now(dw->dx); /* before another thread looks for a newer image */
	dwindex_unlock();
}

/* The CU holding svma from scorch's read of .debug_aranges (dwdie.h):
 * 1 (*lc filled, no libdw call made), 0 none holds it (as dwarf_addrdie
 * would say), -1 libdw must answer for this file. Built on first use. */
static int aranges_find(struct dso_dwarf *dw, uint64_t svma, struct lazy_cu *lc)
{
	if (!dw->ar_state)
		dw->ar_state = aranges_load(dw);
	if (dw->ar_state < 0)
		return -1;
	const struct dwdie_arange *a = dwdie_arange_find(dw->ar, dw->nar, svma);
	if (!a)
		return 0;
	*lc = (struct lazy_cu){ dw->dwarf, a->cu_die, a->cu, { 0 }, 0 };
	return 1;
}

/*
 * One scope of an inline chain, innermost first: read by dwdie
 * (dwdie_info: the same answers as libdw's calls, or none) or by libdw
 * from the DIE. The chain's entries are made from these alike.
 */
struct chain {
	int n;
	Dwarf_Die *scopes;               /* libdw's */
	const struct dwdie_info *info;   /* else dwdie's */
	const uint64_t *offs;            /* with info: the DIEs' offsets */
};

static int chain_tag(const struct chain *c, int i)
{
	return c->info ? (int)c->info[i].tag : dwarf_tag(&c->scopes[i]);
}

static const char *chain_name(struct symbols *s, const struct chain *c, int i)
{
	if (!c->info)
		return die_name(s, &c->scopes[i]);
	return c->info[i].name ? symbols_demangle(s, c->info[i].name) : NULL;
}

static bool chain_has_linkage(const struct chain *c, int i)
{
	return c->info ? c->info[i].has_linkage : has_linkage_name(&c->scopes[i]);
}

static uint64_t chain_off(const struct chain *c, int i)
{
	return c->info ? c->offs[i] : dwarf_dieoffset(&c->scopes[i]);
}

/* DW_AT_call_file (0), _line (1), _column (2) as dwarf_formudata reads
 * it; false when absent or unreadable. */
static bool chain_call(const struct chain *c, int i, int which, uint64_t *v)
{
	if (c->info) {
		const struct dwdie_info *x = &c->info[i];
		bool has = which == 0 ? x->has_call_file : which == 1 ? x->has_call_line : x->has_call_column;
		*v = which == 0 ? x->call_file : which == 1 ? x->call_line : x->call_column;
		return has;
	}
	static const unsigned at[3] = { DW_AT_call_file, DW_AT_call_line, DW_AT_call_column };
	Dwarf_Attribute a;
	Dwarf_Word w;
	if (!dwarf_attr(&c->scopes[i], at[which], &a) || dwarf_formudata(&a, &w))
		return false;
	*v = w;
	return true;
}

/* The CU's line table (cu_lines), kept with its index. */
static struct dwline *ix_lines(struct dso_dwarf *dw, struct cu_index *ix, struct lazy_cu *lc)
{
	if (!ix)
		return cu_lines(dw, lc, NULL);
	if (!ix->lt_done) {
		ix->lt = cu_lines(dw, lc, ix->dc);
		ix->lt_done = true;
	}
	return ix->lt;
}

/* The inline chain at svma in the function at fn_off by dwdie alone (its
 * walk, then each DIE's tag, names and call site); false: ask libdw. */
static bool dwdie_chain(struct dso_dwarf *dw, struct cu_index *ix, uint64_t fn_off, uint64_t svma,
			uint64_t *offs, struct dwdie_info *info, int *np)
{
	struct dwdie_ctx x = { NULL, dw->dwarf };
	struct dwdie_visitor v = { dwdie_range, dwdie_ask, dwdie_haspc, &x };
	uint64_t path[64];
	int n = dwdie_inlines(ix->dc, fn_off, svma, path, 64, &v);
	if (n <= 0)
		return false;
	for (int i = 0; i < n; i++) {
		offs[i] = path[n - 1 - i];
		if (!dwdie_info(ix->dc, offs[i], &info[i]))
			return false;
	}
	*np = n;
	return true;
}

/* The scopes at svma by libdw (the CU's whole DIE tree): from the
 * innermost function or inline, its concrete nesting. False: none (an
 * address without one is remembered unless the CU index has it). */
static bool libdw_chain(struct dso_dwarf *dw, Dwarf_Die *cu, uint64_t svma, bool in_index,
			struct chain *ch)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(cu, svma, &scopes);
	Dwarf_Die inner;
	bool found = false;
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram) {
			inner = scopes[i];
			found = true;
			break;
		}
	}
	free(scopes);
	scopes = NULL;
	if (!found) {
		if (!in_index)
			noscope_add(dw, svma);
		return false;
	}
	if (dwarf_tag(&inner) == DW_TAG_subprogram)
		last_alias(cu, &inner, svma);
	/* the concrete nesting (dwarf_getscopes follows abstract origins) */
	n = dwarf_getscopes_die(&inner, &scopes);
	if (n <= 0) {
		free(scopes);
		return false;
	}
	*ch = (struct chain){ n, scopes, NULL, NULL };
	return true;
}

/* The scopes at svma in CU lc, innermost first, into ch (its info and
 * offs in the caller's offs/info, 64 each; ch->scopes for the caller to
 * free); *ixp: the CU's index, if it has one. False: none. */
static bool scope_chain(struct dso_dwarf *dw, struct lazy_cu *lc, uint64_t svma,
			struct cu_index **ixp, uint64_t *offs, struct dwdie_info *info,
			struct chain *ch)
{
	Dwarf_Die *cu, fn, path[64];
	uint64_t fn_off;
	int n;
	*ch = (struct chain){ 0 };
	bool in_index = index_find(dw, lc, svma, &fn_off, ixp);
	struct cu_index *ix = *ixp;
	if (!in_index && noscope_known(dw, svma))
		return false; /* as dwarf_getscopes below found in an earlier run */
	if (in_index && ix->dc && dwdie_chain(dw, ix, fn_off, svma, offs, info, &n)) {
		/* fast path: the function from the CU index, its inlines and
		 * what each scope says, all read by dwdie */
		*ch = (struct chain){ n, NULL, info, offs };
		return true;
	}
	if (!(cu = lcu(lc)))
		return false;
	if (!in_index || !dwarf_offdie(dw->dwarf, fn_off, &fn))
		return libdw_chain(dw, cu, svma, in_index, ch);
	/* the function from the CU index, then its inlines (dwdie's walk,
	 * else libdw's); scopes innermost first, as dwarf_getscopes_die
	 * gives them */
	int np = ix->dc ? dwdie_path(dw, ix->dc, &fn, svma, path, 64) : -1;
	if (np < 0)
		np = descend_inlines(&fn, svma, path, 64);
	Dwarf_Die *scopes = xmalloc((size_t)np * sizeof(*scopes));
	for (int i = 0; i < np; i++)
		scopes[i] = path[np - 1 - i];
	*ch = (struct chain){ np, scopes, NULL, NULL };
	return true;
}

/* The file:line:column of svma, the innermost frame's, from the line
 * table (libdw decodes and sorts a CU's whole table on its first lookup,
 * and the file table of call sites needs it too: outputs that print no
 * file:line skip both). */
static void innermost_line(struct symbols *s, struct dso_dwarf *dw, struct cu_index *ix,
			   struct lazy_cu *lc, uint64_t svma, const char **file, int *line, int *col)
{
	struct dwline *lt = ix_lines(dw, ix, lc);
	Dwarf_Die *cu;
	Dwarf_Line *dl;
	if (lt) {
		struct dwline_row row;
		if (dwline_find(lt, svma, &row)) {
			/* as dwarf_linesrc: no name for a bad file index */
			*file = symbols_intern(s, dwline_file(lt, row.file));
			*line = row.line;
			*col = row.column;
		}
	} else if ((cu = lcu(lc)) && (dl = dwarf_getsrc_die(cu, svma))) {
		*file = symbols_intern(s, dwarf_linesrc(dl, NULL, NULL));
		dwarf_lineno(dl, line);
		dwarf_linecol(dl, col);
	}
}

/* The CU's DW_AT_language (0: none). */
static Dwarf_Word cu_language(struct cu_index *ix, struct lazy_cu *lc)
{
	Dwarf_Word lang = 0;
	Dwarf_Attribute a;
	Dwarf_Die *cu;
	if (ix)
		lang = ix->lang;
	else if ((cu = lcu(lc)) && dwarf_attr(cu, DW_AT_language, &a))
		dwarf_formudata(&a, &lang);
	return lang;
}

static struct inl_result *compute_inlines(struct symbols *s, struct dso *d, uint64_t rel)
{
	uint64_t svma;
	struct dso_dwarf *dw = dso_dwarf_of(d);
	if (!dw->dwarf || !dso_rel_to_svma(d, rel, &svma))
		return NULL;
	/* the CU: from scorch's read of .debug_aranges (its DIE left to
	 * libdw until libdw is asked about it), else libdw's */
	struct lazy_cu lc;
	int found = aranges_find(dw, svma, &lc);
	if (found <= 0) {
		Dwarf_Die c;
		if (!(found < 0 && dwarf_addrdie(dw->dwarf, svma, &c)) && !cu_by_ranges(dw, svma, &c))
			return NULL;
		lazy_cu_of_die(&lc, dw->dwarf, &c);
	}
	struct cu_index *ix = NULL;
	uint64_t offs[64];
	struct dwdie_info info[64];
	struct chain ch;
	if (!scope_chain(dw, &lc, svma, &ix, offs, info, &ch))
		return NULL;
	struct inline_entry tmp[64];
	unsigned k = 0;
	bool lines = symbols_want_lines(s);
	const char *file = NULL;
	int line = 0, col = 0;
	if (lines)
		innermost_line(s, dw, ix, &lc, svma, &file, &line, &col);
	Dwarf_Word lang = cu_language(ix, &lc);
	for (int i = 0; i < ch.n && k < 64; i++) {
		int tag = chain_tag(&ch, i);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		tmp[k].name = chain_name(s, &ch, i);
		tmp[k].a2l = tmp[k].keep_alt = false;
		tmp[k].alt_name = NULL;
		tmp[k].die = 0;
		if (k == 0 && !chain_has_linkage(&ch, i))
			a2l_prepare(s, d, dw->dwarf, lang, chain_off(&ch, i), rel, &tmp[k]);
		tmp[k].file = file;
		tmp[k].line = (uint32_t)(line > 0 ? line : 0);
		tmp[k].column = (uint32_t)(col > 0 ? col : 0);
		k++;
		if (tag == DW_TAG_subprogram)
			break;
		if (!lines)
			continue;
		/* the caller's position is the call site of this inline */
		uint64_t w;
		file = NULL;
		line = col = 0;
		if (chain_call(&ch, i, 0, &w))
			file = file_name(s, dw, ix, &lc, w);
		if (chain_call(&ch, i, 1, &w))
			line = (int)w;
		if (chain_call(&ch, i, 2, &w))
			col = (int)w;
	}
	free(ch.scopes);
	if (!k)
		return NULL;
	struct inl_result *r = arena_alloc(symbols_arena(s), sizeof *r + k * sizeof(struct inline_entry));
	r->n = k;
	memcpy(r->e, tmp, k * sizeof tmp[0]);
	return r;
}

static struct inl_result no_inl;

unsigned dso_inlines(struct dso *d, uint64_t rel, const struct inline_entry **out)
{
	struct dso_dwarf *dw = dso_dwarf_of(d);
	if (!dw->dwarf) {
		/* no DWARF in the DSO (most of a build's binaries): no chain at
		 * any address, nothing to keep per address */
		*out = no_inl.e;
		return 0;
	}
	uint32_t v = amap_get(&dw->inl, rel);
	struct inl_result *r;
	if (v != AMAP_NONE) {
		r = v ? dw->res[v - 1] : &no_inl;
	} else {
		r = compute_inlines(d->owner, d, rel);
		if (!r) {
			r = &no_inl;
			amap_put(&dw->inl, rel, 0);
		} else if (dw->nr_res < UINT32_MAX - 1 &&
			   !ARRAY_GROW(dw->res, dw->cap_res, dw->nr_res + 1, (size_t)1 << 30)) {
			dw->res[dw->nr_res++] = r;
			amap_put(&dw->inl, rel, (uint32_t)dw->nr_res);
		} /* else not cached: computed again next time */
	}
	*out = r->e;
	return r->n;
}

static void cu_index_free(void *v)
{
	struct cu_index *ix = v;
	dwdie_cu_free(ix->dc);
	free(ix->r);
	free(ix);
}

static void lines_free(void *v)
{
	if (v != &no_lines)
		dwline_free(v);
}

static void inlines_keep(struct dso *d)
{
	struct dso_dwarf *dw = d->dw;
	if (!dw)
		return;
	noscope_keep(dw);
	dw->nns_new = 0;
	dwindex_store_now(dw->dx);
}

static void inlines_release(struct dso *d)
{
	struct dso_dwarf *dw = d->dw;
	if (!dw)
		return;
	hmap_release_vals(&dw->cu_index, cu_index_free);
	amap_release(&dw->inl);
	free(dw->res);
	free(dw->cur);
	if (!dw->ar_kept)
		free((void *)dw->ar);
	hmap_release_vals(&dw->lines, lines_free);
	noscope_keep(dw);
	free(dw->ns_new);
	dwindex_close(dw->dx); /* after the tables: they may use its indexes */
	if (dw->dwarf)
		dwarf_end(dw->dwarf);
	if (dw->cache_elf) {
		elf_end(dw->cache_elf);
		close(dw->cache_fd);
	}
	free(dw);
	d->dw = NULL;
}
