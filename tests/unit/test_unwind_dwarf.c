/* test_unwind_dwarf.c: unwind this process's own stack, captured the way
 * the kernel copies it for PERF_SAMPLE_STACK_USER (ip, sp, bp registers and
 * the bytes above sp), through the session's maps and the DSO cache. */
#include "analyze/session.h"
#include "analyze/symbols.h"
#include "analyze/unwind.h"
#include "test.h"

#include <sys/mman.h>
#include <unistd.h>

#define STACK_COPY 16384

struct capture {
	uint64_t regs[3];   /* perf_regs order of the mask below: BP, SP, IP */
	uint8_t stack[STACK_COPY];
	uint64_t size;
};

static const uint64_t capture_mask = (1ULL << 6) | (1ULL << 7) | (1ULL << 8);

/* Copy [sp, sp + n) without tripping ASan on the redzones of live frames. */
__attribute__((no_sanitize_address, noinline)) static void copy_stack(uint8_t *dst, const uint8_t *src,
								      uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		((volatile uint8_t *)dst)[i] = ((const volatile uint8_t *)src)[i];
}

static uint64_t stack_top(uint64_t sp)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	uint64_t top = sp;
	while (f && fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && sp >= lo && sp < hi)
			top = hi;
	}
	if (f)
		fclose(f);
	return top;
}

__attribute__((noinline)) static void capture_here(struct capture *c)
{
	uint64_t sp, bp, ip;
	__asm__ volatile("mov %%rsp, %0\n\tmov %%rbp, %1\n\tlea 0(%%rip), %2"
			 : "=r"(sp), "=r"(bp), "=r"(ip));
	c->regs[0] = bp;
	c->regs[1] = sp;
	c->regs[2] = ip;
	uint64_t n = stack_top(sp) - sp;
	c->size = n < STACK_COPY ? n : STACK_COPY;
	copy_stack(c->stack, (const uint8_t *)(uintptr_t)sp, c->size);
}

__attribute__((noinline)) void unwind_level2(struct capture *c)
{
	capture_here(c);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void unwind_level1(struct capture *c)
{
	unwind_level2(c);
	__asm__ volatile("" ::: "memory");
}

static void load_self_maps(struct session *s, uint32_t pid)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];
	while (f && fgets(line, sizeof line, f)) {
		unsigned long lo, hi, off;
		char perms[8], file[512] = "";
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %511s", &lo, &hi, perms, &off, file) < 4)
			continue;
		if (perms[2] != 'x' || !file[0])
			continue;
		struct perf_event ev;
		memset(&ev, 0, sizeof ev);
		ev.type = PERF_RECORD_MMAP2;
		ev.misc = PERF_RECORD_MISC_USER;
		ev.mmap.pid = ev.mmap.tid = pid;
		ev.mmap.start = lo;
		ev.mmap.len = hi - lo;
		ev.mmap.pgoff = off;
		ev.mmap.prot = PROT_READ | PROT_EXEC;
		ev.mmap.filename = file;
		session_apply(s, &ev);
	}
	if (f)
		fclose(f);
}

static const char *name_of(struct symbols *syms, const struct process *proc, uint64_t pc)
{
	const struct map *m = process_find_map(proc, pc);
	if (!m)
		return NULL;
	struct dso *d = symbols_dso(syms, m->filename, NULL, 0);
	const struct sym *y = d ? dso_find_sym(d, pc - m->start + m->pgoff) : NULL;
	return y ? y->name : NULL;
}

