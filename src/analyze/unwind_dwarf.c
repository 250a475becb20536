/*
 * unwind_dwarf.c: libdwfl unwinding of copied user stacks (see unwind.h).
 *
 * Invariants: a struct uproc's Dwfl describes exactly the executable file
 * mappings whose signature (a hash of start, end, pgoff, file) is stored
 * beside it; the thread callbacks read the sample through uproc->cur, which
 * is set only for the duration of one unwinder_unwind call.
 */
#include "analyze/unwind.h"
#include "util/hash.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* x86_64: perf_regs index for DWARF registers 0..16 (rax rdx rcx rbx rsi
 * rdi rbp rsp r8..r15 rip). An aarch64 table would sit beside it. */
static const int x86_64_dwarf_to_perf[17] = {
	0 /* AX */, 3 /* DX */, 2 /* CX */, 1 /* BX */, 4 /* SI */, 5 /* DI */,
	6 /* BP */, 7 /* SP */, 16, 17, 18, 19, 20, 21, 22, 23 /* R8..R15 */,
	8 /* IP */,
};

struct cur_sample {
	const struct perf_sample *s;
	uint64_t regs_mask;
	uint32_t tid;
	uint64_t sp;
	const uint8_t *stack;
	uint64_t stack_size;
	struct unwind_frame *out;
	int max, n;
};

struct uproc {
	uint32_t pid;
	Dwfl *dwfl;
	uint64_t generation;  /* of the session's maps when last checked */
	uint64_t signature;   /* of the executable mappings in dwfl */
	struct cur_sample *cur;
	bool attached;
};

struct unwinder {
	struct symbols *syms;
	struct session *sess;
	struct hmap procs;    /* pid -> struct uproc */
	struct unwinder_stats st;
};

static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = NULL,   /* CFI from .eh_frame of the file itself */
};

static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	return -1;
}

static const Dwfl_Callbacks dwfl_cbs_real = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = no_debuginfo,
};

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct uproc *p = arg;
	if (*thread_argp || !p->cur)
		return 0;
	*thread_argp = p;
	return (pid_t)p->cur->tid;
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	*thread_argp = arg;
	return true;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct uproc *p = arg;
	struct cur_sample *c = p->cur;
	if (!c)
		return false;
	if (addr >= c->sp && addr - c->sp + 8 <= c->stack_size) {
		memcpy(result, c->stack + (addr - c->sp), 8);
		return true;
	}
	return false;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct uproc *p = arg;
	struct cur_sample *c = p->cur;
	Dwarf_Word regs[17];
	bool have[17] = { 0 };
	/* perf_regs index -> position in the sample's regs array */
	int pos[64];
	int k = 0;
	for (int i = 0; i < 64; i++)
		pos[i] = (c->regs_mask >> i) & 1 ? k++ : -1;
	for (int r = 0; r < 17; r++) {
		int pr = x86_64_dwarf_to_perf[r];
		int at = pos[pr];
		if (at >= 0 && (uint32_t)at < c->s->regs_user_nr) {
			regs[r] = c->s->regs_user[at];
			have[r] = true;
		}
	}
	if (!have[16] || !have[7])
		return false;
	/* contiguous runs of known registers */
	for (int r = 0; r < 17;) {
		if (!have[r]) {
			r++;
			continue;
		}
		int e = r;
		while (e < 17 && have[e])
			e++;
		if (!dwfl_thread_state_registers(thread, r, (unsigned)(e - r), regs + r))
			return false;
		r = e;
	}
	dwfl_thread_state_register_pc(thread, regs[16]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
};

static bool is_exec_file_map(const struct map *m)
{
	if (!(m->prot & PROT_EXEC) || !m->filename)
		return false;
	if (!strcmp(m->filename, "[vdso]"))
		return true;
	if (m->filename[0] != '/')
		return false;
	if (!strncmp(m->filename, "/dev/", 5) || !strncmp(m->filename, "/memfd:", 7))
		return false;
	return true;
}

static uint64_t exec_signature(const struct process *proc)
{
	uint64_t h = 0x12345;
	for (size_t i = 0; i < proc->nr_maps; i++) {
		const struct map *m = &proc->maps[i];
		if (!is_exec_file_map(m))
			continue;
		h = hash_u64(h ^ m->start) ^ hash_u64(m->end + m->pgoff) ^ (uint64_t)(uintptr_t)m->filename;
	}
	return h;
}

/* Report one module per executable file mapping, with the load bias the
 * mapping implies (avma of the segment - its svma). */
