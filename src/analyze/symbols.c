/*
 * symbols.c: the DSO cache, ELF symbol tables, DWARF inline chains,
 * kallsyms and perf-PID.map. See symbols.h for the model.
 *
 * Why per DSO and lazily: a parallel build maps cc1 and libc hundreds of
 * times; the symbol table and the DWARF index of each file are built once,
 * on the first address that needs them, and every process shares them.
 * Inline chains cost a DIE walk, so each address is looked up once.
 */
#include "analyze/symbols.h"
#include "analyze/demangle_rust.h"
#include "util/buf.h"
#include "util/hash.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <dwarf.h>
#include <elfutils/libdwelf.h>

#ifdef HAVE_LZMA
#include <lzma.h>
#endif
#ifdef HAVE_DEBUGINFOD
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#endif

/* ---- string arena ------------------------------------------------------ */

struct chunk {
	struct chunk *next;
	size_t used, cap;
	char data[];
};

#define DSO_FAST 256

struct dso_fast {
	const char *name;
	uint64_t key;
	size_t bid_size;
	struct dso *dso;
};

static struct dso *symbols_dso_slow(struct symbols *s, const char *name, const uint8_t *build_id,
				    size_t build_id_size);

struct symbols {
	struct symbols_config cfg;
#ifdef HAVE_DEBUGINFOD
	debuginfod_client *dbgd;
#endif
	struct dso_fast fast[DSO_FAST];
	char *buildid_dir;
	struct hmap dsos;       /* hash(build id or name) -> struct dso_node * */
	struct hmap bid_by_path;/* hash(path) -> struct bid_node * */
	struct hmap perfmaps;   /* pid -> struct symtab * (or &no_symtab) */
	struct hmap interned;   /* hash(str) -> struct istr * */
	struct chunk *chunks;
	struct symtab kernel;
	char **kmod_names;      /* parallel to kernel.syms: module or NULL */
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

struct istr {
	struct istr *next;
	const char *s;
};

static struct symtab no_symtab;

static void *arena_alloc(struct symbols *s, size_t n)
{
	n = (n + 7) & ~(size_t)7;
	if (!s->chunks || s->chunks->cap - s->chunks->used < n) {
		size_t cap = n > 65536 ? n : 65536;
		struct chunk *c = malloc(sizeof(*c) + cap);
		if (!c)
			abort();
		c->next = s->chunks;
		c->used = 0;
		c->cap = cap;
		s->chunks = c;
	}
	void *p = s->chunks->data + s->chunks->used;
	s->chunks->used += n;
	return p;
}

static const char *arena_strdup(struct symbols *s, const char *str)
{
	size_t n = strlen(str);
	char *p = arena_alloc(s, n + 1);
	memcpy(p, str, n + 1);
	return p;
}

const char *symbols_intern(struct symbols *s, const char *str)
{
	if (!str)
		return NULL;
	size_t n = strlen(str);
	uint64_t h = hash_bytes(str, n);
	struct istr *e = hmap_get(&s->interned, h);
	for (struct istr *i = e; i; i = i->next)
		if (!strcmp(i->s, str))
			return i->s;
	struct istr *ni = arena_alloc(s, sizeof(*ni));
	char *p = arena_alloc(s, n + 1);
	memcpy(p, str, n + 1);
	ni->s = p;
	ni->next = e;
	hmap_put(&s->interned, h, ni);
	return p;
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

/* ---- demangling --------------------------------------------------------- */

extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* Cut "RET name<T>(ARGS) const" to "name<T>", as a demangler without
 * DMGL_PARAMS prints it (perf's form). */
static void strip_params(char *d)
{
	size_t n = strlen(d);
	/* trailing qualifiers after the parameter list */
	for (;;) {
		static const char *const quals[] = { " const", " volatile", " &&", " &", " noexcept" };
		bool cut = false;
		for (size_t i = 0; i < sizeof quals / sizeof quals[0]; i++) {
			size_t q = strlen(quals[i]);
			if (n > q && !memcmp(d + n - q, quals[i], q) && n > q && d[n - q - 1] == ')') {
				n -= q;
				d[n] = 0;
				cut = true;
			}
		}
		if (!cut)
			break;
	}
	if (n && d[n - 1] == ')') {
		int depth = 0;
		for (size_t i = n; i-- > 0;) {
			if (d[i] == ')')
				depth++;
			else if (d[i] == '(' && --depth == 0) {
				/* "operator()" keeps its own parens */
				if (i > 0) {
					d[i] = 0;
					n = i;
				}
				break;
			}
		}
	}
	/* return type: text before the last space at depth 0 */
	int depth = 0;
	ssize_t last = -1;
	for (size_t i = 0; i < n; i++) {
		char c = d[i];
		if (c == '<' || c == '(' || c == '[')
			depth++;
		else if ((c == '>' || c == ')' || c == ']') && depth > 0)
			depth--;
		else if (c == ' ' && depth == 0) {
			if (i >= 8 && !memcmp(d + i - 8, "operator", 8))
				continue;
			last = (ssize_t)i;
		}
	}
	if (last >= 0) {
		/* a conversion operator "operator unsigned long": keep from "operator" */
		char *op = strstr(d, "operator ");
		if (op && op < d + last) {
			char *start = op;
			while (start > d && start[-1] != ' ')
				start--;
			memmove(d, start, strlen(start) + 1);
			return;
		}
		memmove(d, d + last + 1, strlen(d + last + 1) + 1);
	}
}

static bool rust_legacy_hash(const char *s, size_t n)
{
	/* "::h" + 16 hex digits at the end */
	if (n < 19 || memcmp(s + n - 19, "::h", 3))
		return false;
	for (size_t i = n - 16; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* Rust legacy names are Itanium-mangled with $..$ escapes and a hash. */
static void rust_unescape(char *d)
{
	static const struct { const char *esc, *rep; } tab[] = {
		{ "$SP$", "@" }, { "$BP$", "*" }, { "$RF$", "&" }, { "$LT$", "<" },
		{ "$GT$", ">" }, { "$LP$", "(" }, { "$RP$", ")" }, { "$C$", "," },
		{ "$u7e$", "~" }, { "$u20$", " " }, { "$u27$", "'" }, { "$u5b$", "[" },
		{ "$u5d$", "]" }, { "$u7b$", "{" }, { "$u7d$", "}" }, { "$u3b$", ";" },
		{ "$u2b$", "+" }, { "$u22$", "\"" },
	};
	char *w = d;
	for (char *r = d; *r;) {
		/* an element starting with "_$" had the underscore added */
		if (r[0] == '_' && r[1] == '$' && (r == d || (r - d >= 2 && r[-1] == ':' && r[-2] == ':')))
			r++;
		if (*r == '$') {
			bool hit = false;
			for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
				size_t l = strlen(tab[i].esc);
				if (!strncmp(r, tab[i].esc, l)) {
					size_t rl = strlen(tab[i].rep);
					memcpy(w, tab[i].rep, rl);
					w += rl;
					r += l;
					hit = true;
					break;
				}
			}
			if (hit)
				continue;
		}
		if (r[0] == '.' && r[1] == '.') {
			*w++ = ':';
			*w++ = ':';
			r += 2;
			continue;
		}
		*w++ = *r++;
	}
	*w = 0;
}

char *demangle_alloc(const char *name)
{
	if (!name || name[0] != '_')
		return NULL;
	if (name[1] == 'R')
		return demangle_rust_v0(name); /* Rust v0 (RFC 2603) */
	if (name[1] != 'Z')
		return NULL;
	/* GCC clone suffixes (".isra.0", ".cold"): a demangler without
	 * DMGL_PARAMS (perf's) stops before them, so they are dropped */
	const char *dot = strchr(name, '.');
	char *base = dot ? strndup(name, (size_t)(dot - name)) : NULL;
	int st = 0;
	char *d = __cxa_demangle(base ? base : name, NULL, NULL, &st);
	if (!d || st) {
		free(base);
		free(d);
		return NULL;
	}
	size_t n = strlen(d);
	bool rust = rust_legacy_hash(d, n);
	if (rust) {
		d[n - 19] = 0;
		rust_unescape(d);
	} else {
		strip_params(d);
	}
	free(base);
	return d;
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

/* ---- symbol tables ------------------------------------------------------ */

struct rawsym {
	uint64_t start, size;
	const char *name;   /* raw (mangled) */
	uint32_t idx;       /* table order, for ties */
	uint8_t bind;
};

static int rawsym_cmp(const void *a, const void *b)
{
	const struct rawsym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int underscores(const char *s)
{
	int n = 0;
	while (*s++ == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol: true when a beats b. */
static bool sym_better(const struct rawsym *a, const struct rawsym *b)
{
	if (a->size && !b->size)
		return true;
	if (!a->size && b->size)
		return false;
	bool aw = a->bind == STB_WEAK, bw = b->bind == STB_WEAK;
	if (bw && !aw)
		return true;
	if (aw && !bw)
		return false;
	bool ag = a->bind == STB_GLOBAL, bg = b->bind == STB_GLOBAL;
	if (ag && !bg)
		return true;
	if (bg && !ag)
		return false;
	int ua = underscores(a->name), ub = underscores(b->name);
	if (ub > ua)
		return true;
	if (ua > ub)
		return false;
	size_t na = strlen(a->name), nb = strlen(b->name);
	if (na > nb)
		return true;
	if (na < nb)
		return false;
	return true; /* the first one */
}

/*
 * Build a symtab from raw symbols: sort, drop aliases (perf's rule), give
 * unsized symbols the next symbol's start as end, then demangle.
 * at the module boundary), then demangle.
 */
static void symtab_build(struct symbols *s, struct symtab *t, struct rawsym *raw, size_t n)
{
	if (n)
		qsort(raw, n, sizeof *raw, rawsym_cmp);
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if (w && raw[w - 1].start == raw[i].start) {
			if (!sym_better(&raw[w - 1], &raw[i]))
				raw[w - 1] = raw[i];
			continue;
		}
		raw[w++] = raw[i];
	}
	t->syms = calloc(w ? w : 1, sizeof *t->syms);
	if (!t->syms)
		abort();
	t->nr = w;
	for (size_t i = 0; i < w; i++) {
		struct sym *y = &t->syms[i];
		y->start = raw[i].start;
		y->end = raw[i].start + raw[i].size;
		if (!raw[i].size)
			y->end = i + 1 < w ? raw[i + 1].start : (y->start & ~4095ULL) + 4096;
		y->name = raw[i].name; /* demangled on first lookup (dso_find_sym) */
	}
}

const struct sym *symtab_find(const struct symtab *t, uint64_t addr)
{
	if (!t || !t->nr)
		return NULL;
	size_t lo = 0, hi = t->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct sym *y = &t->syms[lo - 1];
	if (addr < y->end)
		return y;
	/* an earlier, larger symbol may still cover addr */
	for (size_t i = lo - 1, k = 0; i-- > 0 && k < 4; k++)
		if (t->syms[i].start <= addr && addr < t->syms[i].end)
			return &t->syms[i];
	return NULL;
}

/* ---- ELF ---------------------------------------------------------------- */

static bool elf_build_id(Elf *elf, uint8_t *id, size_t *size)
{
	const void *p;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &p);
	if (n <= 0)
		return false;
	if (n > 20)
		n = 20;
	memcpy(id, p, (size_t)n);
	*size = (size_t)n;
	return true;
}

static Elf *open_elf(const char *path, int *fdp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		close(fd);
		return NULL;
	}
	*fdp = fd;
	return e;
}

static bool id_matches(Elf *e, const uint8_t *id, size_t size)
{
	if (!size)
		return true;
	uint8_t got[20];
	size_t n;
	if (!elf_build_id(e, got, &n))
		return true; /* no note: cannot tell, accept */
	return n >= size ? !memcmp(got, id, size) : !memcmp(got, id, n);
}

static void hexid(char *out, const uint8_t *id, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = 0;
}

/* Collect function symbols of one table (SHT_SYMTAB / SHT_DYNSYM). Addresses
 * are converted to rel (file offsets) with the section's offset. */
static void collect_syms(struct symbols *s, Elf *e, Elf_Scn *scn, GElf_Shdr *sh,
			 struct rawsym **raw, size_t *n, size_t *cap)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || !sh->sh_entsize)
		return;
	size_t cnt = sh->sh_size / sh->sh_entsize;
	size_t shnum = 0;
	elf_getshdrnum(e, &shnum);
	for (size_t i = 0; i < cnt; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		int type = GELF_ST_TYPE(sym.st_info);
		if (!sym.st_name || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
			continue;
		bool func = type == STT_FUNC || type == STT_GNU_IFUNC;
		bool label = type == STT_NOTYPE;
		if (!func && !label)
			continue;
		if (sym.st_shndx >= shnum)
			continue;
		GElf_Shdr ssh;
		Elf_Scn *ss = elf_getscn(e, sym.st_shndx);
		if (!ss || !gelf_getshdr(ss, &ssh))
			continue;
		if (!(ssh.sh_flags & SHF_EXECINSTR))
			continue;
		const char *name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (label && (name[0] == '$' || !strcmp(name, "")))
			continue;
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 1024;
			*raw = realloc(*raw, *cap * sizeof **raw);
			if (!*raw)
				abort();
		}
		/* rel: svma - section vaddr + section file offset */
		uint64_t rel = sym.st_value - ssh.sh_addr + ssh.sh_offset;
		if (ssh.sh_type == SHT_NOBITS) {
			/* debug files: sections are NOBITS, offsets meaningless; map
			 * through the runtime segments later */
			rel = sym.st_value;
		}
		/* names point into the ELF's string table, alive as long as the DSO */
		(*raw)[*n] = (struct rawsym){ .start = rel, .size = sym.st_size, .name = name,
					      .idx = (uint32_t)*n, .bind = GELF_ST_BIND(sym.st_info) };
		(*n)++;
	}
}

static Elf_Scn *find_scn(Elf *e, Elf64_Word type, const char *name, GElf_Shdr *out)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		if (!gelf_getshdr(scn, out))
			continue;
		if (type && out->sh_type != type)
			continue;
		if (name) {
			const char *n = elf_strptr(e, shstrndx, out->sh_name);
			if (!n || strcmp(n, name))
				continue;
		}
		return scn;
	}
	return NULL;
}

bool dso_rel_to_svma(const struct dso *d, uint64_t rel, uint64_t *svma)
{
	for (unsigned i = 0; i < d->nr_segs; i++) {
		const struct load_seg *g = &d->segs[i];
		if (rel >= g->off && rel < g->off + (g->memsz > g->filesz ? g->memsz : g->filesz)) {
			*svma = rel - g->off + g->vaddr;
			return true;
		}
	}
	return false;
}

static bool svma_to_rel(const struct dso *d, uint64_t svma, uint64_t *rel)
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

/* Symbols from a table whose section offsets do not describe the runtime
 * file (debug file, MiniDebugInfo): convert svma -> rel via segments. */
static void collect_syms_svma(struct symbols *s, struct dso *d, Elf *e, Elf_Scn *scn,
			      GElf_Shdr *sh, struct rawsym **raw, size_t *n, size_t *cap, bool copy)
{
	size_t before = *n;
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || !sh->sh_entsize)
		return;
	size_t cnt = sh->sh_size / sh->sh_entsize;
	size_t shnum = 0;
	elf_getshdrnum(e, &shnum);
	for (size_t i = 0; i < cnt; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		int type = GELF_ST_TYPE(sym.st_info);
		if (!sym.st_name || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE ||
		    sym.st_shndx >= shnum)
			continue;
		bool func = type == STT_FUNC || type == STT_GNU_IFUNC;
		if (!func && type != STT_NOTYPE)
			continue;
		GElf_Shdr ssh;
		Elf_Scn *ss = elf_getscn(e, sym.st_shndx);
		if (!ss || !gelf_getshdr(ss, &ssh) || !(ssh.sh_flags & SHF_EXECINSTR))
			continue;
		const char *name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name || !*name || name[0] == '$')
			continue;
		uint64_t rel;
		if (!svma_to_rel(d, sym.st_value, &rel))
			continue;
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 1024;
			*raw = realloc(*raw, *cap * sizeof **raw);
			if (!*raw)
				abort();
		}
		(*raw)[*n] = (struct rawsym){ .start = rel, .size = sym.st_size,
					      .name = copy ? arena_strdup(s, name) : name,
					      .idx = (uint32_t)*n, .bind = GELF_ST_BIND(sym.st_info) };
		(*n)++;
	}
	(void)before;
}

