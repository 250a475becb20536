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

static struct perf_event task_ev(uint32_t type, uint32_t pid, uint32_t tid, uint32_t ppid, uint64_t t)
{
	struct perf_event ev = { 0 };
	ev.type = type;
	ev.fork.pid = pid;
	ev.fork.tid = tid;
	ev.fork.ppid = ev.fork.ptid = ppid;
	ev.fork.time = t;
	return ev;
}

/* A process's maps go SESSION_EXIT_GRACE_NS after its last known thread
 * exits (the kernel still samples a dying task after its EXIT), not
 * before; its threads and comms stay; a pid used again by a new process
 * gets maps. */
TEST(session_maps_dropped_when_last_thread_exits)
{
	struct session *s = session_new();
	struct perf_event m = mmap_ev(20, 0x1000, 0x1000, 0, "/bin/app");
	session_apply(s, &m);
	struct perf_event c = { 0 };
	c.type = PERF_RECORD_COMM;
	c.comm.pid = c.comm.tid = 20;
	c.comm.comm = "app";
	c.s.time = 10;
	session_apply(s, &c);
	struct perf_event th = task_ev(PERF_RECORD_FORK, 20, 21, 20, 20); /* a second thread */
	session_apply(s, &th);
	CHECK_EQ(session_process(s, 20)->live, 2);
	struct perf_event e = task_ev(PERF_RECORD_EXIT, 20, 20, 20, 30); /* the leader first */
	session_apply(s, &e);
	CHECK(session_find_map(s, 20, 0x1800) != NULL);
	session_apply(s, &e); /* an EXIT twice counts once */
	CHECK(session_find_map(s, 20, 0x1800) != NULL);
	uint64_t gen = session_process(s, 20)->generation;
	e = task_ev(PERF_RECORD_EXIT, 20, 21, 20, 40);
	session_apply(s, &e);
	CHECK_EQ(session_stats(s)->processes_ended, 0);
	/* a sample after EXIT still finds the maps, until a non-sample record
	 * comes SESSION_EXIT_GRACE_NS after it (samples do not count) */
	CHECK(session_find_map(s, 20, 0x1800) != NULL);
	struct perf_event smp = { 0 };
	smp.type = PERF_RECORD_SAMPLE;
	smp.s.time = 40 + 2 * SESSION_EXIT_GRACE_NS;
	session_apply(s, &smp);
	CHECK(session_find_map(s, 20, 0x1800) != NULL);
	CHECK_EQ(session_stats(s)->processes_ended, 0);
	struct perf_event late = task_ev(PERF_RECORD_EXIT, 99, 99, 99, 40 + SESSION_EXIT_GRACE_NS - 1);
	session_apply(s, &late);
	CHECK(session_find_map(s, 20, 0x1800) != NULL);
	late = task_ev(PERF_RECORD_EXIT, 99, 99, 99, 40 + SESSION_EXIT_GRACE_NS);
	session_apply(s, &late);
	CHECK(session_find_map(s, 20, 0x1800) == NULL);
	CHECK_EQ(session_process(s, 20)->nr_maps, 0);
	CHECK(session_process(s, 20)->generation != gen); /* unwinders see it */
	CHECK_EQ(session_stats(s)->processes_ended, 1);
	CHECK_STR(session_comm(s, 20, 50), "app");
	CHECK_STR(session_comm(s, 21, 50), "app");
	/* pid 20 again, forked by 1 (which has maps): a new process */
	struct perf_event pm = mmap_ev(1, 0x5000, 0x1000, 0, "/sbin/init");
	session_apply(s, &pm);
	struct perf_event f = task_ev(PERF_RECORD_FORK, 20, 20, 1, 60 + SESSION_EXIT_GRACE_NS);
	session_apply(s, &f);
	CHECK(session_find_map(s, 20, 0x5800) != NULL);
	CHECK_EQ(session_process(s, 20)->live, 1);
	/* a thread first guessed to lead its own process, then known to be
	 * another's: the guess's count goes, the real one's comes */
	struct perf_event g = mmap_ev(30, 0x1000, 0x1000, 0, "/bin/x");
	session_apply(s, &g);
	session_thread_get(s, 31, 31);
	CHECK_EQ(session_process(s, 31)->live, 1);
	session_thread_get(s, 30, 31);
	CHECK_EQ(session_process(s, 31)->live, 0);
	CHECK_EQ(session_process(s, 30)->live, 2);
	e = task_ev(PERF_RECORD_EXIT, 30, 30, 30, 70 + SESSION_EXIT_GRACE_NS);
	session_apply(s, &e);
	CHECK(session_find_map(s, 30, 0x1800) != NULL);
	e = task_ev(PERF_RECORD_EXIT, 30, 31, 30, 71 + SESSION_EXIT_GRACE_NS);
	session_apply(s, &e);
	CHECK(session_find_map(s, 30, 0x1800) != NULL);
	/* pid 30 used again within the grace: the new process keeps its maps */
	f = task_ev(PERF_RECORD_FORK, 30, 30, 1, 80 + SESSION_EXIT_GRACE_NS);
	session_apply(s, &f);
	late = task_ev(PERF_RECORD_EXIT, 99, 99, 99, 80 + 3 * SESSION_EXIT_GRACE_NS);
	session_apply(s, &late);
	CHECK(session_find_map(s, 30, 0x5800) != NULL);
	/* an EXIT without a time drops at once */
	struct perf_event m4 = mmap_ev(40, 0x1000, 0x1000, 0, "/bin/y");
	session_apply(s, &m4);
	struct session *s2 = session_new();
	session_apply(s2, &m4);
	e = task_ev(PERF_RECORD_EXIT, 40, 40, 40, 0);
	session_apply(s2, &e);
	CHECK(session_find_map(s2, 40, 0x1800) == NULL);
	session_free(s2);
	session_free(s);
}
