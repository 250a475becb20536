/* events.c: event names, attrs, opening per CPU; see events.h. */
#include "record/events.h"
#include "util/buf.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

struct named_event {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static const struct named_event named[] = {
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

static const char *const tracefs_roots[] = { "/sys/kernel/tracing/events",
					      "/sys/kernel/debug/tracing/events" };

const char *events_named(size_t i, bool *hardware)
{
	if (i >= sizeof(named) / sizeof(named[0]))
		return NULL;
	*hardware = named[i].type == PERF_TYPE_HARDWARE;
	return named[i].name;
}

static int dir_only(const struct dirent *d)
{
	return (d->d_type == DT_DIR || d->d_type == DT_UNKNOWN) && d->d_name[0] != '.';
}

int events_tracepoints(void (*fn)(void *ctx, const char *name), void *ctx)
{
	for (size_t r = 0; r < 2; r++) {
		struct dirent **sys;
		int nsys = scandir(tracefs_roots[r], &sys, dir_only, alphasort);
		if (nsys <= 0)
			continue;
		int count = 0;
		for (int i = 0; i < nsys; i++) {
			char path[512], name[600];
			struct dirent **ev;
			snprintf(path, sizeof(path), "%s/%s", tracefs_roots[r], sys[i]->d_name);
			int nev = scandir(path, &ev, dir_only, alphasort);
			for (int j = 0; j < nev; j++) {
				snprintf(name, sizeof(name), "%s:%s", sys[i]->d_name, ev[j]->d_name);
				fn(ctx, name);
				count++;
				free(ev[j]);
			}
			if (nev > 0)
				free(ev);
			free(sys[i]);
		}
		free(sys);
		return count;
	}
	return -ENOENT;
}

static int tracepoint_id(const char *sys, const char *name, uint64_t *id)
{
	for (size_t i = 0; i < 2; i++) {
		char path[512], line[64];
		snprintf(path, sizeof(path), "%s/%s/%s/id", tracefs_roots[i], sys, name);
		FILE *fp = fopen(path, "r");
		if (!fp)
			continue;
		char *r = fgets(line, sizeof(line), fp);
		fclose(fp);
		if (r) {
			*id = strtoull(line, NULL, 10);
			return 0;
		}
	}
	return -ENOENT;
}

int record_event_parse(const char *spec, struct record_event *ev, struct err *e)
{
	char name[96];
	memset(ev, 0, sizeof(*ev));
	if (strlen(spec) >= sizeof(name) || !*spec)
		return err_set(e, -ENOENT, "event '%s': bad name", spec);
	snprintf(name, sizeof(name), "%s", spec);
	char *colon = strrchr(name, ':');
	const char *mods = NULL;
	if (colon && colon[1] && strspn(colon + 1, "ukhpPGH") == strlen(colon + 1)) {
		*colon = 0;
		mods = colon + 1;
	}
	bool found = false;
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		if (!strcmp(named[i].name, name)) {
			ev->type = named[i].type;
			ev->config = named[i].config;
			found = true;
			break;
		}
	}
	if (!found && mods) { /* "sys:name" is a tracepoint, not modifiers */
		*colon = ':';
		mods = NULL;
	}
	if (!found) {
		char *c = strchr(name, ':');
		uint64_t id;
		if (c && c[1] != ':') {
			*c = 0;
			if (tracepoint_id(name, c + 1, &id) == 0) {
				*c = ':';
				ev->type = PERF_TYPE_TRACEPOINT;
				ev->config = id;
				ev->is_tracepoint = true;
				found = true;
			} else {
				*c = ':';
				return err_set(e, -ENOENT,
					       "event '%s': unknown tracepoint (is tracefs mounted?)", spec);
			}
		}
	}
	if (!found)
		return err_set(e, -ENOENT, "event '%s': unknown event", spec);
	if (mods) {
		bool u = strchr(mods, 'u'), k = strchr(mods, 'k');
		if (u && !k)
			ev->excl_kernel = true;
		if (k && !u)
			ev->excl_user = true;
	}
	snprintf(ev->name, sizeof(ev->name), "%s", spec);
	return 0;
}

int events_online_cpus(int *cpus, size_t max)
{
	char line[1024];
	FILE *fp = fopen("/sys/devices/system/cpu/online", "r");
	size_t n = 0;
	if (fp) {
		char *r = fgets(line, sizeof(line), fp);
		fclose(fp);
		for (char *p = r; p && *p && *p != '\n';) {
			long a = strtol(p, &p, 10), b = a;
			if (*p == '-')
				b = strtol(p + 1, &p, 10);
			for (long c = a; c <= b && n < max; c++)
				cpus[n++] = (int)c;
			if (*p == ',')
				p++;
			else
				break;
		}
	}
	if (!n) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		for (long i = 0; i < c && n < max; i++)
			cpus[n++] = (int)i;
	}
	return (int)n;
}