#ifdef HAVE_LZMA
static Elf *minidebuginfo(Elf *e, void **bufp)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_scn(e, 0, ".gnu_debugdata", &sh);
	if (!scn)
		return NULL;
	Elf_Data *data = elf_rawdata(scn, NULL);
	if (!data || !data->d_size)
		return NULL;
	size_t cap = data->d_size * 8 + 65536, pos = 0, inpos = 0;
	uint8_t *out = malloc(cap);
	uint64_t memlimit = UINT64_MAX;
	for (;;) {
		size_t ip = inpos, op = pos;
		lzma_ret r = lzma_stream_buffer_decode(&memlimit, 0, NULL, data->d_buf, &ip,
						       data->d_size, out, &op, cap);
		if (r == LZMA_OK) {
			pos = op;
			break;
		}
		if (r == LZMA_BUF_ERROR && cap < (256u << 20)) {
			cap *= 2;
			out = realloc(out, cap);
			continue;
		}
		free(out);
		return NULL;
	}
	Elf *m = elf_memory((char *)out, pos);
	if (!m) {
		free(out);
		return NULL;
	}
	*bufp = out;
	return m;
}
#endif

static bool file_exists(const char *p)
{
	struct stat st;
	return !stat(p, &st) && S_ISREG(st.st_mode);
}