static void report_maps(struct unwinder *u, struct uproc *p, const struct process *proc)
{
	for (size_t i = 0; i < proc->nr_maps; i++) {
		const struct map *m = &proc->maps[i];
		if (!is_exec_file_map(m))
			continue;
		struct dso *d = symbols_dso(u->syms, m->filename, m->build_id, m->build_id_size);
		if (!d || d->fd < 0)
			continue;
		uint64_t svma;
		if (!dso_rel_to_svma(d, m->pgoff, &svma))
			continue;
		uint64_t bias = m->start - svma;
		if (d->e_type == ET_EXEC)
			bias = 0;
		/* dwfl_report_elf reports the whole file from its first segment */
		uint64_t base = bias;
		int fd = dup(d->fd);
		if (fd < 0)
			continue;
		Dwfl_Module *mod = dwfl_report_elf(p->dwfl, m->filename, d->path, fd, base, false);
		if (!mod)
			close(fd);
	}
}

static bool build_dwfl(struct unwinder *u, struct uproc *p, const struct process *proc)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = dwfl_begin(&dwfl_cbs_real);
	p->attached = false;
	if (!p->dwfl)
		return false;
	u->st.dwfl_builds++;
	dwfl_report_begin(p->dwfl);
	report_maps(u, p, proc);
	dwfl_report_end(p->dwfl, NULL, NULL);
	p->attached = dwfl_attach_state(p->dwfl, NULL, (pid_t)p->pid, &thread_cbs, p);
	p->generation = proc->generation;
	p->signature = exec_signature(proc);
	return p->attached;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct uproc *p = arg;
	struct cur_sample *c = p->cur;
	Dwarf_Addr pc;
	bool act;
	if (!dwfl_frame_pc(state, &pc, &act))
		return DWARF_CB_ABORT;
	if (c->n >= c->max)
		return DWARF_CB_ABORT;
	if (!pc)
		return DWARF_CB_ABORT;
	c->out[c->n].pc = act ? pc : pc - 1;
	c->out[c->n].activation = act;
	c->n++;
	return DWARF_CB_OK;
}

struct unwinder *unwinder_new(struct symbols *syms, struct session *sess)
{
	struct unwinder *u = calloc(1, sizeof *u);
	if (!u)
		return NULL;
	u->syms = syms;
	u->sess = sess;
	hmap_init(&u->procs);
	(void)dwfl_cbs;
	return u;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->procs.cap; i++) {
		if (!u->procs.used[i])
			continue;
		struct uproc *p = u->procs.vals[i];
		if (p->dwfl)
			dwfl_end(p->dwfl);
		free(p);
	}
	hmap_release(&u->procs);
	free(u);
}

const struct unwinder_stats *unwinder_stats(const struct unwinder *u)
{
	return &u->st;
}

static int run_unwind(struct uproc *p, struct cur_sample *c)
{
	c->n = 0;
	p->cur = c;
	dwfl_getthread_frames(p->dwfl, (pid_t)c->tid, frame_cb, p);
	p->cur = NULL;
	return c->n;
}

int unwinder_unwind(struct unwinder *u, uint32_t pid, uint32_t tid, const struct perf_sample *s,
		    uint64_t regs_mask, struct unwind_frame *out, int max, bool *retried)
{
	*retried = false;
	if (!s->regs_user_abi || !s->regs_user_nr || max <= 0)
		return 0;
	struct process *proc = session_process(u->sess, pid);
	if (!proc)
		return 0;
	struct uproc *p = hmap_get(&u->procs, pid);
	if (!p) {
		p = calloc(1, sizeof *p);
		if (!p)
			return -ENOMEM;
		p->pid = pid;
		hmap_put(&u->procs, pid, p);
	}
	if (!p->dwfl) {
		build_dwfl(u, p, proc);
	} else if (p->generation != proc->generation) {
		uint64_t sig = exec_signature(proc);
		if (sig != p->signature)
			build_dwfl(u, p, proc);
		else
			p->generation = proc->generation;
	}
	if (!p->attached)
		return 0;
	/* the stack copy starts at the user sp */
	int spi = -1, k = 0;
	for (int i = 0; i < 64; i++) {
		if (!((regs_mask >> i) & 1))
			continue;
		if (i == UNWIND_PERF_REG_SP)
			spi = k;
		k++;
	}
	if (spi < 0 || (uint32_t)spi >= s->regs_user_nr)
		return 0;
	struct cur_sample c = {
		.s = s, .regs_mask = regs_mask, .tid = tid ? tid : pid,
		.sp = s->regs_user[spi], .stack = s->stack_user,
		.stack_size = s->stack_user_dyn_size < s->stack_user_size ? s->stack_user_dyn_size
									  : s->stack_user_size,
		.out = out, .max = max,
	};
	if (!c.stack)
		c.stack_size = 0;
	u->st.unwinds++;
	int n = run_unwind(p, &c);
	if (n <= 1 && exec_signature(proc) != p->signature) {
		/* built for older maps: retry once with a fresh Dwfl */
		*retried = true;
		u->st.retries++;
		if (build_dwfl(u, p, proc))
			n = run_unwind(p, &c);
	}
	u->st.frames += (uint64_t)n;
	return n;
}
