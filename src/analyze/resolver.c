/*
 * resolver.c: a sample -> its symbolized frames (see resolver.h).
 *
 * Order of a stack, as perf script prints it: the callchain's kernel part
 * (context markers switch the kind and are not frames), then the user part:
 * the callchain's user entries (frame pointers), or the DWARF unwind of the
 * stack copy when the sample has one, or the LBR call stack. Each physical
 * DWARF-unwound frame is expanded into its inline chain (innermost first);
 * frame-pointer, LBR and kernel frames are not (perf script does the same).
 * Names follow perf: the ELF symbol (perf's alias choice); where DWARF has an
 * inline chain, the names addr2line gives, the outermost shown as the real
 * frame only when its name is the ELF symbol's.
 *
 * Missing files for hotspot (c->file_warn): the first frame in each mapped
 * file, and the first kernel frame, check the file the way hotspot-perfparser
 * does (the path under the sysroot, then the basename in the app and extra
 * directories; kallsyms readable with a non-zero address) and report it as a
 * typed warning, before the sample is returned: a sink receiving samples in
 * order has seen the report by the time it sees the frame.
 */
#include "analyze/resolver.h"
#include "analyze/kernel/kident.h"
#include "analyze/dwarf/a2l.h"
#include "analyze/dwarf/inlines.h"
#include "analyze/symbols/jitdump.h"
#include "analyze/symbols/symbols.h"
#include "analyze/unwind/stackmem.h"
#include "analyze/unwind/unwind.h"
#include "util/buf.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_UNWIND 4096

/* What resolving reads from the session for the sample at hand: its
 * process (its maps), the kernel's maps (pid -1) and the comm. */
struct resolve_view {
	const struct process *proc;
	const struct process *kernel;
	const char *comm;
	bool jitdump;                /* session_jitdump: JIT dumps to look in */
};

struct resolver {
	struct session *s;
	struct symbols *syms;
	struct unwinder *unw;
	int max_frames;
	bool max_frames_per_part; /* pipeline_config's */
	bool no_inline;
	uint8_t frame_lines;     /* PIPELINE_LINES_*, 0: none */
	bool ip_only;
	bool no_dwarf;            /* the recording's arch has no register table */
	char arch_msg[128];       /* its warning, given on the first DWARF sample */
	struct frame *frames;
	size_t cap;
	struct unwind_frame *uf;
	struct resolver_stats st;
	const char *kernel_name;
	const struct perf_header *hdr;
	char *sysroot_kallsyms;   /* SYSROOT/proc/kallsyms when --sysroot has one */
	bool user_kallsyms;       /* --kallsyms / --sysroot supply the kernel's symbols */
	bool kernel_checked;      /* kident decided whether this machine's kallsyms fit */
	struct hmap kmod_ids;     /* hash of a module path in the build-id table -> path */
	const char *unknown_name;
	resolver_warn_fn warn;
	void *warn_ctx;
	struct resolve_view cur;  /* the maps of the sample being resolved */
	struct a2l_state a2l;     /* addr2line's order-dependent names (sequential) */
	bool defer_a2l;           /* leave them to the caller (-j blocks) */
	struct resolver_deferred *def; /* the last sample's deferred names */
	size_t def_cap;
	uint32_t nr_def;
	/* hotspot's missing-file reports (check_files) */
	bool check_files, kallsyms_checked;
	const char *sysroot, *app_path, *extra_paths, *kallsyms;
	struct ptrset files_checked; /* file name pointers */
	/* JIT dumps (jit_of): per pid, the process's generation it was looked
	 * for at and what was found; the last answer again for the next frame */
	struct hmap jits;         /* pid -> struct jit_seen * */
	const struct process *jit_proc;
	uint64_t jit_gen;
	const struct jit_seen *jit_last;
	uint64_t jit_time;        /* the sample's time, comparable with the dump's, or UINT64_MAX */
};

struct jit_seen {
	uint64_t generation;
	const struct jitdump *jd; /* NULL: the process maps no JIT dump */
	const char *name;         /* its recorded path */
};

static void report(struct resolver *r, const struct resolver_warning *w)
{
	if (r->warn)
		r->warn(r->warn_ctx, w);
	else if (w->kind == RESOLVER_WARN_NOTE)
		fprintf(stderr, "scorch: %s\n", w->msg);
}

static void forward_warn(void *ctx, const char *msg)
{
	struct resolver_warning w = { .kind = RESOLVER_WARN_NOTE, .msg = msg };
	report(ctx, &w);
}