TEST(unwind_dwarf_own_stack)
{
	static struct capture c;
	unwind_level1(&c);
	uint32_t pid = (uint32_t)getpid();
	struct session *sess = session_new();
	load_self_maps(sess, pid);
	struct symbols_config sc = { .buildid_dir = "/nonexistent" };
	struct symbols *syms = symbols_new(&sc);
	struct unwinder *u = unwinder_new(syms);
	struct perf_sample smp;
	memset(&smp, 0, sizeof smp);
	smp.pid = smp.tid = pid;
	smp.regs_user_abi = 2; /* PERF_SAMPLE_REGS_ABI_64 */
	smp.regs_user_nr = 3;
	smp.regs_user = c.regs;
	smp.stack_user = c.stack;
	smp.stack_user_size = STACK_COPY;
	smp.stack_user_dyn_size = c.size;
	struct unwind_frame out[64];
	const struct process *proc = session_process(sess, pid);
	int n = unwinder_unwind(u, proc, &smp, capture_mask, out, 64);
	CHECK(n >= 4);
	CHECK(out[0].activation);
	CHECK(!out[1].activation);
	const char *want[] = { "capture_here", "unwind_level2", "unwind_level1",
			       "test_unwind_dwarf_own_stack" };
	int w = 0;
	for (int i = 0; i < n && w < 4; i++) {
		const char *nm = name_of(syms, proc, out[i].pc);
		if (nm && !strcmp(nm, want[w]))
			w++;
	}
	if (w < 4) {
		for (int i = 0; i < n; i++)
			fprintf(stderr, "frame %d %#llx %s\n", i, (unsigned long long)out[i].pc,
				name_of(syms, proc, out[i].pc));
	}
	CHECK_EQ(w, 4);
	/* the rule cache answers the second walk */
	uint64_t misses = unwinder_stats(u)->rule_misses;
	int n2 = unwinder_unwind(u, proc, &smp, capture_mask, out, 64);
	CHECK_EQ(n2, n);
	CHECK_EQ(unwinder_stats(u)->rule_misses, misses);
	/* max frames is honoured */
	CHECK_EQ(unwinder_unwind(u, proc, &smp, capture_mask, out, 2), 2);
	/* no registers: nothing */
	smp.regs_user_nr = 0;
	CHECK_EQ(unwinder_unwind(u, proc, &smp, capture_mask, out, 64), 0);
	unwinder_free(u);
	symbols_free(syms);
	session_free(sess);
}

TEST(unwind_dwarf_truncated_stack)
{
	/* a stack copy of 0 bytes: the first frame, then the walk stops */
	static struct capture c;
	unwind_level1(&c);
	uint32_t pid = (uint32_t)getpid();
	struct session *sess = session_new();
	load_self_maps(sess, pid);
	struct symbols_config sc = { .buildid_dir = "/nonexistent" };
	struct symbols *syms = symbols_new(&sc);
	struct unwinder *u = unwinder_new(syms);
	struct perf_sample smp;
	memset(&smp, 0, sizeof smp);
	smp.regs_user_abi = 2;
	smp.regs_user_nr = 3;
	smp.regs_user = c.regs;
	smp.stack_user = c.stack;
	smp.stack_user_size = 0;
	struct unwind_frame out[64];
	int n = unwinder_unwind(u, session_process(sess, pid), &smp, capture_mask, out, 64);
	CHECK(n >= 1 && n <= 2);
	unwinder_free(u);
	symbols_free(syms);
	session_free(sess);
}

TEST(unwind_dwarf_copy_end)
{
	/* a copy too short for the stack: the walk stops at its end and says
	 * so (copy_end); the whole copy ends in the CFI (no copy_end) */
	static struct capture c;
	unwind_level1(&c);
	uint32_t pid = (uint32_t)getpid();
	struct session *sess = session_new();
	load_self_maps(sess, pid);
	struct symbols_config sc = { .buildid_dir = "/nonexistent" };
	struct symbols *syms = symbols_new(&sc);
	struct unwinder *u = unwinder_new(syms);
	const struct process *proc = session_process(sess, pid);
	struct perf_sample full;
	memset(&full, 0, sizeof full);
	full.pid = full.tid = pid;
	full.regs_user_abi = 2;
	full.regs_user_nr = 3;
	full.regs_user = c.regs;
	full.stack_user = c.stack;
	full.stack_user_size = STACK_COPY;
	full.stack_user_dyn_size = c.size;
	struct unwind_frame ref[64], out[64];
	int nref = unwinder_unwind(u, proc, &full, capture_mask, ref, 64);
	CHECK(nref >= 4);
	for (int i = 0; i < nref; i++)
		CHECK(!ref[i].copy_end);
	struct perf_sample cut = full;
	cut.stack_user_dyn_size = 16;   /* capture_here's return address is further */
	int n = unwinder_unwind(u, proc, &cut, capture_mask, out, 64);
	CHECK(n >= 1 && n < nref);
	CHECK(out[n - 1].copy_end);
	for (int i = 0; i < n - 1; i++)
		CHECK(!out[i].copy_end);
	unwinder_free(u);
	symbols_free(syms);
	session_free(sess);
}
