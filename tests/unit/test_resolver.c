/* test_resolver.c: the resolver on a session built by hand: frame-pointer
 * chains symbolized from the unit-test binary itself, max_frames, kernel
 * frames from a kallsyms file, unmapped addresses, and the typed warnings
 * of files hotspot would miss (only when asked for, once per file). */
#include "synth.h"
#include "analyze/pipeline.h"
#include "analyze/resolver.h"
#include "analyze/session.h"
#include "perf/event.h"
#include <errno.h>

static void apply_mmap(struct session *s, uint32_t pid, const struct synth_map *m, const char *path)
{
	struct perf_event ev = { 0 };
	ev.type = PERF_RECORD_MMAP2;
	ev.misc = PERF_RECORD_MISC_USER;
	ev.mmap.pid = ev.mmap.tid = pid;
	ev.mmap.start = m->start;
	ev.mmap.len = m->end - m->start;
	ev.mmap.pgoff = m->pgoff;
	ev.mmap.prot = PROT_READ | PROT_EXEC;
	ev.mmap.filename = path ? path : m->path;
	session_apply(s, &ev);
}

/* A sample of pid at time t with callchain cc[0..n-1] (markers included). */
static struct perf_event sample(uint32_t pid, uint64_t t, const uint64_t *cc, uint64_t n)
{
	struct perf_event ev = { 0 };
	ev.type = PERF_RECORD_SAMPLE;
	ev.misc = PERF_RECORD_MISC_USER;
	ev.s.pid = ev.s.tid = pid;
	ev.s.time = t;
	ev.s.ip = cc[1];
	ev.s.callchain = cc;
	ev.s.callchain_nr = n;
	ev.s.period = 1;
	return ev;
}

struct seen {
	int no_elf, kallsyms, notes;
	char file[256], msg[256];
};

static void file_warn(void *ctx, const struct resolver_warning *w)
{
	struct seen *s = ctx;
	CHECK(w->kind != RESOLVER_WARN_NOTE);
	if (w->kind == RESOLVER_WARN_NO_ELF)
		s->no_elf++;
	else
		s->kallsyms++;
	snprintf(s->file, sizeof(s->file), "%s", w->file ? w->file : "");
	snprintf(s->msg, sizeof(s->msg), "%s", w->msg ? w->msg : "");
}

static void note(void *ctx, const char *msg)
{
	((struct seen *)ctx)->notes++;
}

/* what the pipeline does with a resolver's warnings */
static void route(void *ctx, const struct resolver_warning *w)
{
	resolver_warning_route(ctx, w);
}

TEST(resolver_fp_chain_symbolized_from_elf)
{
	struct synth_map m;
	synth_self_map(&m);
	struct session *s = session_new();
	apply_mmap(s, 7, &m, NULL);
	struct pipeline_config c;
	pipeline_config_init(&c);
	c.kallsyms = "/dev/null";
	struct resolver *r = resolver_new(&c, s, NULL);
	CHECK(r);
	uint64_t cc[] = { PERF_CONTEXT_USER, (uint64_t)(uintptr_t)&synth_leaf + 1,
			  (uint64_t)(uintptr_t)&synth_mid + 1, (uint64_t)(uintptr_t)&synth_top + 1 };
	struct perf_event ev = sample(7, 10, cc, 4);
	struct resolved_sample rs;
	CHECK_EQ(resolver_resolve(r, &ev, NULL, &rs), 0);
	CHECK_EQ(rs.nr_frames, 3);
	CHECK_EQ(rs.pid, 7);
	CHECK_STR(rs.frames[0].sym, "synth_leaf");
	CHECK_STR(rs.frames[1].sym, "synth_mid");
	CHECK_STR(rs.frames[2].sym, "synth_top");
	for (int i = 0; i < 3; i++) {
		const struct frame *f = &rs.frames[i];
		CHECK_EQ(f->kind, FRAME_USER);
		CHECK_STR(f->dso, m.path);
		CHECK(f->map && f->dso_handle);
		CHECK_EQ(f->rel, f->ip - m.start + m.pgoff);
		CHECK_EQ(f->sym_off, 1);
		CHECK(!f->inlined && !f->guessed);
	}
	const struct resolver_stats *st = resolver_stats(r);
	CHECK_EQ(st->samples, 1);
	CHECK_EQ(st->fp_samples, 1);
	CHECK_EQ(st->frames, 3);
	CHECK_EQ(st->frames_unknown, 0);
	/* the same DSO cache serves another process mapping the same file */
	apply_mmap(s, 8, &m, NULL);
	struct perf_event ev2 = sample(8, 11, cc, 4);
	CHECK_EQ(resolver_resolve(r, &ev2, NULL, &rs), 0);
	CHECK_STR(rs.frames[2].sym, "synth_top");
	CHECK_EQ(resolver_stats(r)->dsos_loaded, st->dsos_loaded);
	resolver_free(r);
	session_free(s);
}

