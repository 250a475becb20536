/*
 * unwind_diff.c: differential test of scorch's DWARF unwinder against
 * elfutils' libdwfl unwinder (the one hotspot-perfparser uses).
 *
 *   build/unwind-diff [-i perf.data] [--max-frames N] [--list N] [--limit N]
 *                     [--stale] [--quiet]
 *
 * For every sample that carries user registers and a user stack copy, the
 * same registers and the same bytes are unwound twice:
 *   - by scorch (unwinder_unwind, exactly as the resolver calls it), and
 *   - by libdwfl: one Dwfl per process with every mapped ELF reported at its
 *     load address, attached with thread callbacks that serve the sample's
 *     registers (set_initial_registers) and memory (memory_read: the stack
 *     copy, else the mapped file's section contents), then
 *     dwfl_getthread_frames. This is the setup hotspot-perfparser uses
 *     (app/perfunwind.cpp): written here from its behaviour, not its code.
 * Both frame lists are cut, as the resolver cuts scorch's, at the first pc
 * outside every map. A sample is reported when the reference has a frame
 * that scorch has not (it went further), or when the two differ in a frame
 * both have. Frames where scorch goes further are counted, not reported.
 *
 * --stale adds perfparser's other memory source: a word outside the stack
 * copy and outside every file is read from what earlier samples of the same
 * process copied at that address (perfparser's stackValues). It is not the
 * same state any more, so it is off by default; with it the tool shows how
 * far perfparser gets on stacks deeper than the copy.
 *
 * Output: "key: value" summary lines (samples, complete stacks of each side,
 * the difference counts), the differing samples (up to --list), and the
 * differences grouped by the last frame both agree on (the frame the walk
 * stopped or went astray in). Exit status: 0 no difference, 1 differences,
 * 2 error.
 *
 * The reference lives only in this tool: scorch's analysis never links or
 * runs libdwfl's unwinder.
 */
#include "analyze/pipeline.h"
#include "analyze/session.h"
#include "analyze/symbols/symbols.h"
#include "analyze/unwind/unwind.h"
#include "perf/event.h"
#include "util/err.h"
#include "util/hash.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXF 512
#define NDWARF 17

/* x86_64 perf_regs index of DWARF registers 0..16 (rax rdx rcx rbx rsi rdi
 * rbp rsp r8..r15 rip), from the x86_64 psABI's DWARF numbering and
 * arch/x86/include/uapi/asm/perf_regs.h. */
static const int dwarf_to_perf[NDWARF] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8 };

struct cur {
	const struct perf_sample *s;
	uint64_t regs_mask;
	uint64_t sp;
	const uint8_t *stack;
	uint64_t stack_size;
	struct hmap *stale;    /* this process's words seen in earlier copies (--stale) */
	bool used_stale;
	uint64_t frames[MAXF];
	bool guessed[MAXF];    /* found with a stale word (--stale, --cut) */
	int n;
	int max;
};

struct refproc {
	uint64_t generation;
	Dwfl *dwfl;
	bool attached;
	struct hmap stale;
};

struct groupent {
	char key[600];
	uint64_t count;
	char example[512];
};

struct tool {
	struct symbols *syms;
	struct unwinder *unw;
	struct hmap procs;     /* pid -> struct refproc */
	struct cur cur;
	Dwfl_Callbacks dwfl_cb;
	char *debuginfo_path;
	int max_frames, list, limit;
	bool stale, quiet;
	uint64_t cut;          /* --cut: copies cut to this many bytes */
	uint64_t cut_guessed, cut_guessed_wrong, cut_samples_wrong, cut_scorch_wrong;
	struct unwind_frame *uf;
	uint64_t samples, scorch_complete, ref_complete, both_same;
	uint64_t ref_further, disagree, scorch_further, ref_used_stale;
	uint64_t scorch_copy_end;  /* scorch stopped at the end of the stack copy */
	uint64_t listed;
	struct groupent *groups;
	size_t nr_groups, cap_groups;
};

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return dwfl_pid(dwfl);
}

