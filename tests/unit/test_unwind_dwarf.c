/* test_unwind_dwarf.c: unwind this process's own stack, captured the way
 * the kernel copies it for PERF_SAMPLE_STACK_USER (ip, sp, bp registers and
 * the bytes above sp), through the session's maps and the DSO cache. */
#include "analyze/session.h"
#include "analyze/unwind/stackmem.h"
#include "analyze/symbols/symbols.h"
#include "analyze/unwind/unwind.h"
#include "test.h"

#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

/* An executable file mapping of pid, as an MMAP2 record gives it. */
static void map_exec(struct session *s, uint32_t pid, uint64_t lo, uint64_t hi, uint64_t off,
		     const char *file)
{
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
		map_exec(s, pid, lo, hi, off, file);
	}
	if (f)
		fclose(f);
}

/* A DWARF sample of pid from a capture: its registers, the whole copy. */
static struct perf_sample capture_sample(const struct capture *c, uint32_t pid)
{
	struct perf_sample smp;
	memset(&smp, 0, sizeof smp);
	smp.pid = smp.tid = pid;
	smp.regs_user_abi = 2; /* PERF_SAMPLE_REGS_ABI_64 */
	smp.regs_user_nr = 3;
	smp.regs_user = c->regs;
	smp.stack_user = c->stack;
	smp.stack_user_size = STACK_COPY;
	smp.stack_user_dyn_size = c->size;
	return smp;
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
	struct perf_sample smp = capture_sample(&c, pid);
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
	/* each frame's map and DSO, handed to the symbolization, are what
	 * looking its pc up again gives */
	int hinted = 0;
	for (int i = 0; i < n; i++) {
		if (!out[i].map_set) {
			CHECK(!out[i].dso_set);
			continue;
		}
		hinted++;
		const struct map *m = process_find_map(proc, out[i].pc);
		CHECK(out[i].map == m);
		if (out[i].dso_set) {
			CHECK(m != NULL);
			if (m)
				CHECK(out[i].dso == symbols_dso(syms, m->filename, m->build_id,
								m->build_id_size));
		}
	}
	CHECK_EQ(hinted, n); /* no signal frame here: every frame has them */
	CHECK(out[0].dso_set && out[0].dso != NULL);
	/* the rule cache answers the second walk */
	uint64_t misses = unwinder_stats(u)->rule_misses;
	int n2 = unwinder_unwind(u, proc, &smp, capture_mask, out, 64);
	CHECK_EQ(n2, n);
	CHECK_EQ(unwinder_stats(u)->rule_misses, misses);
	/* and hands over each frame's symbol too (its step memo), the one a
	 * lookup gives */
	int with_sym = 0;
	for (int i = 0; i < n2; i++) {
		if (!out[i].sym_set)
			continue;
		with_sym++;
		CHECK(out[i].dso_set && out[i].dso && !out[i].dso->missing);
		const struct map *m = process_find_map(proc, out[i].pc);
		if (m && out[i].dso)
			CHECK(out[i].sym == dso_find_sym(out[i].dso, out[i].pc - m->start + m->pgoff));
	}
	CHECK(with_sym >= 4); /* the four frames above, at least (a step that
			       * asks libdw each time, a PLT entry's, is not kept) */
	/* max frames is honoured */
	CHECK_EQ(unwinder_unwind(u, proc, &smp, capture_mask, out, 2), 2);
	/* no registers: nothing */
	smp.regs_user_nr = 0;
	CHECK_EQ(unwinder_unwind(u, proc, &smp, capture_mask, out, 64), 0);
	unwinder_free(u);
	symbols_free(syms);
	session_free(sess);
}

/* Two unwinders with a share (each with symbols of its own, as the threads
 * of a block-parallel run): the second takes every row from the share,
 * asks libdw for none, and walks the stack as a lone unwinder does. */