static uint32_t file_crc(int fd)
{
	uint32_t crc = 0;
	char buf[65536];
	ssize_t n;
	off_t off = 0;
	while ((n = pread(fd, buf, sizeof buf, off)) > 0) {
		crc = (uint32_t)crc32(crc, (const Bytef *)buf, (uInt)n);
		off += n;
	}
	return crc;
}

/* Try one candidate debug file: must have the build id (when known) or the
 * debuglink CRC. */
static bool try_debug(struct dso *d, const char *p, bool check_crc, uint32_t crc)
{
	if (!file_exists(p) || (d->path && !strcmp(p, d->path)))
		return false;
	int fd;
	Elf *e = open_elf(p, &fd);
	if (!e)
		return false;
	bool ok = true;
	uint8_t id[20];
	size_t n;
	if (d->build_id_size && elf_build_id(e, id, &n))
		ok = n >= d->build_id_size && !memcmp(id, d->build_id, d->build_id_size);
	else if (check_crc)
		ok = file_crc(fd) == crc;
	GElf_Shdr sh;
	if (ok && !find_scn(e, SHT_SYMTAB, NULL, &sh) && !find_scn(e, 0, ".debug_info", &sh))
		ok = false;
	if (!ok) {
		elf_end(e);
		close(fd);
		return false;
	}
	d->debug_path = strdup(p);
	d->debug_fd = fd;
	d->debug_elf = e;
	return true;
}

static void each_path(const char *list, void (*fn)(void *, const char *), void *ctx)
{
	if (!list)
		return;
	const char *p = list;
	while (*p) {
		const char *c = strchr(p, ':');
		size_t l = c ? (size_t)(c - p) : strlen(p);
		if (l) {
			char dir[PATH_MAX];
			if (l < sizeof dir) {
				memcpy(dir, p, l);
				dir[l] = 0;
				fn(ctx, dir);
			}
		}
		p += l;
		if (*p == ':')
			p++;
	}
}

struct dbg_search {
	struct dso *d;
	const char *link;
	const char *origdir;
	uint32_t crc;
	bool found;
};

static void dbg_in_dir(void *ctx, const char *dir)
{
	struct dbg_search *ds = ctx;
	if (ds->found)
		return;
	char p[PATH_MAX * 2];
	if (ds->d->build_id_size) {
		char hex[41];
		hexid(hex, ds->d->build_id, ds->d->build_id_size);
		snprintf(p, sizeof p, "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2);
		if (try_debug(ds->d, p, false, 0)) {
			ds->found = true;
			return;
		}
	}
	if (ds->link) {
		snprintf(p, sizeof p, "%s/%s", dir, ds->link);
		if (try_debug(ds->d, p, true, ds->crc)) {
			ds->found = true;
			return;
		}
		snprintf(p, sizeof p, "%s%s/%s", dir, ds->origdir, ds->link);
		if (try_debug(ds->d, p, true, ds->crc))
			ds->found = true;
	}
}

static bool try_binary(struct symbols *s, struct dso *d, const char *p, bool *mismatch);

#ifdef HAVE_DEBUGINFOD
/*
 * libdebuginfod is loaded with dlopen, only when DEBUGINFOD_URLS is set:
 * linking it pulls in libcurl, gnutls, kerberos and LDAP, whose relocation
 * alone costs every scorch command ~15 ms at startup.
 */
struct dbgd_api {
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *);
	int (*find_executable)(debuginfod_client *, const unsigned char *, int, char **);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
};

