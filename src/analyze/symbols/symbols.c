/*
 * symbols.c: the DSO cache and the DSO symbol tables (see symbols.h for the
 * model).
 *
 * Why per DSO and lazily: a parallel build maps cc1 and libc hundreds of
 * times; the symbol table of each file is built once, on the first address
 * that needs it, and every process shares it. Lookups go through a
 * direct-mapped cache keyed by the session's interned file name (one
 * compare on the hot path) in front of the hash of build ids.
 *
 * The other jobs have their own files: where a DSO's files are
 * (debugfile.c), DWARF lines and inline chains (inlines.c, addr2line's
 * naming in a2l.c), kallsyms (kallsyms.c), perf-PID.map (perfmap.c), names
 * (demangle.c), the table shape (symtab.c), strings (util/arena.c). The
 * unwinder keeps its own per-DSO state (unwind_dwarf.c).
 */
#include "analyze/symbols/symbols.h"
#include "analyze/cache/symcache.h"
#include "analyze/symbols/debugfile.h"
#include "analyze/demangle/demangle.h"
#include "analyze/cache/namecache.h"
#include "analyze/symbols/elffile.h"
#include "analyze/kernel/kallsyms.h"
#include "analyze/cache/kscache.h"
#include "analyze/symbols/jitdump.h"
#include "analyze/symbols/perfmap.h"
#include "util/cachedir.h"
#include "util/hash.h"
#include "util/hugeheap.h"
#include "util/ksort.h"
#include "util/xalloc.h"

#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The version of the way load_dso builds a table (collect_syms, the PLT
 * and entry symbols, symtab_build): part of a cached table's identity
 * (symcache.h), so a change here must count it up. */
#define SYMCACHE_VERSION 2

#define DSO_FAST 256
#define DSO_WAYS 4

struct dso_fast {
	const char *name;
	uint64_t key;
	size_t bid_size;
	struct dso *dso;
};

/* symbols_kernel_lookup's answers by address: a recording's kernel frames
 * repeat (the same syscall and fault paths), and each answer is two binary
 * searches of the kernel's ~150k symbols and, for a module, a name made */
#define KSYM_FAST 1024
struct ksym_fast {
	uint64_t addr;
	const struct sym *y;
	const char *mod;
	bool set;
};

struct symbols {
	struct symbols_config cfg;
	struct sym_fast *symfast;
	struct ksym_fast *kfast; /* made on the first kernel lookup */
	struct debugfile files;
	struct dso_fast fast[DSO_FAST];
	struct dso_fast last;   /* the answer given last (consecutive frames share a DSO) */
	struct hmap dsos;       /* hash(build id or name) -> struct dso_node * */
	struct hmap bid_by_path;/* hash(path) -> struct bid_node * */
	struct hmap perfmaps;   /* pid -> struct symtab * (or &no_symtab) */
	struct hmap jitdumps;   /* hash(recorded path) -> struct jit_node * */
	struct arena arena;     /* names, inline chains, interned strings */
	struct kallsyms kernel;
	char *running_kernel_other; /* why /proc/kallsyms must not be used, or NULL */
	bool kernel_tried, kernel_ok;
	struct hmap warned;
};

struct dso_node {
	struct dso_node *next;
	struct dso dso;
};

struct bid_node {
	struct bid_node *next;
	const char *path;
	uint8_t id[20];
	uint8_t size;
};

static struct symtab no_symtab;

struct jit_node {
	struct jit_node *next;
	const char *path;       /* recorded, interned */
	struct jitdump jd;
	bool ok;
};

static struct dso *symbols_dso_slow(struct symbols *s, const char *name, const uint8_t *build_id,
				    size_t build_id_size);

bool symbols_want_lines(const struct symbols *s)
{
	return !s->cfg.no_lines;
}

const char *symbols_intern(struct symbols *s, const char *str)
{
	return arena_intern(&s->arena, str);
}

struct arena *symbols_arena(struct symbols *s)
{
	return &s->arena;
}