TEST(unwind_dwarf_share_between_unwinders)
{
	test_cache_off(true); /* libdw's rows, not an earlier test's kept ones */
	static struct capture c;
	unwind_level1(&c);
	uint32_t pid = (uint32_t)getpid();
	struct session *sess = session_new();
	load_self_maps(sess, pid);
	struct symbols_config sc = { .buildid_dir = "/nonexistent" };
	struct symbols *s0 = symbols_new(&sc), *s1 = symbols_new(&sc), *s2 = symbols_new(&sc);
	struct unwinder *lone = unwinder_new(s0), *u1 = unwinder_new(s1), *u2 = unwinder_new(s2);
	struct unwind_share *sh = unwind_share_new();
	unwinder_set_share(u1, sh);
	unwinder_set_share(u2, sh);
	struct perf_sample smp = capture_sample(&c, pid);
	const struct process *proc = session_process(sess, pid);
	struct unwind_frame a[64], b[64], d[64];
	int na = unwinder_unwind(lone, proc, &smp, capture_mask, a, 64);
	int nb = unwinder_unwind(u1, proc, &smp, capture_mask, b, 64);
	uint64_t rows, hits;
	unwind_share_counts(sh, &rows, &hits);
	CHECK(rows > 0);
	CHECK_EQ(hits, 0);
	CHECK(unwinder_stats(u1)->cfi_rows > 0);
	int nd = unwinder_unwind(u2, proc, &smp, capture_mask, d, 64);
	CHECK(na >= 4);
	CHECK_EQ(nb, na);
	CHECK_EQ(nd, na);
	for (int i = 0; i < na && i < nb && i < nd; i++) {
		CHECK_EQ(b[i].pc, a[i].pc);
		CHECK_EQ(d[i].pc, a[i].pc);
		CHECK_EQ(d[i].activation, a[i].activation);
	}
	/* every row the lone unwinder asked libdw for, u2 had from the share */
	CHECK_EQ(unwinder_stats(u2)->cfi_rows, 0);
	CHECK_EQ(unwinder_stats(u2)->fp_fallbacks, unwinder_stats(lone)->fp_fallbacks);
	unwind_share_counts(sh, &rows, &hits);
	CHECK(hits > 0);
	unwinder_free(lone);
	unwinder_free(u1);
	unwinder_free(u2);
	unwind_share_free(sh);
	symbols_free(s0);
	symbols_free(s1);
	symbols_free(s2);
	session_free(sess);
}

/* Walk c's stack with a new unwinder (symbols of its own, as a new run):
 * its frames into out, their count; its stats in *st. */
static int walk_fresh(struct capture *c, struct session *sess, uint32_t pid, struct unwind_frame *out,
		      struct unwinder_stats *st)
{
	struct symbols_config sc = { .buildid_dir = "/nonexistent" };
	struct symbols *syms = symbols_new(&sc);
	struct unwinder *u = unwinder_new(syms);
	struct perf_sample smp = capture_sample(c, pid);
	int n = unwinder_unwind(u, session_process(sess, pid), &smp, capture_mask, out, 64);
	*st = *unwinder_stats(u);
	unwinder_free(u); /* keeps what it converted (unwind-v1) */
	symbols_free(syms);
	return n;
}

/* Rows kept across runs (unwind_dwarf.c, dwindex.h's unwind-v1 store): a
 * second "run" asks libdw for no row and walks as the first did; the
 * images changed byte by byte (every 7th byte of each) are read without
 * a bad access (ASan) and the walk still ends (a damaged image may give a
 * wrong rule, never a read outside); with caches off nothing is kept. */