static const struct dbgd_api *dbgd_api(void)
{
	static struct dbgd_api api;
	static int state; /* 0 untried, 1 loaded, -1 unavailable; set once, single thread */
	if (state == 0) {
		void *h = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
		state = -1;
		if (h) {
			api.begin = (debuginfod_client * (*)(void)) dlsym(h, "debuginfod_begin");
			api.end = (void (*)(debuginfod_client *))dlsym(h, "debuginfod_end");
			api.find_executable = (int (*)(debuginfod_client *, const unsigned char *, int, char **))dlsym(
				h, "debuginfod_find_executable");
			api.find_debuginfo = (int (*)(debuginfod_client *, const unsigned char *, int, char **))dlsym(
				h, "debuginfod_find_debuginfo");
			if (api.begin && api.end && api.find_executable && api.find_debuginfo)
				state = 1;
		}
	}
	return state == 1 ? &api : NULL;
}
#endif

/* Optional: ask debuginfod (only when DEBUGINFOD_URLS is set) for the
 * debug file or the executable of a build id; the client caches files. */
static bool debuginfod_fetch(struct symbols *s, struct dso *d, bool executable)
{
#ifdef HAVE_DEBUGINFOD
	const char *urls = getenv("DEBUGINFOD_URLS");
	if (!urls || !*urls)
		return false;
	const struct dbgd_api *api = dbgd_api();
	if (!api)
		return false;
	if (!s->dbgd)
		s->dbgd = api->begin();
	if (!s->dbgd)
		return false;
	char *path = NULL;
	int fd = executable ? api->find_executable(s->dbgd, d->build_id, d->build_id_size, &path)
			    : api->find_debuginfo(s->dbgd, d->build_id, d->build_id_size, &path);
	if (fd < 0)
		return false;
	close(fd);
	bool mm = false;
	bool ok = path && (executable ? try_binary(s, d, path, &mm) : try_debug(d, path, false, 0));
	free(path);
	return ok;
#else
	(void)s;
	(void)d;
	(void)executable;
	return false;
#endif
}

static void find_debug_file(struct symbols *s, struct dso *d)
{
	char p[PATH_MAX * 2];
	const char *sysroot = s->cfg.sysroot ? s->cfg.sysroot : "";
	struct dbg_search ds = { .d = d };
	GElf_Shdr sh;
	char origdir[PATH_MAX] = "";
	if (d->elf) {
		Elf_Scn *scn = find_scn(d->elf, 0, ".gnu_debuglink", &sh);
		Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
		if (data && data->d_size > 4) {
			const char *l = data->d_buf;
			size_t ln = strnlen(l, data->d_size);
			if (ln < data->d_size) {
				ds.link = l;
				size_t off = (ln + 4) & ~(size_t)3;
				if (off + 4 <= data->d_size)
					memcpy(&ds.crc, (const char *)data->d_buf + off, 4);
			}
		}
		const char *slash = d->path ? strrchr(d->path, '/') : NULL;
		if (slash && (size_t)(slash - d->path) < sizeof origdir) {
			memcpy(origdir, d->path, (size_t)(slash - d->path));
			origdir[slash - d->path] = 0;
		}
	}
	ds.origdir = origdir;
	/* --debug paths first (user's choice), then the standard places */
	each_path(s->cfg.debug_paths, dbg_in_dir, &ds);
	if (ds.found)
		return;
	if (d->build_id_size) {
		char hex[41];
		hexid(hex, d->build_id, d->build_id_size);
		snprintf(p, sizeof p, "%s/usr/lib/debug/.build-id/%.2s/%s.debug", sysroot, hex, hex + 2);
		if (try_debug(d, p, false, 0))
			return;
		snprintf(p, sizeof p, "%s/.build-id/%.2s/%s/debug", s->buildid_dir, hex, hex + 2);
		if (try_debug(d, p, false, 0))
			return;
	}
	if (d->build_id_size && debuginfod_fetch(s, d, false))
		return;
	if (ds.link && d->path) {
		snprintf(p, sizeof p, "%s/%s", origdir, ds.link);
		if (try_debug(d, p, true, ds.crc))
			return;
		snprintf(p, sizeof p, "%s/.debug/%s", origdir, ds.link);
		if (try_debug(d, p, true, ds.crc))
			return;
		snprintf(p, sizeof p, "%s/usr/lib/debug%s/%s", sysroot, origdir, ds.link);
		if (try_debug(d, p, true, ds.crc))
			return;
	}
}

struct bin_search {
	struct symbols *s;
	struct dso *d;
	const char *base;
	bool found;
};

static bool try_binary(struct symbols *s, struct dso *d, const char *p, bool *mismatch)
{
	if (!file_exists(p))
		return false;
	int fd;
	Elf *e = open_elf(p, &fd);
	if (!e)
		return false;
	if (!id_matches(e, d->build_id, d->build_id_size)) {
		*mismatch = true;
		elf_end(e);
		close(fd);
		return false;
	}
	d->path = strdup(p);
	d->fd = fd;
	d->elf = e;
	return true;
}

static void bin_in_dir(void *ctx, const char *dir)
{
	struct bin_search *bs = ctx;
	if (bs->found)
		return;
	char p[PATH_MAX * 2];
	bool mm = false;
	snprintf(p, sizeof p, "%s/%s", dir, bs->base);
	if (try_binary(bs->s, bs->d, p, &mm))
		bs->found = true;
}

static void find_binary(struct symbols *s, struct dso *d)
{
	char p[PATH_MAX * 2];
	bool mismatch = false;
	const char *base = strrchr(d->name, '/');
	base = base ? base + 1 : d->name;
	struct bin_search bs = { .s = s, .d = d, .base = base };
	if (s->cfg.app_path) {
		bin_in_dir(&bs, s->cfg.app_path);
		if (bs.found)
			return;
	}
	snprintf(p, sizeof p, "%s%s", s->cfg.sysroot ? s->cfg.sysroot : "", d->name);
	if (try_binary(s, d, p, &mismatch))
		return;
	if (d->build_id_size) {
		char hex[41];
		hexid(hex, d->build_id, d->build_id_size);
		snprintf(p, sizeof p, "%s/.build-id/%.2s/%s/elf", s->buildid_dir, hex, hex + 2);
		if (try_binary(s, d, p, &mismatch))
			return;
	}
	each_path(s->cfg.extra_paths, bin_in_dir, &bs);
	if (bs.found)
		return;
	if (d->build_id_size && debuginfod_fetch(s, d, true))
		return;
	if (mismatch)
		warn_once(s, d->name, "%s: build id differs from the recorded one, not used for symbols",
			  d->name);
	else
		warn_once(s, d->name, "%s: not found, its frames are [unknown]", d->name);
}

/* [vdso]: perf's build-id cache keeps a copy; else this machine's own vdso
 * when its build id is the recorded one (same kernel). */