static void warn_once(struct symbols *s, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void warn_once(struct symbols *s, const char *key, const char *fmt, ...)
{
	uint64_t h = hash_bytes(key, strlen(key));
	if (hmap_get(&s->warned, h))
		return;
	hmap_put(&s->warned, h, (void *)1);
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (s->cfg.warn)
		s->cfg.warn(s->cfg.warn_ctx, msg);
	else
		fprintf(stderr, "scorch: %s\n", msg);
}

const char *symbols_demangle(struct symbols *s, const char *name)
{
	char *d = demangle_alloc(name);
	if (!d)
		return symbols_intern(s, name);
	const char *r = symbols_intern(s, d);
	free(d);
	return r;
}

/* ---- ELF symbol tables -------------------------------------------------- */

/* Where a table's addresses come from: SYMS_SECTIONS, the binary's own
 * tables, converted to rel with the section's offset; SYMS_SEGMENTS, a
 * table whose section offsets do not describe the runtime file (debug file,
 * MiniDebugInfo), converted svma -> rel via the DSO's segments;
 * SYMS_SEGMENTS_COPY, the same with names copied (their ELF does not
 * outlive the call). */
enum syms_from { SYMS_SECTIONS, SYMS_SEGMENTS, SYMS_SEGMENTS_COPY };

/* What collect_syms needs of a symbol's section, looked up once per
 * section instead of once per symbol. */
struct sec_info {
	uint8_t state;  /* 0: not looked up, 1: executable, 2: not (or no header) */
	bool nobits;
	uint64_t addr, offset;
};

#define SEC_CACHE_MAX 65536

/* Collect the function symbols (STT_FUNC, STT_GNU_IFUNC, and STT_NOTYPE
 * labels) defined in executable sections of one table (SHT_SYMTAB /
 * SHT_DYNSYM) of e. Names point into e's string table unless copied. */
static void collect_syms(struct dso *d, Elf *e, Elf_Scn *scn, GElf_Shdr *sh, struct rawsyms *raw,
			 enum syms_from from)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || !sh->sh_entsize)
		return;
	size_t cnt = sh->sh_size / sh->sh_entsize;
	size_t shnum = 0;
	elf_getshdrnum(e, &shnum);
	size_t ncache = shnum < SEC_CACHE_MAX ? shnum : SEC_CACHE_MAX;
	struct sec_info *sec = xcalloc(ncache, sizeof *sec);
	for (size_t i = 0; i < cnt; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		int type = GELF_ST_TYPE(sym.st_info);
		if (!sym.st_name || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE ||
		    sym.st_shndx >= shnum)
			continue;
		bool label = type == STT_NOTYPE;
		if (type != STT_FUNC && type != STT_GNU_IFUNC && !label)
			continue;
		struct sec_info one = { 0 }, *si = sec && sym.st_shndx < ncache ? &sec[sym.st_shndx] : &one;
		if (!si->state) {
			GElf_Shdr ssh;
			Elf_Scn *ss = elf_getscn(e, sym.st_shndx);
			if (ss && gelf_getshdr(ss, &ssh) && (ssh.sh_flags & SHF_EXECINSTR)) {
				si->state = 1;
				si->nobits = ssh.sh_type == SHT_NOBITS;
				si->addr = ssh.sh_addr;
				si->offset = ssh.sh_offset;
			} else {
				si->state = 2;
			}
		}
		if (si->state != 1)
			continue;
		const char *name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		uint64_t rel;
		if (from == SYMS_SECTIONS) {
			if (label && name[0] == '$')
				continue;
			/* rel: svma - section vaddr + section file offset; in a
			 * debug file (NOBITS sections) the svma, mapped through
			 * the runtime segments later */
			rel = si->nobits ? sym.st_value : sym.st_value - si->addr + si->offset;
		} else if (name[0] == '$' || !dso_svma_to_rel(d, sym.st_value, &rel)) {
			continue;
		}
		struct rawsym *y = rawsyms_push(raw);
		y->start = rel;
		y->size = sym.st_size;
		y->name = from == SYMS_SEGMENTS_COPY ? arena_strdup(&d->owner->arena, name) : name;
		y->bind = GELF_ST_BIND(sym.st_info);
	}
	free(sec);
}

