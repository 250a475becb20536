/*
 * session.c: threads, comms and memory maps over time (see session.h).
 *
 * FORK of a new process copies the parent's maps (the child's own MMAPs
 * follow); FORK of a thread shares the process. A thread inherits its
 * parent's comm at fork time. Maps: inserting [s, e) cuts every overlapping
 * map into its parts outside [s, e) (pgoff adjusted), then inserts, keeping
 * the array sorted: lookups are a binary search.
 *
 * A process's maps are dropped after its last known thread exits (EXIT):
 * a long system-wide or build recording would otherwise keep the maps of
 * every process it ever saw. Not at once: the kernel writes EXIT from
 * do_exit, and a CPU-wide event still samples the dying task until it is
 * switched out for the last time, with the user registers it entered the
 * kernel with (`_exit` in libc): perf, which keeps an exited thread's maps,
 * names that frame. The maps go once a later non-sample record is
 * SESSION_EXIT_GRACE_NS past the EXIT (samples do not move that clock: in
 * block mode a pipeline skips other pipelines' samples, and every pipeline
 * must drop at the same record); an EXIT without a time drops at once.
 * Threads and comms stay (a sample taken after EXIT still names them).
 * The live count follows each thread's pid (which a later record may
 * correct) and its exited state (which a FORK reusing the tid clears).
 */
#include "analyze/session.h"
#include "analyze/symbols/jitdump.h"
#include "util/arena.h"
#include "util/buf.h"
#include <stdlib.h>
#include <string.h>

#define MAX_MAPS (1u << 22)
#define MAX_COMMS (1u << 16)

struct session {
	struct hmap threads;   /* tid -> struct thread * */
	struct hmap procs;     /* pid -> struct process * */
	struct arena strs;     /* interned comms and file names */
	struct session_stats st;
	uint64_t generation;   /* the last generation given to a process's maps */
	uint64_t now;          /* the time of the latest timed non-sample record */
	bool jitdump;          /* a process mapped a JIT dump's marker */
	struct ending { uint32_t pid; uint64_t time; } *ending; /* in time order */
	size_t ending_head, nr_ending, cap_ending;
};

/* p's maps changed: a generation no set of maps of any process had before
 * (so a generation names one state of one process's maps, session.h) */
static void changed(struct session *s, struct process *p)
{
	p->generation = ++s->generation;
}

struct session *session_new(void)
{
	struct session *s = xcalloc(1, sizeof(*s));
	hmap_init(&s->threads);
	hmap_init(&s->procs);
	arena_init(&s->strs);
	return s;
}

static void thread_free(void *v)
{
	struct thread *t = v;
	free(t->comms);
	free(t);
}

static void process_free(void *v)
{
	struct process *p = v;
	free(p->maps);
	free(p);
}

void session_free(struct session *s)
{
	if (!s)
		return;
	hmap_release_vals(&s->threads, thread_free);
	hmap_release_vals(&s->procs, process_free);
	arena_release(&s->strs);
	free(s->ending);
	free(s);
}

const char *session_intern(struct session *s, const char *str)
{
	return arena_intern(&s->strs, str);
}

const struct session_stats *session_stats(const struct session *s)
{
	return &s->st;
}

struct process *session_process(struct session *s, uint32_t pid)
{
	struct process *p = hmap_get(&s->procs, pid);
	if (!p) {
		p = xcalloc(1, sizeof(*p));
		p->pid = pid;
		hmap_put(&s->procs, pid, p);
		s->st.processes++;
	}
	return p;
}

static void drop_maps(struct session *s, struct process *p)
{
	free(p->maps);
	p->maps = NULL;
	p->nr_maps = p->cap_maps = 0;
	changed(s, p);
	s->st.processes_ended++;
}

/* Keep t counted in the live count of the process it belongs to (none
 * when exited or of unknown pid); a process whose count drops to 0 loses
 * its maps, SESSION_EXIT_GRACE_NS later when the time is known. */