static void find_vdso(struct symbols *s, struct dso *d)
{
	char p[PATH_MAX * 2];
	bool mismatch = false;
	if (d->build_id_size) {
		char hex[41];
		hexid(hex, d->build_id, d->build_id_size);
		snprintf(p, sizeof p, "%s/.build-id/%.2s/%s/elf", s->buildid_dir, hex, hex + 2);
		if (try_binary(s, d, p, &mismatch))
			return;
		snprintf(p, sizeof p, "%s/[vdso]/%s/vdso", s->buildid_dir, hex);
		if (try_binary(s, d, p, &mismatch))
			return;
	}
	const uint8_t *v = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	if (!v || memcmp(v, ELFMAG, SELFMAG) || v[EI_CLASS] != ELFCLASS64)
		return;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)v;
	size_t size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (size > (64u << 10) || size < sizeof *eh)
		return;
	char *copy = malloc(size);
	if (!copy)
		return;
	memcpy(copy, v, size);
	Elf *e = elf_memory(copy, size);
	if (!e || (d->build_id_size && !id_matches(e, d->build_id, d->build_id_size))) {
		if (e)
			elf_end(e);
		free(copy);
		return;
	}
	/* keep it as an fd-backed file so the unwinder can share it */
	int fd = memfd_create("vdso", MFD_CLOEXEC);
	if (fd >= 0 && write(fd, copy, size) == (ssize_t)size) {
		elf_end(e);
		free(copy);
		e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		if (e) {
			d->fd = fd;
			d->elf = e;
			d->path = strdup("[vdso]");
			return;
		}
	}
	if (fd >= 0)
		close(fd);
	if (e)
		elf_end(e);
	free(copy);
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
		d->segs[d->nr_segs++] = (struct load_seg){ ph.p_offset, ph.p_vaddr, ph.p_filesz, ph.p_memsz };
	}
}

/* perf's synthesized "name@plt" symbols: one 16-byte entry per .rela.plt
 * relocation, in .plt.sec when present, else in .plt after its header. */
static void synth_plt(struct symbols *s, struct dso *d, struct rawsym **raw, size_t *n, size_t *cap)
{
	Elf *e = d->elf;
	GElf_Shdr rsh, psh, dsh;
	Elf_Scn *rscn = find_scn(e, SHT_RELA, ".rela.plt", &rsh);
	if (!rscn)
		return;
	uint64_t base;
	Elf_Scn *pscn = find_scn(e, 0, ".plt.sec", &psh);
	if (pscn)
		base = psh.sh_offset;
	else if ((pscn = find_scn(e, 0, ".plt", &psh)))
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
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 1024;
			*raw = realloc(*raw, *cap * sizeof **raw);
			if (!*raw)
				abort();
		}
		/* already demangled: mark with a leading byte symbols_demangle ignores */
		(*raw)[*n] = (struct rawsym){ .start = base + 16 * i, .size = 16,
					      .name = symbols_intern(s, buf),
					      .idx = (uint32_t)*n, .bind = STB_GLOBAL };
		(*n)++;
	}
}

/*
 * A stripped executable's .dynsym has no _start, so every complete stack of
 * such a program would end in [unknown]. Name the code at the ELF entry
 * point "_start" (crt1's, 0x30 bytes) when no symbol starts there.
 */
static void synth_entry(struct symbols *s, struct dso *d, struct rawsym **raw, size_t *n, size_t *cap)
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
	if (!svma_to_rel(d, eh.e_entry, &rel))
		return;
	for (size_t i = 0; i < *n; i++)
		if ((*raw)[i].start <= rel && rel < (*raw)[i].start + ((*raw)[i].size ? (*raw)[i].size : 1))
			return;
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*raw = realloc(*raw, *cap * sizeof **raw);
		if (!*raw)
			abort();
	}
	(*raw)[*n] = (struct rawsym){ .start = rel, .size = 0x30, .name = symbols_intern(s, "_start"),
				      .idx = (uint32_t)*n, .bind = STB_GLOBAL };
	(*n)++;
}

/*
 * The table addr2line sees (the binary's .symtab), used
 * for the innermost name of an inline chain whose DWARF function has no
 * linkage name: binutils names it after the ELF symbol covering the address
 * (sized symbols only; global preferred, else the first), and perf prints
 * what addr2line says.
 */
static void load_a2l_syms(struct symbols *s, struct dso *d)
{
	d->a2l_loaded = true;
	if (!d->elf)
		return;
	GElf_Shdr sh;
	/* Only a binary with its own .symtab: perf runs addr2line on the file
	 * it took symbols from, and in a separate debug file (NOBITS text)
	 * binutils finds no covering ELF symbol, so DWARF names stand. */
	Elf_Scn *scn = find_scn(d->elf, SHT_SYMTAB, NULL, &sh);
	if (!scn)
		return;
	struct rawsym *raw = NULL;
	size_t n = 0, cap = 0;
	collect_syms(s, d->elf, scn, &sh, &raw, &n, &cap);
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		if (raw[i].size)
			raw[w++] = raw[i];
	n = w;
	if (n)
		qsort(raw, n, sizeof *raw, rawsym_cmp);
	w = 0;
	for (size_t i = 0; i < n; i++) {
		if (w && raw[w - 1].start == raw[i].start) {
			if (raw[i].bind == STB_GLOBAL && raw[w - 1].bind != STB_GLOBAL)
				raw[w - 1] = raw[i];
			continue;
		}
		raw[w++] = raw[i];
	}
	d->a2l_syms.syms = calloc(w ? w : 1, sizeof(struct sym));
	d->a2l_syms.nr = w;
	for (size_t i = 0; i < w; i++) {
		d->a2l_syms.syms[i].start = raw[i].start;
		d->a2l_syms.syms[i].end = raw[i].start + raw[i].size;
		d->a2l_syms.syms[i].name = raw[i].name; /* demangled on use */
	}
	free(raw);
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
	if (d->name[0] == '[')
		find_vdso(s, d);
	else
		find_binary(s, d);
	if (!d->elf) {
		d->missing = true;
		/* a debug file alone can still name functions */
		if (d->build_id_size)
			find_debug_file(s, d);
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
			if (elf_build_id(d->elf, d->build_id, &n))
				d->build_id_size = (uint8_t)n;
		}
		find_debug_file(s, d);
	}

	struct rawsym *raw = NULL;
	size_t n = 0, cap = 0;
	GElf_Shdr sh;
	Elf_Scn *scn;
	if (d->debug_elf && (scn = find_scn(d->debug_elf, SHT_SYMTAB, NULL, &sh)))
		collect_syms_svma(s, d, d->debug_elf, scn, &sh, &raw, &n, &cap, false);
	else if (d->elf && (scn = find_scn(d->elf, SHT_SYMTAB, NULL, &sh)))
		collect_syms(s, d->elf, scn, &sh, &raw, &n, &cap);
	else if (d->elf) {
		if ((scn = find_scn(d->elf, SHT_DYNSYM, NULL, &sh)))
			collect_syms(s, d->elf, scn, &sh, &raw, &n, &cap);
#ifdef HAVE_LZMA
		void *buf = NULL;
		Elf *m = minidebuginfo(d->elf, &buf);
		if (m) {
			if ((scn = find_scn(m, SHT_SYMTAB, NULL, &sh)))
				collect_syms_svma(s, d, m, scn, &sh, &raw, &n, &cap, true);
			elf_end(m);
			free(buf);
		}
#endif
	}
	size_t nplt = n;
	if (d->elf) {
		synth_plt(s, d, &raw, &n, &cap);
		synth_entry(s, d, &raw, &n, &cap);
	}
	for (size_t i = 0; i < n; i++)
		raw[i].idx = (uint32_t)i;
	symtab_build(s, &d->symtab, raw, n);
	(void)nplt;
	free(raw);
}