bool dso_svma_to_rel(const struct dso *d, uint64_t svma, uint64_t *rel)
{
	for (unsigned i = 0; i < d->nr_segs; i++) {
		const struct load_seg *g = &d->segs[i];
		if (svma >= g->vaddr && svma < g->vaddr + g->memsz) {
			*rel = svma - g->vaddr + g->off;
			return true;
		}
	}
	return false;
}

static void load_segments(struct dso *d, Elf *e)
{
	size_t phnum = 0;
	if (elf_getphdrnum(e, &phnum))
		return;
	bool first = true;
	for (size_t i = 0; i < phnum && d->nr_segs < 16; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (first) {
			d->first_vaddr = ph.p_vaddr - (ph.p_offset & 4095);
			first = false;
		}
		d->segs[d->nr_segs++] = (struct load_seg){
			ph.p_offset, ph.p_vaddr, ph.p_filesz, ph.p_memsz,
			ph.p_offset + (ph.p_memsz > ph.p_filesz ? ph.p_memsz : ph.p_filesz) };
	}
}

/* perf's synthesized "name@plt" symbols: one 16-byte entry per .rela.plt
 * relocation, in .plt.sec when present, else in .plt after its header. */
static void synth_plt(struct symbols *s, struct dso *d, struct rawsyms *raw)
{
	Elf *e = d->elf;
	GElf_Shdr rsh, psh, dsh;
	Elf_Scn *rscn = elffile_scn(e, SHT_RELA, ".rela.plt", &rsh);
	if (!rscn)
		return;
	uint64_t base;
	Elf_Scn *pscn = elffile_scn(e, 0, ".plt.sec", &psh);
	if (pscn)
		base = psh.sh_offset;
	else if ((pscn = elffile_scn(e, 0, ".plt", &psh)))
		base = psh.sh_offset + 16;
	else
		return;
	Elf_Scn *dscn = elf_getscn(e, rsh.sh_link);
	if (!dscn || !gelf_getshdr(dscn, &dsh))
		return;
	Elf_Data *rd = elf_getdata(rscn, NULL), *dd = elf_getdata(dscn, NULL);
	if (!rd || !dd || !rsh.sh_entsize)
		return;
	size_t cnt = rsh.sh_size / rsh.sh_entsize;
	for (size_t i = 0; i < cnt; i++) {
		GElf_Rela rela;
		GElf_Sym sym;
		if (!gelf_getrela(rd, (int)i, &rela))
			continue;
		size_t si = GELF_R_SYM(rela.r_info);
		const char *nm = "";
		/* IRELATIVE slots have no symbol: perf names them "@plt" */
		if (si) {
			if (!gelf_getsym(dd, (int)si, &sym))
				continue;
			nm = elf_strptr(e, dsh.sh_link, sym.st_name);
			if (!nm)
				continue;
		}
		char *dm = demangle_alloc(nm);
		char buf[1024];
		snprintf(buf, sizeof buf, "%s@plt", dm ? dm : nm);
		free(dm);
		/* demangled here: demangling "name@plt" again finds nothing to do */
		struct rawsym *y = rawsyms_push(raw);
		y->start = base + 16 * i;
		y->size = 16;
		y->name = symbols_intern(s, buf);
		y->bind = STB_GLOBAL;
	}
}

/*
 * A stripped executable's .dynsym has no _start, so every complete stack of
 * such a program would end in [unknown]. Name the code at the ELF entry
 * point "_start" (crt1's, 0x30 bytes) when no symbol starts there.
 */
static void synth_entry(struct symbols *s, struct dso *d, struct rawsyms *raw)
{
	GElf_Ehdr eh;
	if (!gelf_getehdr(d->elf, &eh) || !eh.e_entry)
		return;
	size_t phnum = 0;
	bool interp = false;
	if (elf_getphdrnum(d->elf, &phnum))
		return;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(d->elf, (int)i, &ph) && ph.p_type == PT_INTERP)
			interp = true;
	}
	if (!interp && eh.e_type != ET_EXEC)
		return;
	uint64_t rel;
	if (!dso_svma_to_rel(d, eh.e_entry, &rel))
		return;
	for (size_t i = 0; i < raw->n; i++)
		if (raw->v[i].start <= rel && rel < raw->v[i].start + (raw->v[i].size ? raw->v[i].size : 1))
			return;
	struct rawsym *y = rawsyms_push(raw);
	y->start = rel;
	y->size = 0x30;
	y->name = symbols_intern(s, "_start");
	y->bind = STB_GLOBAL;
}