uint64_t resolver_warning_hash(const struct resolver_warning *w)
{
	uint64_t h = hash_u64(w->kind);
	if (w->file)
		h ^= hash_bytes(w->file, strlen(w->file));
	if (w->msg)
		h = hash_u64(h) ^ hash_bytes(w->msg, strlen(w->msg));
	return h;
}

int resolver_warnings_add(struct resolver_warnings *l, const struct resolver_warning *w)
{
	if (l->n == l->cap && ARRAY_GROW(l->w, l->cap, l->n + 1, (size_t)1 << 16))
		return -ENOMEM;
	char *file = w->file ? xstrdup(w->file) : NULL, *msg = w->msg ? xstrdup(w->msg) : NULL;
	l->w[l->n++] = (struct resolver_warning){ .kind = w->kind, .file = file, .msg = msg };
	return 0;
}

void resolver_warnings_clear(struct resolver_warnings *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free((char *)l->w[i].file);
		free((char *)l->w[i].msg);
	}
	l->n = 0;
}

void resolver_warnings_free(struct resolver_warnings *l)
{
	resolver_warnings_clear(l);
	free(l->w);
	l->w = NULL;
	l->cap = 0;
}

void resolver_warning_route(const struct pipeline_config *c, const struct resolver_warning *w)
{
	if (w->kind != RESOLVER_WARN_NOTE) {
		if (c && c->file_warn)
			c->file_warn(c->file_warn_ctx, w);
	} else if (c && c->warn) {
		c->warn(c->warn_ctx, w->msg);
	} else {
		fprintf(stderr, "scorch: %s\n", w->msg);
	}
}

struct resolver *resolver_new(const struct pipeline_config *c, struct session *s,
			      const struct perf_header *h)
{
	struct resolver *r = xcalloc(1, sizeof(*r));
	r->s = s;
	r->max_frames = c && c->max_frames > 0 ? c->max_frames : PIPELINE_FRAMES_ALL;
	r->max_frames_per_part = c && c->max_frames_per_part;
	r->no_inline = c && c->no_inline;
	r->frame_lines = c && !c->no_srclines ? c->frame_lines : 0;
	r->ip_only = c && c->ip_only;
	struct symbols_config sc = { 0 };
	if (c) {
		sc.sysroot = c->sysroot;
		sc.debug_paths = c->debug_paths;
		sc.extra_paths = c->extra_paths;
		sc.app_path = c->app_path;
		sc.kallsyms = c->kallsyms;
		sc.buildid_dir = c->buildid_dir;
		sc.debuginfod = c->debuginfod;
		if (!c->kallsyms && c->sysroot) {
			/* a sysroot of the recording machine may carry its kallsyms */
			char kp[4096];
			snprintf(kp, sizeof kp, "%s/proc/kallsyms", c->sysroot);
			if (access(kp, R_OK) == 0)
				sc.kallsyms = r->sysroot_kallsyms = xstrdup(kp);
		}
		r->user_kallsyms = sc.kallsyms != NULL;
		r->check_files = c->file_warn != NULL;
		r->sysroot = c->sysroot;
		r->app_path = c->app_path;
		r->extra_paths = c->extra_paths;
		r->kallsyms = c->kallsyms;
	}
	ptrset_init(&r->files_checked);
	r->hdr = h;
	sc.warn = forward_warn;
	sc.warn_ctx = r;
	sc.no_lines = c && c->no_srclines;
	r->syms = symbols_new(&sc);
	hmap_init(&r->kmod_ids);
	hmap_init(&r->jits);
	r->jit_time = UINT64_MAX;
	/* the recording's build ids, then those it lacks that an archive
	 * gives (pipeline_config.build_ids) */
	uint32_t nh = h ? h->nr_build_ids : 0, nx = c ? c->nr_build_ids : 0;
	for (uint32_t i = 0; i < nh + nx; i++) {
		const struct perf_build_id *b = i < nh ? &h->build_ids[i] : &c->build_ids[i - nh];
		symbols_add_build_id(r->syms, b->filename, b->id, b->size);
		if (b->filename && b->filename[0] == '/')
			hmap_put(&r->kmod_ids, hash_bytes(b->filename, strlen(b->filename)),
				 (void *)symbols_intern(r->syms, b->filename));
	}
	r->unw = unwinder_new(r->syms);
	/* the unwinder's register table is x86_64's (unwind_dwarf.c) */
	if (h && h->arch && *h->arch && strcmp(h->arch, "x86_64")) {
		r->no_dwarf = true;
		snprintf(r->arch_msg, sizeof r->arch_msg,
			 "recorded on %s: DWARF stacks not unwound (x86_64 only)", h->arch);
	}
	if (c && c->stack_limit)
		unwinder_set_stack_limit(r->unw, c->stack_limit);
	r->uf = xcalloc(MAX_UNWIND, sizeof(*r->uf));
	r->kernel_name = session_intern(s, "[kernel.kallsyms]");
	return r;
}