TEST(unwind_dwarf_kept_rows)
{
	char dir[] = "/tmp/scorch-unwkept-XXXXXX";
	test_cache_begin(dir);
	static struct capture c;
	unwind_level1(&c);
	uint32_t pid = (uint32_t)getpid();
	struct session *sess = session_new();
	load_self_maps(sess, pid);
	struct unwind_frame a[64], b[64];
	struct unwinder_stats sa, sb;
	int na = walk_fresh(&c, sess, pid, a, &sa);
	CHECK(na >= 4);
	CHECK(sa.cfi_rows > 0);
	int nb = walk_fresh(&c, sess, pid, b, &sb);
	CHECK_EQ(nb, na);
	for (int i = 0; i < na && i < nb; i++)
		CHECK_EQ(b[i].pc, a[i].pc);
	CHECK_EQ(sb.cfi_rows, 0);
	CHECK_EQ(sb.fp_fallbacks, sa.fp_fallbacks);
	/* damaged images */
	char cmd[600], list[300];
	snprintf(list, sizeof list, "%s/list", dir);
	snprintf(cmd, sizeof cmd, "ls %s/scorch/unwind-v1/*.idx > %s", dir, list);
	CHECK_EQ(system(cmd), 0);
	FILE *lf = fopen(list, "r");
	char path[512];
	int images = 0, walks = 0;
	while (lf && fgets(path, sizeof path, lf)) {
		path[strcspn(path, "\n")] = 0;
		int fd = open(path, O_RDONLY);
		CHECK(fd >= 0);
		struct stat st;
		CHECK(fstat(fd, &st) == 0);
		size_t size = (size_t)st.st_size;
		uint8_t *orig = malloc(size);
		CHECK(read(fd, orig, size) == (ssize_t)size);
		close(fd);
		images++;
		for (size_t at = 0; at < size; at += 7) {
			uint8_t *bad = malloc(size);
			memcpy(bad, orig, size);
			bad[at] ^= 0x41;
			fd = open(path, O_WRONLY | O_TRUNC);
			CHECK(fd >= 0 && write(fd, bad, size) == (ssize_t)size);
			close(fd);
			struct unwind_frame d[64];
			struct unwinder_stats sd;
			int nd = walk_fresh(&c, sess, pid, d, &sd);
			CHECK(nd >= 1 && nd <= 64);
			walks++;
			free(bad);
		}
		fd = open(path, O_WRONLY | O_TRUNC);
		CHECK(fd >= 0 && write(fd, orig, size) == (ssize_t)size);
		close(fd);
		free(orig);
	}
	if (lf)
		fclose(lf);
	CHECK(images >= 1);
	fprintf(stderr, "unwind: %d kept images, %d walks over damaged ones\n", images, walks);
	/* the images again as stored: a walk as the first */
	nb = walk_fresh(&c, sess, pid, b, &sb);
	CHECK_EQ(nb, na);
	CHECK_EQ(sb.cfi_rows, 0);
	/* off: libdw every run */
	test_cache_off(true);
	nb = walk_fresh(&c, sess, pid, b, &sb);
	CHECK_EQ(nb, na);
	CHECK_EQ(sb.cfi_rows, sa.cfi_rows);
	session_free(sess);
	test_cache_end(dir);
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
	struct perf_sample smp = capture_sample(&c, pid);
	smp.stack_user_size = 0;
	smp.stack_user_dyn_size = 0;
	struct unwind_frame out[64];
	int n = unwinder_unwind(u, session_process(sess, pid), &smp, capture_mask, out, 64);
	CHECK(n >= 1 && n <= 2);
	unwinder_free(u);
	symbols_free(syms);
	session_free(sess);
}

/* The stack copy's one-comparison bounds check reads exactly what the
 * plain rule allows (addr >= sp, addr - sp <= size - 8) and marks the same
 * misses as above the copy, at the edges of the copy and of the address
 * space: copies of 0..24 bytes, sp near 0 and near 2^64, reads around sp,
 * the copy's end and the wrap. */
TEST(unwind_stackmem_bounds)
{
	static uint8_t data[64];
	for (unsigned i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)(i * 7 + 1);
	const uint64_t sps[] = { 0, 1, 8, 0x7ffc0000, UINT64_MAX - 40, UINT64_MAX - 24, UINT64_MAX - 8,
				 UINT64_MAX - 7, UINT64_MAX - 1, UINT64_MAX };
	const int64_t deltas[] = { -9, -8, -1, 0, 1, 7, 8, 9, 15, 16, 17, 23, 24, 25, 32, 40, 56 };
	int checked = 0, reads = 0;
	for (size_t si = 0; si < sizeof sps / sizeof *sps; si++) {
		for (uint64_t size = 0; size <= 24; size++) {
			for (size_t di = 0; di < sizeof deltas / sizeof *deltas; di++) {
				uint64_t sp = sps[si], addr = sp + (uint64_t)deltas[di];
				struct stackmem m = stackmem_init(sp, data, size);
				uint64_t v = 0;
				bool got = mem_read(&m, addr, &v);
				bool want = addr >= sp && size >= 8 && addr - sp <= size - 8;
				CHECK_EQ(got, want);
				if (got && want) {
					uint64_t w;
					memcpy(&w, data + (addr - sp), 8);
					CHECK_EQ(v, w);
					reads++;
				}
				bool above = !want && addr >= sp && addr - sp < size + ABOVE_COPY_MAX;
				CHECK_EQ(m.above, above);
				checked++;
			}
		}
	}
	CHECK_EQ(checked, 10 * 25 * 17);
	CHECK(reads > 100);
}