/*
 * The table addr2line sees (the binary's .symtab), used
 * for the innermost name of an inline chain whose DWARF function has no
 * linkage name: binutils names it after the ELF symbol covering the address
 * (sized symbols only; global preferred, else the first), and perf prints
 * what addr2line says.
 */
const struct symtab *dso_a2l_syms(struct dso *d)
{
	if (d->a2l_loaded)
		return &d->a2l_syms;
	d->a2l_loaded = true;
	if (!d->elf)
		return &d->a2l_syms;
	GElf_Shdr sh;
	/* Only a binary with its own .symtab: perf runs addr2line on the file
	 * it took symbols from, and in a separate debug file (NOBITS text)
	 * binutils finds no covering ELF symbol, so DWARF names stand. */
	Elf_Scn *scn = elffile_scn(d->elf, SHT_SYMTAB, NULL, &sh);
	if (!scn)
		return &d->a2l_syms;
	struct rawsyms rs = { 0 };
	collect_syms(d, d->elf, scn, &sh, &rs, SYMS_SECTIONS);
	struct rawsym *raw = rs.v;
	size_t n = rs.n, w = 0;
	for (size_t i = 0; i < n; i++)
		if (raw[i].size)
			raw[w++] = raw[i];
	n = w;
	ksort_u64(raw, n, sizeof *raw, offsetof(struct rawsym, start), rawsym_cmp);
	w = 0;
	for (size_t i = 0; i < n; i++) {
		if (w && raw[w - 1].start == raw[i].start) {
			if (raw[i].bind == STB_GLOBAL && raw[w - 1].bind != STB_GLOBAL)
				raw[w - 1] = raw[i];
			continue;
		}
		raw[w++] = raw[i];
	}
	d->a2l_syms.syms = xcalloc(w ? w : 1, sizeof(struct sym));
	d->a2l_syms.nr = w;
	for (size_t i = 0; i < w; i++) {
		d->a2l_syms.syms[i].start = raw[i].start;
		d->a2l_syms.syms[i].end = raw[i].start + raw[i].size;
		d->a2l_syms.syms[i].name = raw[i].name; /* demangled on use */
	}
	free(raw);
	return &d->a2l_syms;
}

