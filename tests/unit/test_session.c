/* test_session.c: maps with overlap replacement, comm history, fork. */
#include "test.h"
#include "analyze/session.h"

static struct perf_event mmap_ev(uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff, const char *f)
{
	struct perf_event ev = { 0 };
	ev.type = PERF_RECORD_MMAP2;
	ev.misc = PERF_RECORD_MISC_USER;
	ev.mmap.pid = ev.mmap.tid = pid;
	ev.mmap.start = start;
	ev.mmap.len = len;
	ev.mmap.pgoff = pgoff;
	ev.mmap.prot = 5;
	ev.mmap.filename = f;
	return ev;
}

TEST(session_map_overlap_splits)
{
	struct session *s = session_new();
	struct perf_event a = mmap_ev(10, 0x1000, 0x9000, 0, "/a");
	session_apply(s, &a);
	struct perf_event b = mmap_ev(10, 0x3000, 0x2000, 0x100, "/b");
	session_apply(s, &b);
	const struct map *m = session_find_map(s, 10, 0x2fff);
	CHECK(m && !strcmp(m->filename, "/a"));
	m = session_find_map(s, 10, 0x3000);
	CHECK(m && !strcmp(m->filename, "/b") && m->pgoff == 0x100);
	m = session_find_map(s, 10, 0x5000);
	CHECK(m && !strcmp(m->filename, "/a") && m->pgoff == 0x4000 && m->end == 0xa000);
	CHECK(session_find_map(s, 10, 0xa000) == NULL);
	CHECK(session_find_map(s, 11, 0x3000) == NULL);
	CHECK_EQ(session_process(s, 10)->nr_maps, 3);
	session_free(s);
}

TEST(session_comm_history_fork_exec)
{
	struct session *s = session_new();
	struct perf_event c = { 0 };
	c.type = PERF_RECORD_COMM;
	c.comm.pid = c.comm.tid = 5;
	c.comm.comm = "perf";
	c.s.time = 100;
	session_apply(s, &c);
	struct perf_event m = mmap_ev(5, 0x1000, 0x1000, 0, "/bin/perf");
	session_apply(s, &m);
	struct perf_event f = { 0 };
	f.type = PERF_RECORD_FORK;
	f.fork.pid = f.fork.tid = 6;
	f.fork.ppid = f.fork.ptid = 5;
	f.fork.time = 150;
	session_apply(s, &f);
	CHECK_STR(session_comm(s, 6, 160), "perf");
	CHECK(session_find_map(s, 6, 0x1800) != NULL); /* inherited maps */
	c.comm.pid = c.comm.tid = 6;
	c.comm.comm = "child";
	c.comm.exec = true;
	c.s.time = 200;
	session_apply(s, &c);
	CHECK_STR(session_comm(s, 6, 199), "perf");
	CHECK_STR(session_comm(s, 6, 200), "child");
	/* as perf: exec keeps the old image's maps until new ones replace
	 * them (a sample inside execve still names the old code) */
	CHECK(session_find_map(s, 6, 0x1800) != NULL);
	CHECK(session_find_map(s, 5, 0x1800) != NULL);
	session_free(s);
}