static void track(struct session *s, struct thread *t)
{
	uint32_t want = !t->exited && t->pid != UINT32_MAX ? t->pid : UINT32_MAX;
	if (want == t->counted_pid)
		return;
	if (t->counted_pid != UINT32_MAX) {
		struct process *p = hmap_get(&s->procs, t->counted_pid);
		if (p && p->live && --p->live == 0 && p->nr_maps) {
			if (!s->now) {
				drop_maps(s, p);
			} else {
				if (s->ending_head && s->ending_head == s->nr_ending)
					s->ending_head = s->nr_ending = 0;
				if (!ARRAY_GROW(s->ending, s->cap_ending, s->nr_ending + 1, MAX_MAPS)) {
					s->ending[s->nr_ending++] = (struct ending){ p->pid, s->now };
					p->ended = s->now;
				} else {
					drop_maps(s, p); /* no room to wait */
				}
			}
		}
	}
	if (want != UINT32_MAX)
		session_process(s, want)->live++;
	t->counted_pid = want;
}

struct thread *session_thread(struct session *s, uint32_t tid)
{
	return hmap_get(&s->threads, tid);
}

struct thread *session_thread_get(struct session *s, uint32_t pid, uint32_t tid)
{
	struct thread *t = hmap_get(&s->threads, tid);
	if (!t) {
		t = xcalloc(1, sizeof(*t));
		t->pid = pid;
		t->tid = tid;
		t->counted_pid = UINT32_MAX;
		hmap_put(&s->threads, tid, t);
		s->st.threads++;
	} else if (t->pid == UINT32_MAX || (t->pid != pid && pid != UINT32_MAX && t->pid == tid)) {
		t->pid = pid;
	}
	track(s, t);
	return t;
}

static void add_comm(struct thread *t, uint64_t time, const char *comm, bool exec)
{
	/* a comm set at the same time replaces (perf's in-place update) */
	if (t->nr_comms && t->comms[t->nr_comms - 1].time == time) {
		t->comms[t->nr_comms - 1].comm = comm;
		t->comms[t->nr_comms - 1].exec |= exec;
		return;
	}
	/* most threads have one or two comms (the parent's, then an exec's):
	 * room for two first, not ARRAY_GROW's sixteen (a recording of
	 * 20,000 short processes spent 7.6 MB on the difference) */
	if (!t->cap_comms) {
		t->comms = xmalloc(2 * sizeof(*t->comms));
		t->cap_comms = 2;
	}
	if (ARRAY_GROW(t->comms, t->cap_comms, t->nr_comms + 1, MAX_COMMS))
		return;
	/* keep the history sorted even if records come late */
	size_t i = t->nr_comms;
	while (i && t->comms[i - 1].time > time)
		i--;
	memmove(t->comms + i + 1, t->comms + i, (t->nr_comms - i) * sizeof(*t->comms));
	t->comms[i] = (struct comm_entry){ time, comm, exec };
	t->nr_comms++;
}

const char *session_comm(struct session *s, uint32_t tid, uint64_t time)
{
	struct thread *t = hmap_get(&s->threads, tid);
	if (!t || !t->nr_comms)
		return NULL;
	/* the latest comm set at or before time; before the first: the first */
	size_t lo = UPPER_BOUND(t->comms, t->nr_comms, time, time);
	return t->comms[lo ? lo - 1 : 0].comm;
}