static void load_dso(struct symbols *s, struct dso *d)
{
	d->loaded = true;
	d->fd = d->debug_fd = -1;
	if (!strncmp(d->name, "/dev/", 5) || !strncmp(d->name, "//anon", 6) ||
	    !strncmp(d->name, "/memfd:", 7) || (d->name[0] == '[' && strcmp(d->name, "[vdso]"))) {
		d->missing = true;
		return;
	}
	if (d->name[0] == '[') {
		debugfile_find_vdso(&s->files, d);
	} else {
		enum debugfile_result r = debugfile_find_binary(&s->files, d);
		if (r == DEBUGFILE_MISMATCH)
			warn_once(s, d->name,
				  "%s: build id differs from the recorded one, not used for symbols", d->name);
		else if (r == DEBUGFILE_NOT_FOUND)
			warn_once(s, d->name, "%s: not found, its frames are [unknown]", d->name);
	}
	if (!d->elf) {
		d->missing = true;
		/* a debug file alone can still name functions */
		if (d->build_id_size)
			debugfile_find_debug(&s->files, d);
		if (!d->debug_elf)
			return;
		d->missing = false;
		load_segments(d, d->debug_elf);
	} else {
		GElf_Ehdr eh;
		if (gelf_getehdr(d->elf, &eh))
			d->e_type = eh.e_type;
		load_segments(d, d->elf);
		if (!d->build_id_size) {
			size_t n;
			if (elffile_build_id(d->elf, d->build_id, &n))
				d->build_id_size = (uint8_t)n;
		}
		debugfile_find_debug(&s->files, d);
	}

	/* built before from the same files: the cached table (symcache.h) */
	struct symcache_id cid;
	bool cacheable = d->name[0] == '/' && symcache_id_of(d->fd, d->debug_fd, &cid);
	if (cacheable) {
		cid.version = SYMCACHE_VERSION;
		if (!symcache_load(&d->symtab, &cid, &d->symtab_map))
			return;
	}
	struct rawsyms raw = { 0 };
	GElf_Shdr sh;
	Elf_Scn *scn;
	if (d->debug_elf && (scn = elffile_scn(d->debug_elf, SHT_SYMTAB, NULL, &sh)))
		collect_syms(d, d->debug_elf, scn, &sh, &raw, SYMS_SEGMENTS);
	else if (d->elf && (scn = elffile_scn(d->elf, SHT_SYMTAB, NULL, &sh)))
		collect_syms(d, d->elf, scn, &sh, &raw, SYMS_SECTIONS);
	else if (d->elf) {
		if ((scn = elffile_scn(d->elf, SHT_DYNSYM, NULL, &sh)))
			collect_syms(d, d->elf, scn, &sh, &raw, SYMS_SECTIONS);
		void *buf = NULL;
		Elf *m = debugfile_minidebuginfo(d->elf, &buf);
		if (m) {
			if ((scn = elffile_scn(m, SHT_SYMTAB, NULL, &sh)))
				collect_syms(d, m, scn, &sh, &raw, SYMS_SEGMENTS_COPY);
			elf_end(m);
			free(buf);
		}
	}
	if (d->elf) {
		synth_plt(s, d, &raw);
		synth_entry(s, d, &raw);
	}
	for (size_t i = 0; i < raw.n; i++)
		raw.v[i].idx = (uint32_t)i;
	symtab_build(&d->symtab, raw.v, raw.n);
	free(raw.v);
	if (cacheable && d->symtab.nr >= SYMCACHE_MIN_SYMS)
		symcache_store(&d->symtab, &cid);
}

/* ---- the DSO cache ----------------------------------------------------- */

static uint64_t dso_key(const char *name, const uint8_t *id, size_t size)
{
	if (size)
		return hash_bytes(id, size) ^ 0x5bd1e995;
	return hash_bytes(name, strlen(name));
}

static struct dso *symbols_dso_sets(struct symbols *s, const char *name, const uint8_t *build_id,
				    size_t build_id_size, uint64_t fk) __attribute__((noinline));

struct dso *symbols_dso(struct symbols *s, const char *name, const uint8_t *build_id,
			size_t build_id_size)
{
	/* fast path: the session interns file names, so (name pointer, build
	 * id) identifies a lookup; the answer given last (consecutive frames
	 * mostly share a DSO), then a cache in front of the hash */
	uint64_t fk = (uint64_t)(uintptr_t)name ^ build_id_size;
	if (build_id_size >= 8) {
		uint64_t w;
		memcpy(&w, build_id, 8);
		fk ^= w;
	}
	if (s->last.name == name && s->last.bid_size == build_id_size && s->last.key == fk &&
	    s->last.dso)
		return s->last.dso;
	return symbols_dso_sets(s, name, build_id, build_id_size, fk);
}

static struct dso *symbols_dso_sets(struct symbols *s, const char *name, const uint8_t *build_id,
				    size_t build_id_size, uint64_t fk)
{
	/* 4-way sets: the pointers differ from run to run, and two hot DSOs
	 * in one direct-mapped slot took turns evicting each other (120 k
	 * slow lookups in a run that usually has 1 k) */
	struct dso_fast *set = &s->fast[(hash_u64(fk) & (DSO_FAST / DSO_WAYS - 1)) * DSO_WAYS];
	for (int i = 0; i < DSO_WAYS; i++)
		if (set[i].name == name && set[i].bid_size == build_id_size && set[i].key == fk &&
		    set[i].dso) {
			s->last = set[i];
			return set[i].dso;
		}
	struct dso *d = symbols_dso_slow(s, name, build_id, build_id_size);
	/* the newest first: the others move down one, the last one goes */
	memmove(&set[1], &set[0], (DSO_WAYS - 1) * sizeof(*set));
	struct dso_fast *fe = &set[0];
	fe->name = name;
	fe->bid_size = build_id_size;
	fe->key = fk;
	fe->dso = d;
	s->last = *fe;
	return d;
}