void resolver_defer_a2l(struct resolver *r)
{
	r->defer_a2l = true;
}

const struct resolver_deferred *resolver_deferred(const struct resolver *r, uint32_t *nr)
{
	*nr = r->nr_def;
	return r->def;
}

void resolver_apply_deferred(struct a2l_state *st, const struct resolver_deferred *d, uint32_t nr,
			     struct resolved_sample *rs)
{
	for (uint32_t i = 0; i < nr; i++) {
		if (d[i].frame >= rs->nr_frames)
			continue;
		struct frame *f = &rs->frames[d[i].frame];
		const char *name = a2l_decide(st, d[i].dso, f->rel, d[i].entry);
		if (!name)
			name = d[i].elf_sym;
		f->sym = name;
		f->inlined = !(name && d[i].elf_sym && !strcmp(name, d[i].elf_sym));
	}
}

void resolver_set_warn(struct resolver *r, resolver_warn_fn fn, void *ctx)
{
	r->warn = fn;
	r->warn_ctx = ctx;
}

void resolver_set_unwind_share(struct resolver *r, struct unwind_share *sh)
{
	unwinder_set_share(r->unw, sh);
}

void resolver_keep(struct resolver *r)
{
	if (!r)
		return;
	unwinder_keep(r->unw);
	symbols_keep(r->syms);
}

void resolver_free(struct resolver *r)
{
	if (!r)
		return;
	unwinder_free(r->unw);
	free(r->sysroot_kallsyms);
	hmap_release(&r->kmod_ids);
	hmap_release_vals(&r->jits, free);
	a2l_state_release(&r->a2l);
	ptrset_release(&r->files_checked);
	free(r->def);
	symbols_free(r->syms);
	free(r->frames);
	free(r->uf);
	free(r);
}

const struct resolver_stats *resolver_stats(const struct resolver *r)
{
	static struct resolver_stats st;
	(void)st;
	struct resolver *m = (struct resolver *)r;
	const struct unwinder_stats *us = unwinder_stats(r->unw);
	m->st.dwarf_unwinds = us->unwinds;
	m->st.cfi_rows = us->cfi_rows;
	m->st.fp_fallbacks = us->fp_fallbacks;
	return &r->st;
}

static uint8_t kind_of_cpumode(uint16_t cm)
{
	switch (cm) {
	case PERF_RECORD_MISC_KERNEL: return FRAME_KERNEL;
	case PERF_RECORD_MISC_HYPERVISOR: return FRAME_HV;
	case PERF_RECORD_MISC_GUEST_KERNEL: return FRAME_GUEST_KERNEL;
	case PERF_RECORD_MISC_GUEST_USER: return FRAME_GUEST_USER;
	default: return FRAME_USER;
	}
}

static bool is_kernel_kind(uint8_t kind)
{
	return kind == FRAME_KERNEL || kind == FRAME_GUEST_KERNEL || kind == FRAME_HV;
}

/* The names perf's map__new treats as anonymous (or no-DSO) memory: an
 * executable one is named /tmp/perf-PID.map. */
static bool perf_anon_name(const char *n)
{
	return n && (!strcmp(n, "//anon") || !strncmp(n, "/dev/zero", 9) ||
		     !strncmp(n, "/anon_hugepage", 14) || !strncmp(n, "[stack", 6) ||
		     !strncmp(n, "/SYSV", 5) || !strcmp(n, "[heap]"));
}

/* perf's name of a kernel module file: its path when the recording's
 * build-id table lists it (perf made the DSO from that table), else the
 * short name: the basename without ".ko" (and a compression suffix), '-'
 * as '_', in brackets: "[ath9k_hw]". */
static const char *module_name(struct resolver *r, const char *path)
{
	const char *listed = hmap_get(&r->kmod_ids, hash_bytes(path, strlen(path)));
	if (listed && !strcmp(listed, path))
		return listed;
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t n = strlen(b);
	static const char *const sfx[] = { ".ko", ".ko.gz", ".ko.xz", ".ko.zst" };
	for (size_t i = 0; i < sizeof(sfx) / sizeof(*sfx); i++) {
		size_t k = strlen(sfx[i]);
		if (n > k && !strcmp(b + n - k, sfx[i])) {
			n -= k;
			break;
		}
	}
	char name[256];
	if (n > sizeof(name) - 3)
		n = sizeof(name) - 3;
	name[0] = '[';
	for (size_t i = 0; i < n; i++)
		name[i + 1] = b[i] == '-' ? '_' : b[i];
	name[n + 1] = ']';
	name[n + 2] = 0;
	return symbols_intern(r->syms, name);
}