static bool read_file_word(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *out)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
	if (!mod)
		return false;
	Dwarf_Addr a = addr, bias;
	Elf_Scn *scn = dwfl_module_address_section(mod, &a, &bias);
	if (!scn)
		return false;
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || d->d_size < 8 || a > d->d_size - 8)
		return false;
	memcpy(out, (const char *)d->d_buf + a, 8);
	return true;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct cur *c = arg;
	if (addr >= c->sp && c->stack_size >= 8 && addr - c->sp <= c->stack_size - 8) {
		memcpy(result, c->stack + (addr - c->sp), 8);
		return true;
	}
	if (read_file_word(dwfl, addr, result))
		return true;
	if (c->stale) {
		uint64_t *v = hmap_get(c->stale, addr);
		if (v) {
			*result = *v;
			c->used_stale = true;
			return true;
		}
	}
	return false;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct cur *c = arg;
	int pos[64], k = 0;
	for (int i = 0; i < 64; i++)
		pos[i] = (c->regs_mask >> i) & 1 ? k++ : -1;
	for (int r = 0; r < NDWARF; r++) {
		int at = pos[dwarf_to_perf[r]];
		if (at < 0 || (uint32_t)at >= c->s->regs_user_nr)
			continue;
		Dwarf_Word v = c->s->regs_user[at];
		if (!dwfl_thread_state_registers(thread, r, 1, &v))
			return false;
	}
	return true;
}

static const Dwfl_Thread_Callbacks thread_cb = {
	.next_thread = cb_next_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
};

static int cb_frame(Dwfl_Frame *state, void *arg)
{
	struct cur *c = arg;
	Dwarf_Addr pc;
	bool act = false;
	if (!dwfl_frame_pc(state, &pc, &act) || pc == 0 || c->n >= c->max)
		return DWARF_CB_ABORT;
	c->guessed[c->n] = c->used_stale;
	c->frames[c->n++] = act ? pc : pc - 1;
	return DWARF_CB_OK;
}

/* The ELF load base libdwfl wants for a file mapped at m: the address its
 * first PT_LOAD (page-aligned vaddr) lands at. 0 for ET_EXEC. */
static bool load_base(const char *path, const struct map *m, uint64_t *base)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	bool ok = false;
	GElf_Ehdr eh;
	size_t n;
	if (e && gelf_getehdr(e, &eh) && !elf_getphdrnum(e, &n)) {
		if (eh.e_type == ET_EXEC) {
			*base = 0;
			ok = true;
		}
		uint64_t first = UINT64_MAX, svma_at = 0;
		bool found = false;
		for (size_t i = 0; i < n && !ok; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			uint64_t align = ph.p_align > 1 ? ph.p_align : 1;
			if (first == UINT64_MAX)
				first = ph.p_vaddr & ~(align - 1);
			uint64_t seg_off = ph.p_offset & ~(uint64_t)0xfff;
			if (!found && m->pgoff >= seg_off && m->pgoff < ph.p_offset + ph.p_filesz) {
				svma_at = ph.p_vaddr - (ph.p_offset - m->pgoff);
				found = true;
			}
		}
		if (!ok && found && first != UINT64_MAX) {
			*base = m->start - svma_at + first;
			ok = true;
		}
	}
	elf_end(e);
	close(fd);
	return ok;
}