static struct dso *symbols_dso_slow(struct symbols *s, const char *name, const uint8_t *build_id,
				    size_t build_id_size)
{
	if (build_id_size > 20)
		build_id_size = 20;
	if (!build_id_size) {
		/* the header's build-id table */
		struct bid_node *b = hmap_get(&s->bid_by_path, hash_bytes(name, strlen(name)));
		for (; b; b = b->next)
			if (!strcmp(b->path, name)) {
				build_id = b->id;
				build_id_size = b->size;
				break;
			}
	}
	uint64_t k = dso_key(name, build_id, build_id_size);
	struct dso_node *head = hmap_get(&s->dsos, k);
	for (struct dso_node *n = head; n; n = n->next) {
		if (build_id_size ? (n->dso.build_id_size == build_id_size &&
				     !memcmp(n->dso.build_id, build_id, build_id_size) &&
				     !strcmp(n->dso.name, name))
				  : !strcmp(n->dso.name, name))
			return &n->dso;
	}
	struct dso_node *n = xcalloc(1, sizeof *n);
	n->dso.name = symbols_intern(s, name);
	n->dso.owner = s;
	n->dso.symfast = s->symfast;
	n->dso.id = k;
	n->dso.ident = (hash_u64(k) ^ hash_bytes(name, strlen(name))) | 1;
	if (build_id_size) {
		memcpy(n->dso.build_id, build_id, build_id_size);
		n->dso.build_id_size = (uint8_t)build_id_size;
	}
	n->next = head;
	hmap_put(&s->dsos, k, n);
	load_dso(s, &n->dso);
	return &n->dso;
}

const struct sym *dso_find_sym_slow(struct dso *d, uint64_t rel, struct sym_fast *c)
{
	struct sym *y = (struct sym *)symtab_find(&d->symtab, rel);
	if (y && !y->demangled) {
		/* as an earlier run demangled it (namecache.h), else now */
		if (!d->names_tried) {
			d->names_tried = true;
			d->names = namecache_open(d->fd);
		}
		const char *kept = namecache_find(d->names, y->name);
		if (kept) {
			y->name = kept;
		} else {
			char *dm = demangle_alloc(y->name);
			if (dm) {
				const char *mangled = y->name;
				y->name = arena_strdup(&d->owner->arena, dm);
				free(dm);
				namecache_note(d->names, mangled, y->name);
			}
		}
		y->demangled = true;
	}
	c->d = d;
	c->rel = rel;
	c->y = y;
	return y;
}

/* ---- kallsyms and perf maps --------------------------------------------- */

static bool symbols_kernel(struct symbols *s)
{
	if (s->kernel_tried)
		return s->kernel_ok;
	s->kernel_tried = true;
	/* --kallsyms, else the copy perf record saved in its build-id cache for
	 * the recorded kernel, else this machine's */
	const char *path = s->cfg.kallsyms;
	char cached[PATH_MAX * 2];
	if (!path) {
		struct bid_node *b = hmap_get(&s->bid_by_path,
					      hash_bytes("[kernel.kallsyms]", strlen("[kernel.kallsyms]")));
		for (; b; b = b->next) {
			if (strcmp(b->path, "[kernel.kallsyms]"))
				continue;
			if (debugfile_kallsyms(&s->files, b->id, b->size, cached, sizeof cached))
				path = cached;
			break;
		}
	}
	if (!path) {
		if (s->running_kernel_other) {
			warn_once(s, "kallsyms", "%s", s->running_kernel_other);
			return false;
		}
		path = "/proc/kallsyms";
	}
	FILE *f = fopen(path, "r");
	if (!f) {
		warn_once(s, "kallsyms", "%s: cannot open, kernel frames are [unknown]", path);
		return false;
	}
	/* a regular file (perf's copy, --kallsyms) is parsed once: later runs
	 * map the parsed table (kscache.c decides which files: not
	 * /proc/kallsyms) */
	struct stat st;
	bool known = !fstat(fileno(f), &st);
	int rc;
	if (known && !kscache_load(&s->kernel, &st)) {
		rc = 0;
	} else {
		rc = kallsyms_read(&s->kernel, f, &s->arena);
		if (known && !rc)
			kscache_store(&s->kernel, &st);
	}
	fclose(f);
	if (rc == KALLSYMS_HIDDEN) {
		warn_once(s, "kptr", "kernel addresses are hidden (kptr_restrict): kernel frames are [unknown]");
		return false;
	}
	s->kernel_ok = kallsyms_count(&s->kernel) > 0;
	return s->kernel_ok;
}