/* Once, before the first kernel symbol: may this machine's kallsyms name
 * the recording's kernel (kident.h)? If not, kernel frames stay [unknown]
 * in every output, unless --kallsyms/--sysroot or perf's build-id cache
 * supply the recorded kernel's symbols. */
static void kernel_check(struct resolver *r)
{
	r->kernel_checked = true;
	if (r->user_kallsyms)
		return;
	struct kident_evidence ev = { 0 };
	const struct perf_header *h = r->hdr;
	for (uint32_t i = 0; h && i < h->nr_build_ids; i++)
		if (h->build_ids[i].filename && !strcmp(h->build_ids[i].filename, "[kernel.kallsyms]")) {
			ev.build_id = h->build_ids[i].id;
			ev.build_id_size = h->build_ids[i].size;
		}
	ev.osrelease = h ? h->osrelease : NULL;
	const struct process *kp = r->cur.kernel;
	for (size_t i = 0; kp && i < kp->nr_maps; i++) {
		const struct map *m = &kp->maps[i];
		if (!m->filename)
			continue;
		if (!ev.module_path && !strncmp(m->filename, "/lib/modules/", 13))
			ev.module_path = m->filename;
		if (!ev.ref_name && !strncmp(m->filename, "[kernel.kallsyms]", 17) && m->filename[17]) {
			ev.ref_name = m->filename + 17;
			ev.ref_addr = m->pgoff;
		}
	}
	char why[300];
	if (!kident_same(&ev, NULL, why, sizeof why)) {
		char msg[400];
		snprintf(msg, sizeof msg, "%s: this machine's kernel symbols do not fit, kernel frames "
			 "are [unknown] (--kallsyms FILE names them)", why);
		symbols_set_running_kernel(r->syms, false, msg);
	}
}

/* Fill f for ip without inline expansion; returns the DSO when the frame is
 * in a file with symbols (for inline lookup), else NULL. */

/* The symbol y (or none) as frame f's, ip's offset in it. */
static void frame_set_sym(struct frame *f, const struct sym *y, uint64_t ip)
{
	if (!y)
		return;
	f->sym = y->name;
	f->sym_start = y->start;
	f->sym_off = ip - y->start;
}

/* perf's name of a process's JIT map file, interned */
static const char *perfmap_name(struct resolver *r, uint32_t pid)
{
	char b[64];
	snprintf(b, sizeof b, "/tmp/perf-%u.map", pid);
	return symbols_intern(r->syms, b);
}
/* The JIT dump the current process mapped, or NULL: looked for again only
 * when its maps change. */
static const struct jit_seen *jit_of(struct resolver *r, uint32_t pid)
{
	const struct process *p = r->cur.proc;
	if (!p)
		return NULL;
	if (p == r->jit_proc && p->generation == r->jit_gen)
		return r->jit_last;
	struct jit_seen *js = hmap_get(&r->jits, pid);
	if (!js) {
		js = xcalloc(1, sizeof *js);
		js->generation = p->generation + 1; /* not yet looked */
		hmap_put(&r->jits, pid, js);
	}
	if (js->generation != p->generation) {
		js->generation = p->generation;
		if (!js->jd) /* once found, a dump stays the process's */
			for (size_t i = 0; i < p->nr_maps; i++)
				if (p->maps[i].filename && jitdump_is_marker(p->maps[i].filename)) {
					js->jd = symbols_jitdump(r->syms, p->maps[i].filename, &js->name);
					break;
				}
	}
	r->jit_proc = p;
	r->jit_gen = p->generation;
	r->jit_last = js;
	return js;
}

/* ip in a function of the process's JIT dump: f named by it (its dump as
 * the DSO, the source line when the dump has one). perf inject --jit lays
 * each function over the address space at its time: the dump wins over
 * the mapping there. */
static bool jit_symbolize(struct resolver *r, uint32_t pid, uint64_t ip, struct frame *f)
{
	const struct jit_seen *js = jit_of(r, pid);
	if (!js || !js->jd)
		return false;
	const struct jitdump_fn *fn = jitdump_find(js->jd, ip, js->jd->arch_time ? UINT64_MAX : r->jit_time);
	if (!fn)
		return false;
	f->dso = js->name;
	f->dso_handle = f->dso;
	f->rel = ip;
	f->sym = fn->name;
	f->sym_start = fn->start;
	f->sym_off = ip - fn->start;
	if (symbols_want_lines(r->syms))
		jitdump_line(js->jd, fn, ip, &f->file, &f->line);
	return true;
}