/* The Dwfl of process p, (re)built when its maps changed. */
static Dwfl *ref_dwfl(struct tool *t, const struct process *p)
{
	struct refproc *rp = hmap_get(&t->procs, p->pid);
	if (!rp) {
		rp = calloc(1, sizeof(*rp));
		if (!rp)
			return NULL;
		hmap_init(&rp->stale);
		rp->generation = UINT64_MAX;
		hmap_put(&t->procs, p->pid, rp);
	}
	if (rp->dwfl && rp->generation == p->generation)
		return rp->dwfl;
	if (rp->dwfl)
		dwfl_end(rp->dwfl);
	rp->dwfl = dwfl_begin(&t->dwfl_cb);
	rp->generation = p->generation;
	if (!rp->dwfl)
		return NULL;
	dwfl_report_begin(rp->dwfl);
	const char *last = NULL;
	for (size_t i = 0; i < p->nr_maps; i++) {
		const struct map *m = &p->maps[i];
		bool vdso = m->filename && !strcmp(m->filename, "[vdso]");
		if (!m->filename || (m->filename[0] != '/' && !vdso) || m->filename == last)
			continue;
		/* the first map of each file (maps are sorted by address) */
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = p->maps[j].filename == m->filename;
		if (seen)
			continue;
		last = m->filename;
		struct dso *d = symbols_dso(t->syms, m->filename, m->build_id, m->build_id_size);
		if (!d || !d->path)
			continue;
		/* scorch keeps this machine's vdso in a memfd (perf's build-id
		 * cache has none here): libdwfl reads the same bytes */
		char fdpath[64];
		const char *path = d->path;
		if (vdso && d->fd >= 0) {
			snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", d->fd);
			path = fdpath;
		}
		uint64_t base;
		if (!load_base(path, m, &base))
			continue;
		dwfl_report_elf(rp->dwfl, m->filename, path, -1, base, false);
	}
	dwfl_report_end(rp->dwfl, NULL, NULL);
	rp->attached = dwfl_attach_state(rp->dwfl, NULL, (pid_t)p->pid, &thread_cb, &t->cur);
	return rp->dwfl;
}

static const char *frame_name(struct tool *t, const struct process *p, uint64_t pc, char *buf,
			      size_t size)
{
	const struct map *m = process_find_map(p, pc);
	if (!m) {
		snprintf(buf, size, "%#" PRIx64 " (unmapped)", pc);
		return buf;
	}
	const char *base = m->filename ? strrchr(m->filename, '/') : NULL;
	base = base ? base + 1 : (m->filename ? m->filename : "?");
	uint64_t rel = pc - m->start + m->pgoff;
	const struct sym *s = NULL;
	if (m->filename && (m->filename[0] == '/' || !strcmp(m->filename, "[vdso]"))) {
		struct dso *d = symbols_dso(t->syms, m->filename, m->build_id, m->build_id_size);
		if (d)
			s = dso_find_sym(d, rel);
	}
	if (s)
		snprintf(buf, size, "%s+%#" PRIx64 " (%s)", s->name, rel - s->start, base);
	else
		snprintf(buf, size, "[unknown] %#" PRIx64 " (%s)", rel, base);
	return buf;
}

static bool is_complete(struct tool *t, const struct process *p, uint64_t pc)
{
	char buf[512];
	frame_name(t, p, pc, buf, sizeof buf);
	static const char *const ends[] = { "_start+", "_dl_start_user+", "start_thread+", "clone3+",
					    "__clone3+", "clone+" };
	for (size_t i = 0; i < sizeof ends / sizeof *ends; i++)
		if (!strncmp(buf, ends[i], strlen(ends[i])))
			return true;
	return false;
}

static void group_add(struct tool *t, const char *key, const char *example)
{
	for (size_t i = 0; i < t->nr_groups; i++)
		if (!strcmp(t->groups[i].key, key)) {
			t->groups[i].count++;
			return;
		}
	if (t->nr_groups == t->cap_groups) {
		size_t cap = t->cap_groups ? t->cap_groups * 2 : 32;
		if (cap > 100000)
			return;
		struct groupent *g = realloc(t->groups, cap * sizeof(*g));
		if (!g)
			return;
		t->groups = g;
		t->cap_groups = cap;
	}
	struct groupent *g = &t->groups[t->nr_groups++];
	snprintf(g->key, sizeof g->key, "%s", key);
	snprintf(g->example, sizeof g->example, "%s", example);
	g->count = 1;
}

/* Count the frames before the first pc outside every map (the resolver's
 * cut). */
static int cut_unmapped(const struct process *p, const uint64_t *pcs, int n)
{
	for (int i = 0; i < n; i++)
		if (!process_find_map(p, pcs[i]))
			return i;
	return n;
}

/* libdwfl's walk of sample s with its copy cut to at most cap bytes, with
 * the stale words of earlier copies when stale; frames in t->cur. Then the
 * (cut) copy's words join the stale words of the process. */