const struct sym *symbols_kernel_find(struct symbols *s, uint64_t addr)
{
	return symbols_kernel(s) ? kallsyms_find(&s->kernel, addr) : NULL;
}

void symbols_set_running_kernel(struct symbols *s, bool fits, const char *why)
{
	free(s->running_kernel_other);
	s->running_kernel_other = fits ? NULL : xstrdup(why ? why : "another kernel");
}

const char *symbols_kernel_module(struct symbols *s, const struct sym *sym)
{
	return kallsyms_module(&s->kernel, sym, &s->arena);
}

const struct sym *symbols_kernel_lookup(struct symbols *s, uint64_t addr, const char **mod)
{
	/* the kernel's table is read once and never changes: an answer
	 * holds for the run */
	if (!s->kfast)
		s->kfast = xcalloc(KSYM_FAST, sizeof *s->kfast);
	struct ksym_fast *c = &s->kfast[hash_u64(addr) & (KSYM_FAST - 1)];
	if (!c->set || c->addr != addr) {
		const struct sym *y = symbols_kernel_find(s, addr);
		*c = (struct ksym_fast){ .addr = addr, .y = y, .mod = y ? symbols_kernel_module(s, y) : NULL,
					 .set = true };
	}
	*mod = c->mod;
	return c->y;
}

const struct symtab *symbols_perfmap(struct symbols *s, uint32_t pid)
{
	struct symtab *t = hmap_get(&s->perfmaps, pid);
	if (t)
		return t == &no_symtab ? NULL : t;
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/tmp/perf-%u.map", s->cfg.sysroot ? s->cfg.sysroot : "", pid);
	FILE *f = fopen(path, "r");
	if (!f) {
		hmap_put(&s->perfmaps, pid, &no_symtab);
		return NULL;
	}
	t = xcalloc(1, sizeof *t);
	perfmap_read(t, f, &s->arena);
	fclose(f);
	hmap_put(&s->perfmaps, pid, t);
	return t;
}

const struct jitdump *symbols_jitdump(struct symbols *s, const char *recorded_path,
				      const char **name)
{
	uint64_t h = hash_bytes(recorded_path, strlen(recorded_path));
	struct jit_node *head = hmap_get(&s->jitdumps, h), *n;
	for (n = head; n; n = n->next)
		if (!strcmp(n->path, recorded_path))
			break;
	if (!n) {
		n = xcalloc(1, sizeof *n);
		n->path = symbols_intern(s, recorded_path);
		n->next = head;
		hmap_put(&s->jitdumps, h, n);
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s%s", s->cfg.sysroot ? s->cfg.sysroot : "", recorded_path);
		int rc = jitdump_open(&n->jd, path);
		n->ok = !rc;
		if (rc && n->jd.bad)
			warn_once(s, n->path, "%s: offset %llu: %s, its JIT functions are unnamed", path,
				  (unsigned long long)n->jd.bad_off, n->jd.bad_msg);
		else if (rc)
			warn_once(s, n->path, "%s: %s, its JIT functions are unnamed", path, strerror(-rc));
		else if (n->jd.bad)
			warn_once(s, n->path, "%s: offset %llu: %s, the JIT functions from there on are unnamed",
				  path, (unsigned long long)n->jd.bad_off, n->jd.bad_msg);
	}
	*name = n->path;
	return n->ok ? &n->jd : NULL;
}