static int read_int_file(const char *path, int dflt);

static bool can_profile_kernel(void)
{
	return geteuid() == 0 || read_int_file("/proc/sys/kernel/perf_event_paranoid", 2) <= 1;
}

/* x86-64 user registers perf records for DWARF unwinding: all but the
 * segment registers DS ES FS GS (bits 12..15), up to PERF_REG_X86_64_MAX. */
#define EVENTS_X86_REGS_MASK (((1ULL << 24) - 1) & ~(0xfULL << 12))

static void build_attr(struct perf_event_attr *a, const struct record_event *ev,
		       const struct record_opts *o, bool first, bool enable_on_exec)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = ev->type;
	a->config = ev->config;
	a->sample_type = EVENTS_SAMPLE_BASE;
	if (ev->is_tracepoint) {
		a->sample_type |= PERF_SAMPLE_RAW;
		a->sample_period = ev->period ? ev->period : o->period ? o->period : 1;
	} else if (ev->period) {
		a->sample_period = ev->period;
	} else if (o->period) {
		a->sample_period = o->period;
	} else {
		a->freq = 1;
		a->sample_freq = o->freq ? o->freq : 4000;
	}
	a->disabled = 1;
	a->inherit = !o->no_inherit && !o->system_wide;
	a->enable_on_exec = enable_on_exec;
	a->sample_id_all = 1;
	if (o->use_clockid) {
		a->use_clockid = 1;
		a->clockid = o->clockid;
	}
	a->exclude_user = ev->excl_user;
	a->exclude_kernel = ev->excl_kernel;
	/* like perf: the default event counts user space only when the kernel
	 * may not be profiled (perf_event_paranoid > 1 and not privileged) */
	if (ev->is_default && !can_profile_kernel())
		a->exclude_kernel = a->exclude_hv = 1;
	if (first) {
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		/* PERF_RECORD_SWITCH (per task) or SWITCH_CPU_WIDE (-a): the
		 * switch-ins that end off-CPU intervals */
		a->context_switch = o->switch_events;
	}
	/* wake the reader when a quarter of the ring is used: early enough that
	 * a copy keeps up, late enough to amortize the wakeup */
	a->watermark = 1;
	uint64_t ring = (uint64_t)o->mmap_pages * (uint64_t)sysconf(_SC_PAGESIZE);
	a->wakeup_watermark = (uint32_t)(ring / 4 ? ring / 4 : 1);
	switch (o->cg) {
	case RECORD_CG_NONE:
		break;
	case RECORD_CG_FP:
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->sample_max_stack = 127;
		break;
	case RECORD_CG_DWARF:
		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = EVENTS_X86_REGS_MASK;
		a->sample_stack_user = o->dwarf_size ? o->dwarf_size : RECORD_DWARF_SIZE;
		a->exclude_callchain_user = 1;
		a->sample_max_stack = 127;
		/* unwinders read .got/.data of the DSOs: they need the data maps */
		a->mmap_data = first;
		break;
	case RECORD_CG_LBR:
		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK;
		a->sample_max_stack = 127;
		break;
	}
}

static int sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int read_int_file(const char *path, int dflt)
{
	char line[64];
	FILE *fp = fopen(path, "r");
	if (!fp)
		return dflt;
	char *r = fgets(line, sizeof(line), fp);
	fclose(fp);
	return r ? atoi(line) : dflt;
}

static int open_error(struct events_ev *ev, int cpu, pid_t pid, int err, const struct record_opts *o,
		      struct err *e)
{
	switch (err) {
	case EACCES:
	case EPERM: {
		int p = read_int_file("/proc/sys/kernel/perf_event_paranoid", 2);
		return err_set(e, -EACCES,
			       "no permission to open event '%s': kernel.perf_event_paranoid is %d "
			       "(at 2 only user space of your own processes, e.g. -e %s:u; at 1 also "
			       "the kernel; -a needs 0 or less; or CAP_PERFMON)",
			       ev->name, p, ev->name);
	}
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (o->cg == RECORD_CG_LBR)
			return err_set(e, -ENOENT, "event '%s': --call-graph lbr is not supported on this CPU",
				       ev->name);
		return err_set(e, -ENOENT, "event '%s' is not supported on this machine", ev->name);
	case ESRCH:
		return err_set(e, -ESRCH, "no such process or thread %d", (int)pid);
	case EMFILE:
		return err_set(e, -EMFILE, "too many open files opening event '%s' (raise ulimit -n)",
			       ev->name);
	case EINVAL:
		if (ev->attr.freq) {
			int max = read_int_file("/proc/sys/kernel/perf_event_max_sample_rate", 0);
			if (max && ev->attr.sample_freq > (uint64_t)max)
				return err_set(e, -EINVAL,
					       "-F %llu exceeds kernel.perf_event_max_sample_rate (%d)",
					       (unsigned long long)ev->attr.sample_freq, max);
		}
		return err_set(e, -EINVAL, "event '%s': invalid attributes on cpu %d (%s)", ev->name,
			       cpu, strerror(err));
	default:
		return err_set(e, -err, "event '%s' on cpu %d: %s", ev->name, cpu, strerror(err));
	}
}