static uint64_t dso_key(const char *name, const uint8_t *id, size_t size)
{
	if (size)
		return hash_bytes(id, size) ^ 0x5bd1e995;
	return hash_bytes(name, strlen(name));
}

struct dso *symbols_dso(struct symbols *s, const char *name, const uint8_t *build_id,
			size_t build_id_size)
{
	/* fast path: the session interns file names, so (name pointer, build
	 * id) identifies a lookup; a direct-mapped cache in front of the hash */
	uint64_t fk = (uint64_t)(uintptr_t)name ^ build_id_size;
	if (build_id_size >= 8) {
		uint64_t w;
		memcpy(&w, build_id, 8);
		fk ^= w;
	}
	struct dso_fast *fe = &s->fast[hash_u64(fk) & (DSO_FAST - 1)];
	if (fe->name == name && fe->bid_size == build_id_size && fe->key == fk && fe->dso)
		return fe->dso;
	struct dso *d = symbols_dso_slow(s, name, build_id, build_id_size);
	fe->name = name;
	fe->bid_size = build_id_size;
	fe->key = fk;
	fe->dso = d;
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
	struct dso_node *n = calloc(1, sizeof *n);
	if (!n)
		return NULL;
	n->dso.name = symbols_intern(s, name);
	n->dso.owner = s;
	n->dso.id = k;
	if (build_id_size) {
		memcpy(n->dso.build_id, build_id, build_id_size);
		n->dso.build_id_size = (uint8_t)build_id_size;
	}
	n->next = head;
	hmap_put(&s->dsos, k, n);
	load_dso(s, &n->dso);
	return &n->dso;
}

const struct sym *dso_find_sym(struct dso *d, uint64_t rel)
{
	struct sym *y = (struct sym *)symtab_find(&d->symtab, rel);
	if (y && !y->demangled) {
		char *dm = demangle_alloc(y->name);
		if (dm) {
			y->name = arena_strdup(d->owner, dm);
			free(dm);
		}
		y->demangled = true;
	}
	return y;
}

/* ---- DWARF inline chains ------------------------------------------------ */

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

static const char *file_name(struct symbols *s, Dwarf_Die *cu, Dwarf_Word idx)
{
	Dwarf_Files *files;
	size_t nf;
	if (dwarf_getsrcfiles(cu, &files, &nf) || idx >= nf)
		return NULL;
	return symbols_intern(s, dwarf_filesrc(files, idx, NULL, NULL));
}

static void ensure_dwarf(struct dso *d)
{
	if (d->dwarf_tried)
		return;
	d->dwarf_tried = true;
	if (d->debug_elf)
		d->dwarf = dwarf_begin_elf(d->debug_elf, DWARF_C_READ, NULL);
	if (!d->dwarf && d->elf)
		d->dwarf = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL);
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

/*
 * binutils' addr2line names the innermost function of an address whose DIE
 * has no linkage name after the ELF symbol covering the address, the first
 * time that DIE is looked up; it then marks the DIE as named, keeping the
 * ELF name only when the symbol starts where the DIE does. perf keeps one
 * addr2line per DSO and asks once per address, in sample order, and so do
 * we: the result depends on that order, which is the same.
 */
static void a2l_prepare(struct symbols *s, struct dso *d, Dwarf_Die *die, uint64_t rel,
			struct inline_entry *e)
{
	/* binutils treats DW_AT_name as the linkage name in languages that do
	 * not mangle (C, assembler, Fortran 77, Pascal, ...) */
	Dwarf_Die cu;
	Dwarf_Attribute a;
	Dwarf_Word lang = 0;
	if (dwarf_diecu(die, &cu, NULL, NULL) && dwarf_attr(&cu, DW_AT_language, &a))
		dwarf_formudata(&a, &lang);
	switch (lang) {
	case DW_LANG_C89: case DW_LANG_C: case DW_LANG_C99: case DW_LANG_C11:
	case DW_LANG_Mips_Assembler: case DW_LANG_Fortran77: case DW_LANG_Pascal83:
	case DW_LANG_Cobol74: case DW_LANG_Cobol85: case DW_LANG_PLI: case DW_LANG_UPC:
		return;
	default:
		break;
	}
	if (!d->a2l_loaded)
		load_a2l_syms(s, d);
	if (!d->a2l_syms.nr)
		return;
	e->a2l = true;
	e->die = dwarf_dieoffset(die);
	const struct sym *y = symtab_find(&d->a2l_syms, rel);
	if (y) {
		e->alt_name = symbols_demangle(s, y->name);
		Dwarf_Addr base, lo, hi;
		uint64_t lo_rel;
		e->keep_alt = dwarf_ranges(die, 0, &base, &lo, &hi) > 0 && svma_to_rel(d, lo, &lo_rel) &&
			      lo_rel == y->start;
	}
}

const char *a2l_decide(struct a2l_state *st, uint64_t dso_id, uint64_t rel,
		       const struct inline_entry *e)
{
	if (!e->a2l)
		return e->name;
	if (!st->addr) {
		st->addr = calloc(1, sizeof(struct hmap));
		st->die = calloc(1, sizeof(struct hmap));
		if (!st->addr || !st->die)
			abort();
		hmap_init(st->addr);
		hmap_init(st->die);
	}
	static const char none[] = "";
	uint64_t ka = hash_u64(dso_id ^ hash_u64(rel));
	const char *v = hmap_get(st->addr, ka);
	if (v)
		return v == none ? NULL : v;
	uint64_t kd = hash_u64(dso_id ^ hash_u64(e->die ^ 0xd1e));
	const char *name = hmap_get(st->die, kd);
	if (name) {
		if (name == none)
			name = NULL;
	} else {
		/* first lookup of the DIE: the ELF name when one covers rel */
		name = e->alt_name ? e->alt_name : e->name;
		const char *keep = e->keep_alt && e->alt_name ? e->alt_name : e->name;
		hmap_put(st->die, kd, (void *)(keep ? keep : none));
	}
	hmap_put(st->addr, ka, (void *)(name ? name : none));
	return name;
}

void a2l_state_release(struct a2l_state *st)
{
	if (st->addr) {
		hmap_release(st->addr);
		free(st->addr);
	}
	if (st->die) {
		hmap_release(st->die);
		free(st->die);
	}
	st->addr = st->die = NULL;
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
	uint32_t seq;      /* DIE order */
};

struct cu_index {
	struct fn_range *r;
	size_t n, cap;
	bool asm_cu;
};