/* The steps a walk keeps (the step memo) follow the maps: after the map
 * of the sampled code is replaced, the same sample walks with the new map
 * (the hints are the new maps' entries, the old DSO's CFI is not used);
 * another process with the same maps gets hints into its own maps. */
TEST(unwind_dwarf_memo_follows_maps)
{
	static struct capture c;
	unwind_level1(&c);
	uint32_t pid = (uint32_t)getpid(), pid2 = pid + 1000000;
	struct session *sess = session_new();
	load_self_maps(sess, pid);
	load_self_maps(sess, pid2);
	struct symbols_config sc = { .buildid_dir = "/nonexistent" };
	struct symbols *syms = symbols_new(&sc);
	struct unwinder *u = unwinder_new(syms);
	struct perf_sample smp = capture_sample(&c, pid);
	struct unwind_frame a[64], b[64];
	const struct process *proc = session_process(sess, pid), *proc2 = session_process(sess, pid2);
	int na = unwinder_unwind(u, proc, &smp, capture_mask, a, 64);
	CHECK(na >= 4);
	/* again, and in the other process: the same walk, hints in its maps */
	int nb = unwinder_unwind(u, proc, &smp, capture_mask, b, 64);
	CHECK_EQ(nb, na);
	for (int i = 0; i < na && i < nb; i++) {
		CHECK_EQ(b[i].pc, a[i].pc);
		CHECK(b[i].map == a[i].map);
	}
	nb = unwinder_unwind(u, proc2, &smp, capture_mask, b, 64);
	CHECK_EQ(nb, na);
	for (int i = 0; i < na && i < nb; i++) {
		CHECK_EQ(b[i].pc, a[i].pc);
		CHECK(b[i].map_set && b[i].map == process_find_map(proc2, b[i].pc));
	}
	/* the sampled code's map replaced by a file that is not there */
	const struct map *m0 = process_find_map(proc, a[0].pc);
	CHECK(m0 != NULL);
	if (!m0)
		return;
	map_exec(sess, pid, m0->start, m0->end, m0->pgoff, "/nonexistent/remapped");
	nb = unwinder_unwind(u, proc, &smp, capture_mask, b, 64);
	CHECK(nb >= 1);
	CHECK(b[0].map_set && b[0].map == process_find_map(proc, b[0].pc));
	CHECK(b[0].map && !strcmp(b[0].map->filename, "/nonexistent/remapped"));
	/* its DSO is the missing file's (no CFI: the walk goes by frame
	 * pointers), not the one the first walks stepped through */
	CHECK(b[0].dso_set && b[0].dso != a[0].dso);
	CHECK(b[0].dso == symbols_dso(syms, "/nonexistent/remapped", NULL, 0));
	for (int i = 0; i < nb; i++)
		if (b[i].map_set)
			CHECK(b[i].map == process_find_map(proc, b[i].pc));
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
	struct perf_sample full = capture_sample(&c, pid);
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

/* One CFI row as comparable values: rc, the CFA's ops and each register's
 * rule (as dwarf_frame_register gives it). */
static bool same_row(Dwarf_CFI *a, Dwarf_CFI *b, Dwarf_Addr pc)
{
	Dwarf_Frame *fa = NULL, *fb = NULL;
	int ra = dwarf_cfi_addrframe(a, pc, &fa), rb = dwarf_cfi_addrframe(b, pc, &fb);
	bool same = (ra == 0) == (rb == 0);
	if (same && ra == 0) {
		Dwarf_Op *oa, *ob;
		size_t na, nb;
		int ca = dwarf_frame_cfa(fa, &oa, &na), cb = dwarf_frame_cfa(fb, &ob, &nb);
		same = ca == cb && (ca || (na == nb && !memcmp(oa, ob, na * sizeof *oa)));
		Dwarf_Addr sa, sb, ea, eb;
		bool sga, sgb;
		same = same && dwarf_frame_info(fa, &sa, &ea, &sga) == dwarf_frame_info(fb, &sb, &eb, &sgb) &&
		       sa == sb && ea == eb && sga == sgb;
		for (int r = 0; same && r < 17; r++) {
			Dwarf_Op ma[3], mb[3];
			ca = dwarf_frame_register(fa, r, ma, &oa, &na);
			cb = dwarf_frame_register(fb, r, mb, &ob, &nb);
			same = ca == cb && (ca || (na == nb && (!na || !memcmp(oa, ob, na * sizeof *oa))));
		}
	}
	free(fa);
	free(fb);
	return same;
}

/* A file whose .eh_frame comes before .eh_frame_hdr in its section headers
 * (lld's order; made here from this test binary, linked by GNU ld, by
 * swapping the two headers): unwind_eh_cfi reads it through the search
 * table (a header-less view), and every row in .text is the one libdw gives
 * for the original file and for the swapped file its own way (a scan). */
TEST(unwind_eh_cfi_lld_section_order)
{
	elf_version(EV_CURRENT);
	int sfd = open("/proc/self/exe", O_RDONLY);
	CHECK(sfd >= 0);
	struct stat st;
	CHECK(!fstat(sfd, &st));
	size_t size = (size_t)st.st_size;
	uint8_t *img = malloc(size);
	CHECK(img && pread(sfd, img, size, 0) == (ssize_t)size);
	Elf *orig = elf_begin(sfd, ELF_C_READ_MMAP, NULL);
	CHECK(orig != NULL);
	size_t shstrndx;
	CHECK(!elf_getshdrstrndx(orig, &shstrndx));
	size_t i_hdr = 0, i_eh = 0;
	uint64_t text_lo = 0, text_hi = 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(orig, scn));) {
		GElf_Shdr sh;
		gelf_getshdr(scn, &sh);
		const char *n = elf_strptr(orig, shstrndx, sh.sh_name);
		if (!strcmp(n, ".eh_frame_hdr"))
			i_hdr = elf_ndxscn(scn);
		else if (!strcmp(n, ".eh_frame"))
			i_eh = elf_ndxscn(scn);
		else if (!strcmp(n, ".text"))
			text_lo = sh.sh_addr, text_hi = sh.sh_addr + sh.sh_size;
	}
	CHECK(i_hdr && i_eh && i_hdr < i_eh && text_hi > text_lo);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + eh->e_shoff), tmp = sh[i_hdr];
	sh[i_hdr] = sh[i_eh];
	sh[i_eh] = tmp;
	char path[] = "/tmp/scorch-lldorder-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	CHECK(write(fd, img, size) == (ssize_t)size);
	free(img);
	Elf *swapped = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	CHECK(swapped != NULL);

	struct unwind_eh_view v_orig, v_sw;
	Dwarf_CFI *c_orig = unwind_eh_cfi(orig, sfd, &v_orig);
	Dwarf_CFI *c_sw = unwind_eh_cfi(swapped, fd, &v_sw);
	Dwarf_CFI *c_scan = dwarf_getcfi_elf(swapped);
	CHECK(c_orig && c_sw && c_scan);
	CHECK(v_orig.elf == NULL); /* GNU ld's order: libdw's own way */
	CHECK(v_sw.elf != NULL);   /* lld's order: the header-less view */
	size_t nscn = 1;
	CHECK(!elf_getshdrnum(v_sw.elf, &nscn) && nscn == 0); /* libdw's PT_GNU_EH_FRAME path */
	size_t n = 0, bad = 0, found = 0;
	for (uint64_t pc = text_lo; pc < text_hi + 64; pc += 3, n++) {
		bad += !same_row(c_orig, c_sw, pc) || !same_row(c_scan, c_sw, pc);
		Dwarf_Frame *f;
		if (!dwarf_cfi_addrframe(c_sw, pc, &f)) {
			found++;
			free(f);
		}
	}
	CHECK_EQ(bad, 0);
	CHECK(found > n / 2);
	dwarf_cfi_end(c_orig);
	dwarf_cfi_end(c_sw);
	dwarf_cfi_end(c_scan);
	unwind_eh_view_release(&v_orig);
	unwind_eh_view_release(&v_sw);
	elf_end(swapped);
	elf_end(orig);
	close(fd);
	close(sfd);
	unlink(path);
}