static int add_id(struct events_ev *ev, uint64_t id)
{
	int rc = ARRAY_GROW(ev->ids, ev->cap_ids, ev->nr_ids + 1, 1 << 20);
	if (rc)
		return rc;
	ev->ids[ev->nr_ids++] = id;
	return 0;
}

int events_open(struct events *evs, const struct record_opts *o, const pid_t *pids,
		size_t nr_pids, const int *cpus, size_t nr_cpus, bool enable_on_exec,
		struct err *e)
{
	memset(evs, 0, sizeof(*evs));
	evs->nr_ev = o->nr_events;
	for (size_t i = 0; i < o->nr_events; i++) {
		build_attr(&evs->ev[i].attr, &o->events[i], o, i == 0, enable_on_exec);
		snprintf(evs->ev[i].name, sizeof(evs->ev[i].name), "%s", o->events[i].name);
	}
	evs->rings = xcalloc(nr_cpus, sizeof(*evs->rings));
	int rc = 0;
	for (size_t c = 0; c < nr_cpus && !rc; c++) {
		int ring_fd = -1;
		for (size_t p = 0; p < nr_pids && !rc; p++) {
			for (size_t i = 0; i < evs->nr_ev && !rc; i++) {
				struct events_ev *ev = &evs->ev[i];
				int fd = sys_perf_event_open(&ev->attr, pids[p], cpus[c]);
				if (fd < 0 && (errno == ENOENT || errno == EOPNOTSUPP || errno == ENODEV) &&
				    ev->attr.type == PERF_TYPE_HARDWARE &&
				    ev->attr.config == PERF_COUNT_HW_CPU_CYCLES && evs->nr_fds == 0) {
					/* no hardware PMU: cycles falls back to cpu-clock, as
					 * perf does (default or asked for) */
					if (o->log && !o->quiet && !o->events[i].is_default)
						o->log(o->log_ctx, "cycles is not supported here, using cpu-clock");
					ev->attr.type = PERF_TYPE_SOFTWARE;
					ev->attr.config = PERF_COUNT_SW_CPU_CLOCK;
					snprintf(ev->name, sizeof(ev->name), "cpu-clock");
					fd = sys_perf_event_open(&ev->attr, pids[p], cpus[c]);
				}
				if (fd < 0) {
					if (errno == ESRCH && o->nr_targets && p > 0)
						continue; /* a thread exited meanwhile */
					rc = open_error(ev, cpus[c], pids[p], errno, o, e);
					break;
				}
				rc = ARRAY_GROW(evs->fds, evs->cap_fds, evs->nr_fds + 1, 1 << 20);
				if (rc) {
					close(fd);
					rc = err_set(e, rc, "out of memory");
					break;
				}
				evs->fds[evs->nr_fds++] = fd;
				uint64_t id = 0;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0) {
					rc = err_set(e, -errno, "PERF_EVENT_IOC_ID: %s", strerror(errno));
					break;
				}
				if ((rc = add_id(ev, id)))
					break;
				if (ring_fd < 0) {
					struct ring *r = &evs->rings[evs->nr_rings];
					rc = ring_map(r, fd, cpus[c], o->mmap_pages);
					if (rc) {
						int mlock = read_int_file("/proc/sys/kernel/perf_event_mlock_kb", 0);
						rc = err_set(e, -EINVAL,
							     "cannot map %u pages per CPU (%s; kernel.perf_event_mlock_kb is %d): use a smaller -m",
							     o->mmap_pages, strerror(-rc), mlock);
						break;
					}
					evs->nr_rings++;
					ring_fd = fd;
				} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fd) < 0) {
					rc = err_set(e, -errno, "PERF_EVENT_IOC_SET_OUTPUT: %s", strerror(errno));
					break;
				}
			}
		}
	}
	if (rc)
		events_close(evs);
	return rc;
}

int events_enable(struct events *evs, bool on)
{
	int rc = 0;
	for (size_t i = 0; i < evs->nr_fds; i++)
		if (ioctl(evs->fds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0) < 0 && !rc)
			rc = -errno;
	return rc;
}

void events_close(struct events *evs)
{
	for (size_t i = 0; i < evs->nr_rings; i++)
		ring_unmap(&evs->rings[i]);
	for (size_t i = 0; i < evs->nr_fds; i++)
		close(evs->fds[i]);
	for (size_t i = 0; i < evs->nr_ev; i++)
		free(evs->ev[i].ids);
	free(evs->fds);
	free(evs->rings);
	memset(evs, 0, sizeof(*evs));
}