static int fn_range_cmp(const void *a, const void *b)
{
	const struct fn_range *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void index_scope(struct cu_index *ix, Dwarf_Die *parent, int depth)
{
	Dwarf_Die c;
	if (depth > 8 || dwarf_child(parent, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);
		if (tag == DW_TAG_subprogram) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;
			while ((off = dwarf_ranges(&c, off, &base, &lo, &hi)) > 0) {
				if (lo >= hi)
					continue;
				if (ix->n == ix->cap) {
					ix->cap = ix->cap ? ix->cap * 2 : 64;
					ix->r = realloc(ix->r, ix->cap * sizeof(*ix->r));
					if (!ix->r)
						abort();
				}
				ix->r[ix->n] = (struct fn_range){ lo, hi, dwarf_dieoffset(&c), (uint32_t)ix->n };
				ix->n++;
			}
		} else if (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
			   tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
			   tag == DW_TAG_module) {
			index_scope(ix, &c, depth + 1);
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

static struct cu_index *cu_index_of(struct dso *d, Dwarf_Die *cu)
{
	if (!d->cu_index) {
		d->cu_index = calloc(1, sizeof(struct hmap));
		if (!d->cu_index)
			return NULL;
		hmap_init(d->cu_index);
	}
	uint64_t key = dwarf_dieoffset(cu);
	struct cu_index *ix = hmap_get(d->cu_index, key);
	if (ix)
		return ix;
	ix = calloc(1, sizeof(*ix));
	if (!ix)
		return NULL;
	Dwarf_Attribute a;
	Dwarf_Word lang = 0;
	if (dwarf_attr(cu, DW_AT_language, &a))
		dwarf_formudata(&a, &lang);
	ix->asm_cu = lang == DW_LANG_Mips_Assembler;
	index_scope(ix, cu, 0);
	if (ix->n)
		qsort(ix->r, ix->n, sizeof(*ix->r), fn_range_cmp);
	hmap_put(d->cu_index, key, ix);
	return ix;
}

/* The function DIE containing svma: the first in DIE order, or for gas's
 * alias subprograms the last (see last_alias). */
static bool index_find(struct dso *d, Dwarf_Die *cu, uint64_t svma, Dwarf_Die *out)
{
	struct cu_index *ix = cu_index_of(d, cu);
	if (!ix || !ix->n)
		return false;
	size_t lo = 0, hi = ix->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ix->r[mid].lo <= svma)
			lo = mid + 1;
		else
			hi = mid;
	}
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
	return best && dwarf_offdie(d->dwarf, best->off, out) != NULL;
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

static struct inl_result *compute_inlines(struct symbols *s, struct dso *d, uint64_t rel)
{
	uint64_t svma;
	ensure_dwarf(d);
	if (!d->dwarf || !dso_rel_to_svma(d, rel, &svma))
		return NULL;
	Dwarf_Die cu;
	if (!dwarf_addrdie(d->dwarf, svma, &cu))
		return NULL;
	Dwarf_Die *scopes = NULL;
	int n;
	Dwarf_Die fn, path[64];
	if (index_find(d, &cu, svma, &fn)) {
		/* fast path: the function from the CU index, then its inlines;
		 * scopes innermost first, as dwarf_getscopes_die gives them */
		int np = descend_inlines(&fn, svma, path, 64);
		scopes = malloc((size_t)np * sizeof(*scopes));
		if (!scopes)
			return NULL;
		for (int i = 0; i < np; i++)
			scopes[i] = path[np - 1 - i];
		n = np;
	} else {
		n = dwarf_getscopes(&cu, svma, &scopes);
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
		if (!found)
			return NULL;
		if (dwarf_tag(&inner) == DW_TAG_subprogram)
			last_alias(&cu, &inner, svma);
		/* the concrete nesting (dwarf_getscopes follows abstract origins) */
		n = dwarf_getscopes_die(&inner, &scopes);
		if (n <= 0) {
			free(scopes);
			return NULL;
		}
	}
	struct inline_entry tmp[64];
	unsigned k = 0;
	/* line of the innermost: from the line table */
	const char *file = NULL;
	int line = 0, col = 0;
	Dwarf_Line *dl = dwarf_getsrc_die(&cu, svma);
	if (dl) {
		file = symbols_intern(s, dwarf_linesrc(dl, NULL, NULL));
		dwarf_lineno(dl, &line);
		dwarf_linecol(dl, &col);
	}
	for (int i = 0; i < n && k < 64; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		tmp[k].name = die_name(s, &scopes[i]);
		tmp[k].a2l = tmp[k].keep_alt = false;
		tmp[k].alt_name = NULL;
		tmp[k].die = 0;
		if (k == 0 && !has_linkage_name(&scopes[i]))
			a2l_prepare(s, d, &scopes[i], rel, &tmp[k]);
		tmp[k].file = file;
		tmp[k].line = (uint32_t)(line > 0 ? line : 0);
		tmp[k].column = (uint32_t)(col > 0 ? col : 0);
		k++;
		if (tag == DW_TAG_subprogram)
			break;
		/* the caller's position is the call site of this inline */
		Dwarf_Attribute a;
		Dwarf_Word w;
		file = NULL;
		line = col = 0;
		if (dwarf_attr(&scopes[i], DW_AT_call_file, &a) && !dwarf_formudata(&a, &w))
			file = file_name(s, &cu, w);
		if (dwarf_attr(&scopes[i], DW_AT_call_line, &a) && !dwarf_formudata(&a, &w))
			line = (int)w;
		if (dwarf_attr(&scopes[i], DW_AT_call_column, &a) && !dwarf_formudata(&a, &w))
			col = (int)w;
	}
	free(scopes);
	if (!k)
		return NULL;
	struct inl_result *r = arena_alloc(s, sizeof *r + k * sizeof(struct inline_entry));
	r->n = k;
	memcpy(r->e, tmp, k * sizeof tmp[0]);
	return r;
}

static struct inl_result no_inl;

unsigned dso_inlines(struct dso *d, uint64_t rel, const struct inline_entry **out)
{
	struct symbols *s = d->owner;
	if (!d->inl_cache) {
		d->inl_cache = calloc(1, sizeof(struct hmap));
		hmap_init(d->inl_cache);
	}
	struct inl_result *r = hmap_get(d->inl_cache, rel);
	if (!r) {
		r = compute_inlines(s, d, rel);
		if (!r)
			r = &no_inl;
		hmap_put(d->inl_cache, rel, r);
	}
	*out = r->e;
	return r->n;
}

/* ---- kallsyms ----------------------------------------------------------- */

static void load_kallsyms(struct symbols *s)
{
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
			char hex[41];
			hexid(hex, b->id, b->size);
			snprintf(cached, sizeof cached, "%s/[kernel.kallsyms]/%s/kallsyms", s->buildid_dir, hex);
			if (file_exists(cached))
				path = cached;
			break;
		}
	}
	if (!path)
		path = "/proc/kallsyms";
	FILE *f = fopen(path, "r");
	if (!f) {
		warn_once(s, "kallsyms", "%s: cannot open, kernel frames are [unknown]", path);
		return;
	}
	struct rawsym *raw = NULL;
	char **mods = NULL;
	size_t n = 0, cap = 0;
	char line[1024];
	bool all_zero = true;
	while (fgets(line, sizeof line, f)) {
		char *end;
		uint64_t addr = strtoull(line, &end, 16);
		if (end == line || *end != ' ')
			continue;
		char type = end[1];
		if (!type || end[2] != ' ')
			continue;
		char t = (char)toupper((unsigned char)type);
		if (t != 'T' && t != 'W' && t != 'D' && t != 'B')
			continue;
		char *name = end + 3;
		char *nl = strpbrk(name, "\t\n");
		char *mod = NULL;
		if (nl && *nl == '\t') {
			*nl = 0;
			mod = nl + 1;
			char *mnl = strchr(mod, '\n');
			if (mnl)
				*mnl = 0;
		} else if (nl)
			*nl = 0;
		if (addr)
			all_zero = false;
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			raw = realloc(raw, cap * sizeof *raw);
			mods = realloc(mods, cap * sizeof *mods);
			if (!raw || !mods)
				abort();
		}
		uint8_t bind = type == 'W' || type == 'w' ? STB_WEAK
			      : isupper((unsigned char)type) ? STB_GLOBAL : STB_LOCAL;
		size_t nl2 = strlen(name);
		char *copy = arena_alloc(s, nl2 + 1);
		memcpy(copy, name, nl2 + 1);
		raw[n] = (struct rawsym){ .start = addr, .size = 0, .name = copy,
					  .idx = (uint32_t)n, .bind = bind };
		mods[n] = mod ? (char *)symbols_intern(s, mod) : NULL;
		n++;
	}
	fclose(f);
	if (all_zero) {
		warn_once(s, "kptr", "kernel addresses are hidden (kptr_restrict): kernel frames are [unknown]");
		free(raw);
		free(mods);
		return;
	}
	/* perf (kallsyms): sort, extend unsized symbols to the next one (page
	 * rounding where vmlinux meets a module), then drop aliases, so of
	 * symbols sharing an address only the last one has a size and wins. */
	if (n)
		qsort(raw, n, sizeof *raw, rawsym_cmp);
	for (size_t i = 0; i < n; i++) {
		uint64_t end;
		if (i + 1 < n) {
			end = raw[i + 1].start;
			if ((!mods[raw[i].idx]) != (!mods[raw[i + 1].idx]))
				end = ((raw[i].start + 4096) + 4095) & ~4095ULL;
		} else
			end = (raw[i].start & ~4095ULL) + 4096;
		raw[i].size = end - raw[i].start;
	}
	char **sorted = calloc(n ? n : 1, sizeof *sorted);
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if (w && raw[w - 1].start == raw[i].start) {
			if (!sym_better(&raw[w - 1], &raw[i])) {
				raw[w - 1] = raw[i];
				sorted[w - 1] = mods[raw[i].idx];
			}
			continue;
		}
		sorted[w] = mods[raw[i].idx];
		raw[w++] = raw[i];
	}
	n = w;
	free(mods);
	struct symtab *t = &s->kernel;
	t->syms = calloc(n ? n : 1, sizeof *t->syms);
	t->nr = n;
	for (size_t i = 0; i < n; i++) {
		struct sym *y = &t->syms[i];
		y->start = raw[i].start;
		y->end = raw[i].start + raw[i].size;
		y->name = raw[i].name;
	}
	s->kmod_names = sorted;
	s->kernel_ok = n > 0;
	free(raw);
}