TEST(resolver_max_frames_and_unmapped)
{
	struct synth_map m;
	synth_self_map(&m);
	struct session *s = session_new();
	apply_mmap(s, 7, &m, NULL);
	struct pipeline_config c;
	pipeline_config_init(&c);
	c.kallsyms = "/dev/null";
	c.max_frames = 2;
	struct resolver *r = resolver_new(&c, s, NULL);
	uint64_t cc[] = { PERF_CONTEXT_USER, (uint64_t)(uintptr_t)&synth_leaf + 1, 0x10,
			  (uint64_t)(uintptr_t)&synth_top + 1 };
	struct perf_event ev = sample(7, 10, cc, 4);
	struct resolved_sample rs;
	CHECK_EQ(resolver_resolve(r, &ev, NULL, &rs), 0);
	CHECK_EQ(rs.nr_frames, 2);
	CHECK_STR(rs.frames[0].sym, "synth_leaf");
	/* an address in no mapping: no DSO, no symbol */
	CHECK_EQ(rs.frames[1].ip, 0x10);
	CHECK(!rs.frames[1].sym && !rs.frames[1].dso && !rs.frames[1].map);
	CHECK_EQ(resolver_stats(r)->truncated, 1);
	CHECK_EQ(resolver_stats(r)->frames_unknown, 1);
	CHECK(rs.truncated);
	resolver_free(r);
	/* a stack of exactly max_frames frames is whole */
	c.max_frames = 3;
	r = resolver_new(&c, s, NULL);
	CHECK_EQ(resolver_resolve(r, &ev, NULL, &rs), 0);
	CHECK_EQ(rs.nr_frames, 3);
	CHECK(!rs.truncated);
	CHECK_EQ(resolver_stats(r)->truncated, 0);
	resolver_free(r);
	session_free(s);
}

TEST(resolver_kernel_frames_from_kallsyms)
{
	char path[] = "/tmp/scorch-unit-kallsyms.XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	const char *ks = "ffffffff81000000 T kfunc_a\nffffffff81000100 t kfunc_b\n"
			 "ffffffff81000200 T kfunc_end\n";
	CHECK_EQ(write(fd, ks, strlen(ks)), (long long)strlen(ks));
	close(fd);
	struct session *s = session_new();
	struct pipeline_config c;
	pipeline_config_init(&c);
	c.kallsyms = path;
	struct resolver *r = resolver_new(&c, s, NULL);
	uint64_t cc[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ull, 0xffffffff81000180ull };
	struct perf_event ev = sample(7, 10, cc, 3);
	ev.misc = PERF_RECORD_MISC_KERNEL;
	struct resolved_sample rs;
	CHECK_EQ(resolver_resolve(r, &ev, NULL, &rs), 0);
	CHECK_EQ(rs.nr_frames, 2);
	CHECK_EQ(rs.frames[0].kind, FRAME_KERNEL);
	CHECK_STR(rs.frames[0].sym, "kfunc_a");
	CHECK_EQ(rs.frames[0].sym_off, 0x10);
	CHECK_STR(rs.frames[0].dso, "[kernel.kallsyms]");
	CHECK_STR(rs.frames[1].sym, "kfunc_b");
	/* resolver_symbolize: one address, no inline expansion */
	struct frame f;
	resolver_symbolize(r, SESSION_KERNEL_PID, 0xffffffff81000104ull, FRAME_KERNEL, &f);
	CHECK_STR(f.sym, "kfunc_b");
	CHECK_EQ(f.sym_off, 4);
	resolver_free(r);
	session_free(s);
	unlink(path);
}

TEST(resolver_reports_missing_files_once_when_asked)
{
	struct synth_map m;
	synth_self_map(&m);
	const char *gone = "/nonexistent-scorch-unit/libgone.so";
	for (int asked = 0; asked < 2; asked++) {
		struct session *s = session_new();
		apply_mmap(s, 7, &m, NULL);
		struct synth_map g = { .start = 0x10000000, .end = 0x10001000, .pgoff = 0 };
		apply_mmap(s, 7, &g, gone);
		struct seen seen = { 0 };
		struct pipeline_config c;
		pipeline_config_init(&c);
		c.kallsyms = "/nonexistent-scorch-unit/kallsyms";
		c.warn = note;
		c.warn_ctx = &seen;
		if (asked) {
			c.file_warn = file_warn;
			c.file_warn_ctx = &seen;
		}
		struct resolver *r = resolver_new(&c, s, NULL);
		resolver_set_warn(r, route, &c);
		uint64_t cc[] = { PERF_CONTEXT_USER, 0x10000010, (uint64_t)(uintptr_t)&synth_top + 1 };
		struct resolved_sample rs;
		for (int i = 0; i < 3; i++) {
			struct perf_event ev = sample(7, 10 + i, cc, 3);
			CHECK_EQ(resolver_resolve(r, &ev, NULL, &rs), 0);
		}
		CHECK_EQ(rs.nr_frames, 2);
		CHECK_EQ(seen.no_elf, asked ? 1 : 0);
		if (asked)
			CHECK_STR(seen.file, gone);
		CHECK_EQ(seen.kallsyms, 0);
		/* the resolver's own note about the file (once) */
		CHECK_EQ(seen.notes, 1);
		uint64_t kc[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ull };
		struct perf_event kev = sample(7, 20, kc, 2);
		kev.misc = PERF_RECORD_MISC_KERNEL;
		CHECK_EQ(resolver_resolve(r, &kev, NULL, &rs), 0);
		CHECK_EQ(resolver_resolve(r, &kev, NULL, &rs), 0);
		CHECK_EQ(seen.kallsyms, asked ? 1 : 0);
		if (asked) {
			CHECK_STR(seen.file, "/nonexistent-scorch-unit/kallsyms");
			CHECK_STR(seen.msg, strerror(ENOENT));
		}
		resolver_free(r);
		session_free(s);
	}
}