static int ref_unwind(struct tool *t, const struct process *p, const struct perf_sample *s,
		      uint64_t mask, uint64_t cap, bool stale)
{
	struct cur *c = &t->cur;
	c->s = s;
	c->regs_mask = mask;
	c->n = 0;
	c->max = t->max_frames;
	c->used_stale = false;
	int sp_at = -1, k = 0;
	for (int i = 0; i < 64; i++)
		if ((mask >> i) & 1) {
			if (i == UNWIND_PERF_REG_SP)
				sp_at = k;
			k++;
		}
	c->sp = sp_at >= 0 && (uint32_t)sp_at < s->regs_user_nr ? s->regs_user[sp_at] : 0;
	c->stack = s->stack_user;
	c->stack_size = s->stack_user_dyn_size < s->stack_user_size ? s->stack_user_dyn_size
								    : s->stack_user_size;
	if (c->stack_size > cap)
		c->stack_size = cap;
	Dwfl *dwfl = ref_dwfl(t, p);
	struct refproc *rp = hmap_get(&t->procs, p->pid);
	c->stale = stale && rp ? &rp->stale : NULL;
	if (dwfl && rp && rp->attached)
		dwfl_getthread_frames(dwfl, (pid_t)p->pid, cb_frame, c);
	if (stale && rp) {
		for (uint64_t off = 0; off + 8 <= c->stack_size; off += 8) {
			uint64_t *v = hmap_get(&rp->stale, c->sp + off);
			if (!v && !(v = malloc(sizeof *v)))
				break;
			memcpy(v, c->stack + off, 8);
			hmap_put(&rp->stale, c->sp + off, v);
		}
	}
	return cut_unmapped(p, c->frames, c->n);
}

/*
 * --cut N: how right hotspot-perfparser's stale words are. Record with a
 * large copy (--call-graph dwarf,32768); the reference is libdwfl's walk of
 * the whole copy; the walk under test is libdwfl's of the copy cut to N
 * bytes with the stale words of the earlier cut copies, as perfparser would
 * walk a recording with N-byte copies. Every frame found with a stale word
 * is checked against the reference. scorch's walk of the cut copy is checked
 * too: it must be the reference's first frames.
 */
static void cut_sample(struct tool *t, const struct process *p, const struct perf_sample *s,
		       uint64_t mask)
{
	uint64_t full[MAXF];
	int nf = ref_unwind(t, p, s, mask, UINT64_MAX, false);
	memcpy(full, t->cur.frames, sizeof(uint64_t) * (size_t)nf);
	struct perf_sample cs = *s;
	if (cs.stack_user_dyn_size > t->cut)
		cs.stack_user_dyn_size = t->cut;
	if (cs.stack_user_size > t->cut)
		cs.stack_user_size = t->cut;
	int ns = unwinder_unwind(t->unw, p, &cs, mask, t->uf, t->max_frames);
	int nc = ref_unwind(t, p, s, mask, t->cut, true);
	if (nf <= 0 || ns <= 0)
		return;
	t->samples++;
	uint64_t spc[MAXF];
	for (int i = 0; i < ns; i++)
		spc[i] = t->uf[i].pc;
	ns = cut_unmapped(p, spc, ns);
	for (int i = 0; i < ns; i++)
		if (i >= nf || spc[i] != full[i]) {
			t->cut_scorch_wrong++;
			break;
		}
	const struct cur *c = &t->cur;
	bool wrong = false;
	int first_wrong = -1;
	for (int i = 0; i < nc; i++) {
		if (!c->guessed[i])
			continue;
		t->cut_guessed++;
		if (i >= nf || c->frames[i] != full[i]) {
			t->cut_guessed_wrong++;
			if (!wrong)
				first_wrong = i;
			wrong = true;
		}
	}
	if (!wrong)
		return;
	t->cut_samples_wrong++;
	if (t->quiet || t->listed >= (uint64_t)t->list)
		return;
	char a[512], b[512];
	t->listed++;
	printf("wrong stale guess: pid %u tid %u time %" PRIu64 ": cut %d frames, whole copy %d\n",
	       s->pid, s->tid, s->time, nc, nf);
	int from = first_wrong > 3 ? first_wrong - 3 : 0;
	for (int i = from; i < (nc > nf ? nc : nf) && i < from + 8; i++)
		printf("  #%-3d %s %-60s whole %s\n", i, i < nc && c->guessed[i] ? "g" : " ",
		       i < nc ? frame_name(t, p, c->frames[i], a, sizeof a) : "-",
		       i < nf ? frame_name(t, p, full[i], b, sizeof b) : "-");
}