static void jit_chain_free(void *v)
{
	for (struct jit_node *n = v, *next; n; n = next) {
		next = n->next;
		jitdump_release(&n->jd);
		free(n);
	}
}

/* ---- lifetime ----------------------------------------------------------- */

static void libelf_init(void)
{
	elf_version(EV_CURRENT);
}

struct symbols *symbols_new(const struct symbols_config *c)
{
	/* once: libelf's version is a global, and block-parallel runs make
	 * their resolvers on their own threads */
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct symbols *s = xcalloc(1, sizeof *s);
	s->symfast = hugeheap_zeroed(SYM_FAST * sizeof *s->symfast);
	if (c)
		s->cfg = *c;
	pthread_once(&once, libelf_init);
	debugfile_init(&s->files, &s->cfg);
	hmap_init(&s->dsos);
	hmap_init(&s->bid_by_path);
	hmap_init(&s->perfmaps);
	hmap_init(&s->jitdumps);
	arena_init(&s->arena);
	hmap_init(&s->warned);
	return s;
}

bool symbols_cached(struct symbols *s, const char *path)
{
	if (!s->files.buildid_dir)
		return false;
	struct bid_node *b = hmap_get(&s->bid_by_path, hash_bytes(path, strlen(path)));
	for (; b; b = b->next)
		if (!strcmp(b->path, path)) {
			char hex[41], p[PATH_MAX * 2];
			elffile_hexid(hex, b->id, b->size);
			snprintf(p, sizeof p, "%s/.build-id/%.2s/%s/elf", s->files.buildid_dir, hex, hex + 2);
			return elffile_exists(p);
		}
	return false;
}

void symbols_add_build_id(struct symbols *s, const char *path, const uint8_t *id, size_t size)
{
	if (!path || !size)
		return;
	if (size > 20)
		size = 20;
	uint64_t h = hash_bytes(path, strlen(path));
	struct bid_node *head = hmap_get(&s->bid_by_path, h);
	for (struct bid_node *b = head; b; b = b->next)
		if (!strcmp(b->path, path))
			return;
	struct bid_node *b = arena_alloc(&s->arena, sizeof *b);
	b->path = symbols_intern(s, path);
	memcpy(b->id, id, size);
	b->size = (uint8_t)size;
	b->next = head;
	hmap_put(&s->bid_by_path, h, b);
}

static void dso_release(struct dso *d)
{
	if (d->dw_release)
		d->dw_release(d);
	namecache_close(d->names); /* before the symbol table: noted names point into it */
	if (d->debug_elf)
		elf_end(d->debug_elf);
	if (d->debug_fd >= 0)
		close(d->debug_fd);
	if (d->elf)
		elf_end(d->elf);
	if (d->fd >= 0)
		close(d->fd);
	free(d->path);
	free(d->debug_path);
	symtab_release(&d->symtab);
	if (d->symtab_map)
		cachedir_unmap(d->symtab_map);
	symtab_release(&d->a2l_syms);
}

static void dso_chain_free(void *v)
{
	for (struct dso_node *n = v, *next; n; n = next) {
		next = n->next;
		dso_release(&n->dso);
		free(n);
	}
}

void symbols_keep(struct symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->dsos.cap; i++)
		if (hmap_used(&s->dsos, i))
			for (struct dso_node *n = s->dsos.slot[i].val; n; n = n->next) {
				if (n->dso.dw_keep)
					n->dso.dw_keep(&n->dso);
				namecache_store(n->dso.names);
			}
}

static void perfmap_free(void *v)
{
	if (v == &no_symtab)
		return;
	symtab_release(v);
	free(v);
}

void symbols_free(struct symbols *s)
{
	if (!s)
		return;
	hmap_release_vals(&s->dsos, dso_chain_free);
	hmap_release(&s->bid_by_path);
	hmap_release_vals(&s->perfmaps, perfmap_free);
	hmap_release_vals(&s->jitdumps, jit_chain_free);
	hmap_release(&s->warned);
	kallsyms_release(&s->kernel);
	free(s->running_kernel_other);
	debugfile_release(&s->files);
	arena_release(&s->arena);
	free(s->symfast);
	free(s->kfast);
	free(s);
}