const struct symtab *symbols_kernel(struct symbols *s)
{
	if (!s->kernel_tried)
		load_kallsyms(s);
	return s->kernel_ok ? &s->kernel : NULL;
}

const char *symbols_kernel_module(struct symbols *s, const struct sym *sym)
{
	if (!s->kmod_names || !sym)
		return NULL;
	size_t i = (size_t)(sym - s->kernel.syms);
	if (i >= s->kernel.nr || !s->kmod_names[i])
		return NULL;
	char b[256];
	const char *m = s->kmod_names[i];
	if (m[0] == '[')
		return m;
	snprintf(b, sizeof b, "[%s]", m);
	return symbols_intern(s, b);
}

/* ---- perf-PID.map ------------------------------------------------------- */

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
	struct rawsym *raw = NULL;
	size_t n = 0, cap = 0;
	char line[4096];
	while (fgets(line, sizeof line, f)) {
		char *e1, *e2;
		uint64_t start = strtoull(line, &e1, 16);
		if (e1 == line || *e1 != ' ')
			continue;
		uint64_t size = strtoull(e1 + 1, &e2, 16);
		if (e2 == e1 + 1 || *e2 != ' ')
			continue;
		char *name = e2 + 1;
		name[strcspn(name, "\n")] = 0;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			raw = realloc(raw, cap * sizeof *raw);
			if (!raw)
				abort();
		}
		raw[n] = (struct rawsym){ .start = start, .size = size, .name = symbols_intern(s, name),
					  .idx = (uint32_t)n, .bind = STB_GLOBAL };
		n++;
	}
	fclose(f);
	t = calloc(1, sizeof *t);
	symtab_build(s, t, raw, n);
	free(raw);
	hmap_put(&s->perfmaps, pid, t);
	return t;
}

/* ---- lifetime ----------------------------------------------------------- */

struct symbols *symbols_new(const struct symbols_config *c)
{
	struct symbols *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	if (c)
		s->cfg = *c;
	elf_version(EV_CURRENT);
	if (s->cfg.buildid_dir)
		s->buildid_dir = strdup(s->cfg.buildid_dir);
	else {
		const char *home = getenv("HOME");
		char p[PATH_MAX];
		snprintf(p, sizeof p, "%s/.debug", home ? home : "/root");
		s->buildid_dir = strdup(p);
	}
	hmap_init(&s->dsos);
	hmap_init(&s->bid_by_path);
	hmap_init(&s->perfmaps);
	hmap_init(&s->interned);
	hmap_init(&s->warned);
	return s;
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
	struct bid_node *b = arena_alloc(s, sizeof *b);
	b->path = symbols_intern(s, path);
	memcpy(b->id, id, size);
	b->size = (uint8_t)size;
	b->next = head;
	hmap_put(&s->bid_by_path, h, b);
}

static void dso_release(struct dso *d)
{
	if (d->dwarf)
		dwarf_end(d->dwarf);
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
	free(d->symtab.syms);
	free(d->a2l_syms.syms);
	if (d->cu_index) {
		struct hmap *h = d->cu_index;
		for (size_t i = 0; i < h->cap; i++)
			if (h->used[i]) {
				struct cu_index *ix = h->vals[i];
				free(ix->r);
				free(ix);
			}
		hmap_release(h);
		free(h);
	}
	if (d->inl_cache) {
		hmap_release(d->inl_cache);
		free(d->inl_cache);
	}
}

void symbols_free(struct symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->dsos.cap; i++) {
		if (!s->dsos.used[i])
			continue;
		struct dso_node *n = s->dsos.vals[i];
		while (n) {
			struct dso_node *next = n->next;
			dso_release(&n->dso);
			free(n);
			n = next;
		}
	}
	for (size_t i = 0; i < s->perfmaps.cap; i++) {
		if (!s->perfmaps.used[i] || s->perfmaps.vals[i] == &no_symtab)
			continue;
		struct symtab *t = s->perfmaps.vals[i];
		free(t->syms);
		free(t);
	}
	hmap_release(&s->dsos);
	hmap_release(&s->bid_by_path);
	hmap_release(&s->perfmaps);
	hmap_release(&s->interned);
	hmap_release(&s->warned);
	free(s->kernel.syms);
	free(s->kmod_names);
	free(s->buildid_dir);
#ifdef HAVE_DEBUGINFOD
	if (s->dbgd)
		dbgd_api()->end(s->dbgd);
#endif
	while (s->chunks) {
		struct chunk *c = s->chunks->next;
		free(s->chunks);
		s->chunks = c;
	}
	free(s);
}