static void sample(struct tool *t, struct pipeline *pl, const struct perf_event *ev)
{
	const struct perf_sample *s = &ev->s;
	struct perf_evlist *el = input_evlist(pipeline_input(pl));
	if (s->attr_idx < 0 || !s->regs_user_abi || !s->regs_user_nr || !s->stack_user ||
	    !s->stack_user_size)
		return;
	const struct perf_attr *pa = &el->attrs[s->attr_idx];
	const struct process *p = session_process(pipeline_session(pl), s->pid);
	if (!p)
		return;
	uint64_t mask = pa->attr.sample_regs_user;
	if (t->limit && t->samples >= (uint64_t)t->limit)
		return;
	if (t->cut) {
		cut_sample(t, p, s, mask);
		return;
	}
	/* scorch */
	int ns = unwinder_unwind(t->unw, p, s, mask, t->uf, t->max_frames);
	if (ns <= 0)
		return;
	t->samples++;
	uint64_t spc[MAXF];
	for (int i = 0; i < ns; i++)
		spc[i] = t->uf[i].pc;
	int ns_all = ns;
	ns = cut_unmapped(p, spc, ns);
	t->scorch_copy_end += ns == ns_all && t->uf[ns - 1].copy_end;
	/* libdwfl */
	int nr = ref_unwind(t, p, s, mask, UINT64_MAX, t->stale);
	struct cur *c = &t->cur;
	if (ns && is_complete(t, p, spc[ns - 1]))
		t->scorch_complete++;
	if (nr && is_complete(t, p, c->frames[nr - 1]))
		t->ref_complete++;
	t->ref_used_stale += c->used_stale;
	int common = ns < nr ? ns : nr, d = 0;
	while (d < common && spc[d] == c->frames[d])
		d++;
	const char *what;
	if (d < common) {
		t->disagree++;
		what = "disagree";
	} else if (nr > ns) {
		t->ref_further++;
		what = "ref-further";
	} else {
		if (ns > nr)
			t->scorch_further++;
		else
			t->both_same++;
		return;
	}
	char a[512], b[512], key[600], ex[512];
	if (d > 0)
		frame_name(t, p, spc[d - 1], a, sizeof a);
	else
		snprintf(a, sizeof a, "(first frame)");
	snprintf(key, sizeof key, "%s after %s", what, a);
	snprintf(ex, sizeof ex, "time %" PRIu64 " pid %u tid %u", s->time, s->pid, s->tid);
	group_add(t, key, ex);
	if (t->quiet || t->listed >= (uint64_t)t->list)
		return;
	t->listed++;
	printf("sample %s: pid %u tid %u time %" PRIu64 ": scorch %d frames, libdwfl %d; frame %d\n", what,
	       s->pid, s->tid, s->time, ns, nr, d);
	for (int i = d > 2 ? d - 2 : 0; i < (ns > nr ? ns : nr) && i < d + 3; i++)
		printf("  #%-3d scorch %-60s libdwfl %s\n", i,
		       i < ns ? frame_name(t, p, spc[i], a, sizeof a) : "-",
		       i < nr ? frame_name(t, p, c->frames[i], b, sizeof b) : "-");
}

static int sink_event(void *ctx, struct pipeline *p, const struct perf_event *ev)
{
	if (ev->type == PERF_RECORD_SAMPLE)
		sample(ctx, p, ev);
	return 0;
}

/* The unwinder, made when the pipeline starts. */
static int sink_begin(void *ctx, struct pipeline *p)
{
	struct tool *t = ctx;
	t->unw = unwinder_new(t->syms);
	return t->unw ? 0 : -ENOMEM;
}