static void map_insert(struct session *s, struct process *p, const struct map *m)
{
	/* cut overlapping maps */
	size_t i = 0;
	while (i < p->nr_maps) {
		struct map *o = &p->maps[i];
		if (o->end <= m->start || o->start >= m->end) {
			i++;
			continue;
		}
		struct map left = *o, right = *o;
		bool has_left = o->start < m->start, has_right = o->end > m->end;
		left.end = m->start;
		right.pgoff += m->end - o->start;
		right.start = m->end;
		if (has_left && has_right) {
			if (ARRAY_GROW(p->maps, p->cap_maps, p->nr_maps + 1, MAX_MAPS))
				return;
			o = &p->maps[i];
			memmove(o + 2, o + 1, (p->nr_maps - i - 1) * sizeof(*o));
			p->maps[i] = left;
			p->maps[i + 1] = right;
			p->nr_maps++;
			i += 2;
		} else if (has_left) {
			*o = left;
			i++;
		} else if (has_right) {
			*o = right;
			i++;
		} else {
			memmove(o, o + 1, (p->nr_maps - i - 1) * sizeof(*o));
			p->nr_maps--;
		}
	}
	if (ARRAY_GROW(p->maps, p->cap_maps, p->nr_maps + 1, MAX_MAPS)) {
		changed(s, p); /* what overlapped was cut all the same */
		return;
	}
	size_t lo = 0, hi = p->nr_maps;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (p->maps[mid].start < m->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(p->maps + lo + 1, p->maps + lo, (p->nr_maps - lo) * sizeof(*m));
	p->maps[lo] = *m;
	p->nr_maps++;
	changed(s, p);
}

bool session_jitdump(const struct session *s)
{
	return s->jitdump;
}

const struct map *session_find_map(struct session *s, uint32_t pid, uint64_t addr)
{
	return process_find_map(hmap_get(&s->procs, pid), addr);
}

static void apply_mmap(struct session *s, const struct perf_event *ev)
{
	struct map m = { 0 };
	m.start = ev->mmap.start;
	if (ev->mmap.len == 0 || m.start + ev->mmap.len < m.start)
		return;
	m.end = m.start + ev->mmap.len;
	m.pgoff = ev->mmap.pgoff;
	m.filename = session_intern(s, ev->mmap.filename);
	m.maj = ev->mmap.maj;
	m.min = ev->mmap.min;
	m.ino = ev->mmap.ino;
	m.ino_generation = ev->mmap.ino_generation;
	m.prot = ev->mmap.prot;
	m.flags = ev->mmap.flags;
	m.build_id_size = ev->mmap.build_id_size;
	memcpy(m.build_id, ev->mmap.build_id, 20);
	m.time = ev->s.time;
	uint32_t pid = ev->mmap.pid;
	uint16_t cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL)
		pid = SESSION_KERNEL_PID;
	s->st.mmaps++;
	if (!s->jitdump && jitdump_is_marker(m.filename))
		s->jitdump = true;
	map_insert(s, session_process(s, pid), &m);
	if (pid != SESSION_KERNEL_PID)
		session_thread_get(s, pid, ev->mmap.tid);
}

/* Drop the maps of the processes that ended SESSION_EXIT_GRACE_NS or more
 * before s->now and have not come back (a FORK reusing the pid makes it
 * live; a later end is queued again with its own time). */
static void expire(struct session *s)
{
	while (s->ending_head < s->nr_ending) {
		struct ending e = s->ending[s->ending_head];
		if (s->now - e.time < SESSION_EXIT_GRACE_NS)
			break;
		s->ending_head++;
		struct process *p = hmap_get(&s->procs, e.pid);
		if (p && !p->live && p->nr_maps && p->ended == e.time)
			drop_maps(s, p);
	}
	if (s->ending_head == s->nr_ending)
		s->ending_head = s->nr_ending = 0;
	else if (s->ending_head >= 4096 && s->ending_head * 2 >= s->nr_ending) {
		s->nr_ending -= s->ending_head;
		memmove(s->ending, s->ending + s->ending_head, s->nr_ending * sizeof(*s->ending));
		s->ending_head = 0;
	}
}