/* hint: the unwinder's lookups for ip in r->cur.proc, or NULL */
_Static_assert(sizeof(struct frame) == 104, "symbolize sets each field of struct frame: add the new one there");

static struct dso *symbolize(struct resolver *r, uint32_t pid, uint64_t ip, uint8_t kind,
			     struct frame *f, const struct unwind_frame *hint)
{
	/* field by field: a memset of the struct compiles to `rep stos`, whose
	 * start-up was a third of this function's time (perf record) */
	f->ip = ip;
	f->rel = 0;
	f->sym = NULL;
	f->sym_off = f->sym_start = 0;
	f->dso = NULL;
	f->file = NULL;
	f->line = f->column = 0;
	f->kind = kind;
	f->inlined = f->guessed = false;
	f->dso_handle = NULL;
	f->dso_ident = 0;
	f->map = NULL;
	f->cfa = hint ? hint->cfa : 0;
	if (is_kernel_kind(kind)) {
		const struct map *m = process_find_map(r->cur.kernel, ip);
		f->map = m;
		f->rel = ip;
		const struct process *kp = r->cur.kernel;
		if (!m && ((kp && kp->nr_maps && ip < kp->maps[0].start) ||
			   ((!kp || !kp->nr_maps) && !r->user_kallsyms)))
			return NULL; /* as perf: a user address, or no kernel map (a
				      * user-only recording) and no --kallsyms given:
				      * [unknown] ([unknown]) */
		if (!r->kernel_checked)
			kernel_check(r);
		const char *mod;
		const struct sym *y = symbols_kernel_lookup(r->syms, ip, &mod);
		if (m && m->filename && m->filename[0] == '/') {
			/* a module mapped from a .ko file: perf names it [name] */
			f->dso = module_name(r, m->filename);
		} else {
			f->dso = mod ? mod : r->kernel_name;
		}
		f->dso_handle = f->dso;
		frame_set_sym(f, y, ip);
		return NULL;
	}
	const struct map *m = hint && hint->map_set ? hint->map : process_find_map(r->cur.proc, ip);
	f->map = m;
	if (r->cur.jitdump && jit_symbolize(r, pid, ip, f))
		return NULL;
	if (!m) {
		/* JIT code without a mapping record */
		const struct symtab *pm = symbols_perfmap(r->syms, pid);
		const struct sym *y = pm ? symtab_find(pm, ip) : NULL;
		if (y) {
			f->dso = perfmap_name(r, pid);
			f->dso_handle = f->dso;
			frame_set_sym(f, y, ip);
		}
		return NULL;
	}
	f->dso = m->filename;
	f->rel = ip - m->start + m->pgoff;
	if (frame_anon_name(m->filename)) {
		const struct symtab *pm = symbols_perfmap(r->syms, pid);
		const struct sym *y = pm ? symtab_find(pm, ip) : NULL;
		if (pm || perf_anon_name(m->filename)) {
			/* perf names anonymous executable memory after the
			 * JIT map file, there or not, with absolute addresses */
			f->dso = perfmap_name(r, pid);
			f->rel = ip;
		}
		f->dso_handle = f->dso;
		frame_set_sym(f, y, ip);
		return NULL;
	}
	struct dso *d = hint && hint->dso_set ? hint->dso
					     : symbols_dso(r->syms, m->filename, m->build_id, m->build_id_size);
	f->dso_handle = d ? (const void *)d : (const void *)m->filename;
	f->dso_ident = d ? d->ident : 0;
	if (!d || d->missing)
		return NULL;
	const struct sym *y = hint && hint->sym_set ? hint->sym : dso_find_sym(d, f->rel);
	if (y) {
		f->sym = y->name;
		f->sym_start = y->start;
		f->sym_off = f->rel - y->start;
	}
	return d;
}