static int cmp_group(const void *a, const void *b)
{
	const struct groupent *x = a, *y = b;
	return x->count < y->count ? 1 : x->count > y->count ? -1 : strcmp(x->key, y->key);
}

static void usage(void)
{
	fprintf(stderr, "usage: unwind-diff [-i FILE] [--max-frames N] [--list N] [--limit N] "
			"[--stale] [--quiet]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct tool t = { .max_frames = 256, .list = 20 };
	const char *input = "perf.data";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-i") && v)
			input = v, i++;
		else if (!strcmp(a, "--max-frames") && v)
			t.max_frames = atoi(v), i++;
		else if (!strcmp(a, "--list") && v)
			t.list = atoi(v), i++;
		else if (!strcmp(a, "--limit") && v)
			t.limit = atoi(v), i++;
		else if (!strcmp(a, "--stale"))
			t.stale = true;
		else if (!strcmp(a, "--quiet"))
			t.quiet = true;
		else if (!strcmp(a, "--cut") && v)
			t.cut = strtoull(v, NULL, 0) & ~7ull, i++;
		else
			usage();
	}
	if (t.max_frames < 1 || t.max_frames > MAXF)
		t.max_frames = MAXF;
	struct symbols_config sc = { 0 };
	t.syms = symbols_new(&sc);
	t.uf = calloc(MAXF, sizeof(*t.uf));
	if (!t.syms || !t.uf)
		return 2;
	hmap_init(&t.procs);
	t.dwfl_cb.find_elf = dwfl_build_id_find_elf;
	t.dwfl_cb.find_debuginfo = dwfl_standard_find_debuginfo;
	t.dwfl_cb.debuginfo_path = &t.debuginfo_path;
	struct pipeline_config cfg;
	pipeline_config_init(&cfg);
	cfg.input = input;
	cfg.resolve = false;
	struct sink sk = { .ctx = &t, .begin = sink_begin, .event = sink_event };
	struct err e = { 0 };
	int rc = pipeline_run(&cfg, &sk, &e);
	if (rc < 0) {
		fprintf(stderr, "unwind-diff: %s: %s\n", input, e.msg);
		return 2;
	}
	printf("samples: %" PRIu64 "\n", t.samples);
	if (t.cut) {
		printf("cut: %" PRIu64 "\n", t.cut);
		printf("stale_frames: %" PRIu64 "\n", t.cut_guessed);
		printf("stale_frames_wrong: %" PRIu64 "\n", t.cut_guessed_wrong);
		printf("samples_stale_wrong: %" PRIu64 "\n", t.cut_samples_wrong);
		printf("scorch_cut_wrong: %" PRIu64 "\n", t.cut_scorch_wrong);
		return t.cut_scorch_wrong ? 1 : 0;
	}
	printf("scorch_complete: %" PRIu64 " (%.2f%%)\n", t.scorch_complete,
	       t.samples ? 100.0 * t.scorch_complete / t.samples : 0.0);
	printf("libdwfl_complete: %" PRIu64 " (%.2f%%)\n", t.ref_complete,
	       t.samples ? 100.0 * t.ref_complete / t.samples : 0.0);
	printf("scorch_copy_end: %" PRIu64 "\n", t.scorch_copy_end);
	printf("same: %" PRIu64 "\n", t.both_same);
	printf("scorch_further: %" PRIu64 "\n", t.scorch_further);
	printf("libdwfl_further: %" PRIu64 "\n", t.ref_further);
	printf("disagree: %" PRIu64 "\n", t.disagree);
	if (t.stale)
		printf("libdwfl_used_stale: %" PRIu64 "\n", t.ref_used_stale);
	qsort(t.groups, t.nr_groups, sizeof(*t.groups), cmp_group);
	for (size_t i = 0; i < t.nr_groups && i < 40; i++)
		printf("group: %6" PRIu64 "  %s  [e.g. %s]\n", t.groups[i].count, t.groups[i].key,
		       t.groups[i].example);
	return t.ref_further || t.disagree ? 1 : 0;
}