void session_apply(struct session *s, const struct perf_event *ev)
{
	if (ev->type == PERF_RECORD_SAMPLE)
		return;
	uint64_t t = ev->s.time;
	if (!t && (ev->type == PERF_RECORD_FORK || ev->type == PERF_RECORD_EXIT))
		t = ev->fork.time;
	if (t > s->now) {
		s->now = t;
		expire(s);
	}
	switch (ev->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		/* data maps (non-exec) do not hold code */
		if (ev->type == PERF_RECORD_MMAP2 && !(ev->mmap.prot & 4 /* PROT_EXEC */))
			return;
		if (ev->type == PERF_RECORD_MMAP && (ev->misc & PERF_RECORD_MISC_MMAP_DATA))
			return;
		apply_mmap(s, ev);
		return;
	case PERF_RECORD_COMM: {
		s->st.comms++;
		struct thread *t = session_thread_get(s, ev->comm.pid, ev->comm.tid);
		add_comm(t, ev->s.time, session_intern(s, ev->comm.comm), ev->comm.exec);
		if (ev->comm.exec) {
			/* perf keeps the maps across exec: the new image's
			 * mappings replace what they overlap, and a sample taken
			 * inside execve is still named with the old image; the
			 * unwinder's per-process state is rebuilt */
			changed(s, session_process(s, ev->comm.pid));
		}
		return;
	}
	case PERF_RECORD_FORK: {
		s->st.forks++;
		struct thread *parent = session_thread(s, ev->fork.ptid);
		struct thread *t = hmap_get(&s->threads, ev->fork.tid);
		if (t && ev->fork.pid == ev->fork.tid && t->nr_comms) {
			/* tid reuse: a new process */
			t->nr_comms = 0;
		}
		t = session_thread_get(s, ev->fork.pid, ev->fork.tid);
		t->pid = ev->fork.pid;
		t->start_time = ev->fork.time;
		t->exited = false;
		track(s, t);
		if (parent && parent->nr_comms && !t->nr_comms)
			add_comm(t, ev->fork.time, session_comm(s, parent->tid, ev->fork.time), false);
		if (ev->fork.pid != ev->fork.ppid) {
			/* a new process: starts with a copy of the parent's maps */
			struct process *pp = hmap_get(&s->procs, ev->fork.ppid);
			struct process *np = session_process(s, ev->fork.pid);
			if (pp && pp != np) {
				free(np->maps);
				np->maps = NULL;
				np->nr_maps = np->cap_maps = 0;
				if (pp->nr_maps &&
				    !ARRAY_GROW(np->maps, np->cap_maps, pp->nr_maps, MAX_MAPS)) {
					memcpy(np->maps, pp->maps, pp->nr_maps * sizeof(*pp->maps));
					np->nr_maps = pp->nr_maps;
				}
				changed(s, np);
			}
		}
		return;
	}
	case PERF_RECORD_EXIT: {
		s->st.exits++;
		struct thread *t = session_thread(s, ev->fork.tid);
		if (t) {
			t->exited = true;
			t->end_time = ev->fork.time;
			track(s, t);
		}
		return;
	}
	case PERF_RECORD_KSYMBOL: {
		/* a BPF program or other kernel text: a kernel map of its own */
		struct map m = { 0 };
		m.start = ev->ksymbol.addr;
		m.end = m.start + ev->ksymbol.len;
		if (m.end <= m.start)
			return;
		m.filename = session_intern(s, ev->ksymbol.name);
		m.prot = 4;
		m.time = ev->s.time;
		if (ev->ksymbol.flags & 1 /* UNREGISTER */)
			return;
		map_insert(s, session_process(s, SESSION_KERNEL_PID), &m);
		return;
	}
	default:
		return;
	}
}

int session_for_each_thread(struct session *s, int (*fn)(void *, struct thread *), void *ctx)
{
	for (size_t i = 0; i < s->threads.cap; i++)
		if (hmap_used(&s->threads, i)) {
			int rc = fn(ctx, s->threads.slot[i].val);
			if (rc)
				return rc;
		}
	return 0;
}