void resolver_symbolize(struct resolver *r, uint32_t pid, uint64_t ip, uint8_t kind, struct frame *f)
{
	r->cur.proc = session_process(r->s, pid);
	r->cur.kernel = session_process(r->s, SESSION_KERNEL_PID);
	r->cur.jitdump = session_jitdump(r->s);
	r->jit_time = UINT64_MAX;
	struct dso *d = symbolize(r, pid, ip, kind, f, NULL);
	if (d) {
		const struct inline_entry *e;
		unsigned n = dso_inlines(d, f->rel, &e);
		if (n) {
			f->file = e[0].file;
			f->line = e[0].line;
			f->column = e[0].column;
		}
	}
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* A file name met for the first time: a mapped file hotspot-perfparser
 * would not find (one the build-id cache holds by its recorded build id,
 * as an archive's directory does, is found: scorch reads it from there). */
static void check_elf(struct resolver *r, const char *path)
{
	if (path[0] != '/' || !strncmp(path, "//anon", 6) || !strncmp(path, "/memfd:", 7) ||
	    !strncmp(path, "/dev/", 5) || strstr(path, " (deleted)"))
		return;
	char buf[4096];
	struct stat st;
	const char *sysroot = r->sysroot && *r->sysroot ? r->sysroot : "";
	snprintf(buf, sizeof(buf), "%s%s", strcmp(sysroot, "/") ? sysroot : "", path);
	if (!stat(buf, &st) || symbols_cached(r->syms, path))
		return;
	const char *dirs[2] = { r->app_path, r->extra_paths };
	for (int i = 0; i < 2; i++) {
		if (!dirs[i] || !*dirs[i])
			continue;
		const char *d = dirs[i];
		while (*d) {
			const char *e = strchr(d, ':');
			size_t n = e ? (size_t)(e - d) : strlen(d);
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, d, base_name(path));
			if (!stat(buf, &st))
				return;
			d += n + (e ? 1 : 0);
		}
	}
	struct resolver_warning w = { .kind = RESOLVER_WARN_NO_ELF, .file = path };
	report(r, &w);
}

/* Once: the kallsyms file hotspot-perfparser would read (--kallsyms, else
 * SYSROOT/proc/kallsyms) is readable and shows addresses. */
static void check_kallsyms(struct resolver *r)
{
	r->kallsyms_checked = true;
	char path[4096];
	if (r->kallsyms && *r->kallsyms)
		snprintf(path, sizeof(path), "%s", r->kallsyms);
	else
		snprintf(path, sizeof(path), "%s/proc/kallsyms",
			 r->sysroot && strcmp(r->sysroot, "/") ? r->sysroot : "");
	FILE *f = fopen(path, "r");
	const char *why = NULL;
	char line[512];
	if (!f) {
		why = strerror(errno);
	} else {
		bool any = false, nonzero = false;
		for (int i = 0; i < 64 && fgets(line, sizeof(line), f); i++) {
			any = true;
			if (strtoull(line, NULL, 16))
				nonzero = true;
		}
		fclose(f);
		if (!any)
			why = "Mapping is empty.";
		else if (!nonzero)
			why = "Mapping only contains zero addresses (restricted by kptr_restrict?).";
	}
	if (why) {
		struct resolver_warning w = { .kind = RESOLVER_WARN_KALLSYMS, .file = path, .msg = why };
		report(r, &w);
	}
}

/* hotspot's view of a frame's file (the sink's grouping: kernel frames
 * are FRAME_KERNEL and FRAME_GUEST_KERNEL, the rest are checked by file). */
static void check_files(struct resolver *r, const struct frame *f)
{
	if (f->kind == FRAME_KERNEL || f->kind == FRAME_GUEST_KERNEL) {
		if (!r->kallsyms_checked)
			check_kallsyms(r);
	} else if (f->map || f->dso) {
		const char *path = f->map ? f->map->filename : f->dso;
		if (path && ptrset_put(&r->files_checked, path))
			check_elf(r, path);
	}
}


static int grow(struct resolver *r, size_t need)
{
	if (need <= r->cap)
		return 0;
	return ARRAY_GROW(r->frames, r->cap, need, 1u << 22);
}

/* Append the frame(s) of one address: its inline chain, or the plain frame. */
static int push(struct resolver *r, struct resolved_sample *out, uint32_t pid, uint64_t ip,
		uint8_t kind, uint32_t *physical, bool inlines, const struct unwind_frame *hint)
{
	if (*physical >= (uint32_t)r->max_frames) {
		r->st.truncated++;
		out->truncated = true;
		return 1;
	}
	(*physical)++;
	/* the frame made in place (most addresses are one frame: no copy) */
	if (grow(r, out->nr_frames + 1))
		return -ENOMEM;
	out->frames = r->frames;
	struct frame *f0 = &r->frames[out->nr_frames];
	struct dso *d = symbolize(r, pid, ip, kind, f0, hint);
	if (r->check_files)
		check_files(r, f0);
	const struct inline_entry *e = NULL;
	unsigned n = d && inlines && !r->no_inline ? dso_inlines(d, f0->rel, &e) : 0;
	if (!n) {
		if (!f0->sym)
			r->st.frames_unknown++;
		unsigned ne;
		if (d && r->frame_lines && (ne = dso_inlines(d, f0->rel, &e))) {
			unsigned k = r->frame_lines == PIPELINE_LINES_OWN ? ne - 1 : 0;
			f0->file = e[k].file;
			f0->line = e[k].line;
			f0->column = e[k].column;
		}
		out->nr_frames++;
		return 0;
	}
	struct frame f = *f0; /* each entry of the inline chain starts as it */
	if (grow(r, out->nr_frames + n))
		return -ENOMEM;
	out->frames = r->frames;
	for (unsigned i = 0; i < n; i++) {
		struct frame *o = &r->frames[out->nr_frames++];
		*o = f;
		o->file = e[i].file;
		o->line = e[i].line;
		o->column = e[i].column;
		const char *name = e[i].name;
		if (e[i].a2l) {
			if (r->defer_a2l) {
				if (r->nr_def == r->def_cap &&
				    ARRAY_GROW(r->def, r->def_cap, r->nr_def + 1, 1u << 22))
					return -ENOMEM;
				r->def[r->nr_def++] = (struct resolver_deferred){
					.frame = out->nr_frames - 1, .entry = &e[i], .dso = d->id,
					.elf_sym = f.sym };
			} else {
				name = a2l_decide(&r->a2l, d->id, f.rel, &e[i]);
			}
		}
		if (!name)
			name = f.sym;
		bool real = name && f.sym && !strcmp(name, f.sym);
		o->sym = name;
		if (!real) {
			o->inlined = true;
			r->st.frames_inlined++;
		}
	}
	return 0;
}

/* The frame kind a PERF_CONTEXT_* marker in a call chain switches to (an
 * unknown marker keeps the current one). */
static uint8_t context_kind(uint64_t marker, uint8_t kind)
{
	switch (marker) {
	case PERF_CONTEXT_HV: return FRAME_HV;
	case PERF_CONTEXT_KERNEL: return FRAME_KERNEL;
	case PERF_CONTEXT_USER: return FRAME_USER;
	case PERF_CONTEXT_GUEST_KERNEL: return FRAME_GUEST_KERNEL;
	case PERF_CONTEXT_GUEST_USER: return FRAME_GUEST_USER;
	default: return kind;
	}
}

static bool has_dwarf_stack(const struct perf_attr *attr, const struct perf_sample *s)
{
	if (!attr)
		return false;
	uint64_t st = attr->attr.sample_type;
	return (st & PERF_SAMPLE_REGS_USER) && (st & PERF_SAMPLE_STACK_USER) && s->regs_user_nr &&
	       s->regs_user_abi;
}

static const char *outermost_name(const struct resolved_sample *out)
{
	return out->nr_frames ? out->frames[out->nr_frames - 1].sym : NULL;
}

/* How many user frames a DWARF unwind may give after `physical` frames of
 * the call chain: what max_frames leaves, plus one, so that push() sees
 * whether the stack goes on past the limit (truncated) or ends there; 0
 * when nothing of the user stack was captured (dyn size 0: the kernel
 * could not copy it, as in a page fault early in ld.so; perf then reports
 * no user frame at all, not even the sampled ip, and so does scorch). */
static int unwind_budget(const struct resolver *r, const struct perf_sample *s, uint32_t physical)
{
	int max = r->max_frames - (int)physical + 1;
	if (max <= 0)
		return 0;
	uint64_t copied = s->stack_user_dyn_size < s->stack_user_size ? s->stack_user_dyn_size
								      : s->stack_user_size;
	if (!copied || !s->stack_user)
		return 0;
	return max > MAX_UNWIND ? MAX_UNWIND : max;
}

static int unwind_user(struct resolver *r, const struct perf_attr *attr, const struct perf_sample *s,
		       struct resolved_sample *out, uint32_t *physical)
{
	int max = unwind_budget(r, s, *physical);
	if (!max)
		return 0;
	const struct process *proc = r->cur.proc;
	const struct unwind_frame *uf = r->uf;
	int n = unwinder_unwind(r->unw, proc, s, attr->attr.sample_regs_user, r->uf, max);
	if (n < 0)
		return n;
	r->st.dwarf_samples++;
	if (n == 0)
		return 0; /* no usable registers */
	/* the frames carry the unwinder's map and DSO lookups (in proc,
	 * this resolver's symbols) */
	out->user_at = out->nr_frames;
	int i;
	for (i = 0; i < n; i++) {
		const struct unwind_frame *hint = &uf[i];
		/* perf reports nothing past an address in no mapping */
		if (!(hint && hint->map_set ? hint->map : process_find_map(proc, uf[i].pc)))
			break;
		int rc = push(r, out, s->pid, uf[i].pc, FRAME_USER, physical, true, hint);
		if (rc)
			return rc < 0 ? rc : 0;
	}
	if (i == MAX_UNWIND) {
		/* the unwinder's own bound: what lies beyond is not known */
		r->st.truncated++;
		out->truncated = true;
	} else if (i == n && uf[n - 1].copy_end) {
		out->copy_end = true;
		r->st.copy_end++;
	}
	const char *o = outermost_name(out);
	if (o && (!strcmp(o, "_start") || !strcmp(o, "_dl_start_user") || !strcmp(o, "start_thread") ||
		  !strcmp(o, "clone3") || !strcmp(o, "__clone3") || !strcmp(o, "clone")))
		r->st.dwarf_complete++;
	return 0;
}

int resolver_resolve(struct resolver *r, const struct perf_event *ev,
		     const struct perf_attr *attr, struct resolved_sample *out)
{
	const struct perf_sample *s = &ev->s;
	r->cur = (struct resolve_view){
		.proc = session_process(r->s, s->pid),
		.kernel = session_process(r->s, SESSION_KERNEL_PID),
		.comm = session_comm(r->s, s->tid, s->time),
		.jitdump = session_jitdump(r->s),
	};
	r->nr_def = 0;
	/* a JIT dump's times are CLOCK_MONOTONIC: the sample's are too with
	 * perf record -k monotonic */
	r->jit_time = attr && attr->attr.use_clockid && attr->attr.clockid == 1 &&
			      (attr->attr.sample_type & PERF_SAMPLE_TIME)
			      ? s->time
			      : UINT64_MAX;
	memset(out, 0, sizeof(*out));
	out->user_at = UINT32_MAX;
	out->ev = ev;
	out->attr = attr;
	out->pid = s->pid;
	out->tid = s->tid;
	out->comm = r->cur.comm;
	out->frames = r->frames;
	r->st.samples++;
	uint8_t kind = kind_of_cpumode(s->misc & PERF_RECORD_MISC_CPUMODE_MASK);
	/* ip_only: as a sample without call chain or stack (its own ip) */
	uint64_t chain_nr = r->ip_only ? 0 : s->callchain_nr;
	bool dwarf = !r->ip_only && has_dwarf_stack(attr, s);
	if (dwarf && r->no_dwarf) {
		dwarf = false;
		if (r->arch_msg[0]) {
			forward_warn(r, r->arch_msg);
			r->arch_msg[0] = 0;
		}
	}
	bool lbr = !r->ip_only && attr && (attr->attr.sample_type & PERF_SAMPLE_BRANCH_STACK) &&
		   (attr->attr.branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK) && s->branch_nr;
	uint32_t physical = 0;
	int rc = 0;
	bool user_done = false;

	if (chain_nr) {
		for (uint64_t i = 0; i < chain_nr; i++) {
			uint64_t ip = s->callchain[i];
			if (ip >= PERF_CONTEXT_MAX) {
				kind = context_kind(ip, kind);
				continue;
			}
			if (kind == FRAME_USER && (dwarf || lbr))
				break; /* the user part comes from the stack copy / LBR */
			if ((rc = push(r, out, s->pid, ip, kind, &physical, false, NULL)))
				break;
		}
		if (rc < 0)
			return rc;
		if (rc && dwarf && r->max_frames_per_part) {
			/* the kernel part is full; the user part has its own */
			rc = 0;
			out->truncated = false;
		}
		if (!dwarf && !lbr) {
			r->st.fp_samples++;
			user_done = true;
		}
	}
	if (!user_done && rc == 0) {
		if (dwarf) {
			uint32_t before = out->nr_frames;
			/* per part: the unwound frames have max_frames of their
			 * own; physical counts them alone from here (stitching
			 * extends this part) */
			if (r->max_frames_per_part)
				physical = 0;
			if ((rc = unwind_user(r, attr, s, out, &physical)) < 0)
				return rc;
			if (out->nr_frames == before && !chain_nr &&
			    (rc = push(r, out, s->pid, s->ip, kind, &physical, false, NULL)) < 0)
				return rc;
		} else if (lbr) {
			/* perf's LBR call stack (callee order): the target of the
			 * newest call (the current function), then the call site of
			 * every entry */
			r->st.lbr_samples++;
			if ((rc = push(r, out, s->pid, s->branch[0].to, FRAME_USER, &physical, false, NULL)) < 0)
				return rc;
			for (uint64_t i = 0; rc == 0 && i < s->branch_nr; i++)
				if ((rc = push(r, out, s->pid, s->branch[i].from, FRAME_USER, &physical, false, NULL)) < 0)
					return rc;
		} else if (!chain_nr) {
			if ((rc = push(r, out, s->pid, s->ip, kind, &physical, false, NULL)) < 0)
				return rc;
		}
	}
	out->frames = r->frames;
	out->physical = physical;
	if (out->user_at > out->nr_frames)
		out->user_at = out->nr_frames;
	r->st.frames += out->nr_frames;
	return 0;
}
