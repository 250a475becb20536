/*
 * perfparser_sink.c: records and resolved samples -> perfparser stream
 * events (see perfparser_sink.h; the encoder is perfparser.c).
 *
 * A resolved frame group (one ip: its inline frames then the real function)
 * maps to a chain of locations:
 *
 *   address(ip, file:line of the innermost frame)      <- the sample's frame id
 *     -> function(innermost function, with SymbolDefinition)
 *       -> call site(ip, file:line in the enclosing function)   (inlined only)
 *         -> function(enclosing function, with SymbolDefinition) -> ... -> -1
 *
 * A small direct-mapped cache keyed by (pid, ip, DSO, symbol, group size)
 * skips the chain walk for addresses seen before: the common case.
 *
 * Missing files: the resolver checks them (pipeline_config.file_warn) and
 * reports each before the first sample that has a frame in it is delivered;
 * the sink keeps the reports and writes hotspot's Error event when that
 * frame arrives, at the same place in the stream as hotspot-perfparser. The
 * reports may come from the -j threads, hence the lock.
 */
#include "output/perfparser_sink.h"
#include "output/perfparser_trace.h"
#include "analyze/input.h"
#include "analyze/order.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/hugeheap.h"
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The frame cache's size: 2^16 entries (2.5 MB), fewer for a small file
 * (one per 256 bytes of data, or per eighth of the smallest sample where a
 * sample carries a stack copy; at least 2^10): zeroing 2.5 MB was 8% of
 * the instructions of a 2 MB recording. Only a cache: the stream is the
 * same. */
#define FRAME_CACHE_BITS 16
#define FRAME_CACHE_MIN_BITS 10
#define MAX_SAMPLE_FRAMES 65536
/* Key pid of a location shared by every process that maps the DSO. */
#define SHARED_PID 0xfffffffeu

struct frame_cache_entry {
	uint32_t pid;
	uint32_t n;          /* frames in the group */
	uint64_t ip;
	const void *dso;
	const char *sym;
	int32_t loc1;        /* address location id + 1; 0 = empty slot */
};

struct ppsink {
	struct perfparser *pp;
	const char *arch;
	int err;
	size_t attrs_sent;
	bool features_sent, features_pending, pipe;
	uint64_t progress_next, progress_step, data_off, data_size;
	uint64_t mmap_violations;
	struct frame_cache_entry *fcache;
	size_t fcache_mask;
	struct ptrset elf_checked; /* file name pointers */
	/* the string ids of the DSO name frame_group looked up last (its
	 * next frames are mostly in the same DSO): its base name and path */
	const char *ids_dso;
	int32_t ids_binary, ids_path;
	struct hmap elf_checked_names; /* hash of a checked filename -> 1 */
	struct hmap dso_ids;      /* DSO handle -> small id */
	bool kallsyms_checked;
	int32_t kernel_path_id;
	int32_t *frame_ids;
	size_t frame_ids_cap;
	struct perfparser_cost *costs;
	size_t costs_cap;
	/* the resolver's reports (file_warn), under mu */
	pthread_mutex_t mu;
	struct hmap missing;      /* hash of a missing file's name -> 1 */
	char *kallsyms_path, *kallsyms_why;
};

static bool is_kernel_kind(uint8_t kind)
{
	return kind == FRAME_KERNEL || kind == FRAME_GUEST_KERNEL;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* The resolver's report of a file it cannot find (pipeline_config.file_warn). */
static void file_warn(void *ctx, const struct resolver_warning *w)
{
	struct ppsink *ps = ctx;
	pthread_mutex_lock(&ps->mu);
	if (w->kind == RESOLVER_WARN_NO_ELF && w->file) {
		hmap_put(&ps->missing, hash_bytes(w->file, strlen(w->file)), (void *)1);
	} else if (w->kind == RESOLVER_WARN_KALLSYMS && !ps->kallsyms_path) {
		ps->kallsyms_path = xstrdup(w->file ? w->file : "");
		ps->kallsyms_why = xstrdup(w->msg ? w->msg : "");
	}
	pthread_mutex_unlock(&ps->mu);
}

/* A file name pointer met for the first time: a mapped ELF file that
 * cannot be found (hotspot lists these). */
static void check_elf(struct ppsink *ps, const char *path)
{
	/* by content too: with -j the same name may come from several resolvers */
	uint64_t h = hash_bytes(path, strlen(path));
	if (hmap_get(&ps->elf_checked_names, h))
		return;
	hmap_put(&ps->elf_checked_names, h, (void *)1);
	pthread_mutex_lock(&ps->mu);
	bool missing = hmap_get(&ps->missing, h) != NULL;
	pthread_mutex_unlock(&ps->mu);
	if (!missing)
		return;
	char msg[4200];
	snprintf(msg, sizeof(msg),
		 "Could not find ELF file for %s. This can break stack unwinding and lead to missing symbols.",
		 path);
	perfparser_error(ps->pp, PPERR_MISSING_ELF_FILE, msg);
}

static void check_kallsyms(struct ppsink *ps)
{
	ps->kallsyms_checked = true;
	pthread_mutex_lock(&ps->mu);
	if (ps->kallsyms_path) {
		char msg[4800];
		snprintf(msg, sizeof(msg), "Failed to parse kernel symbol mapping file \"%s\": %s",
			 ps->kallsyms_path, ps->kallsyms_why);
		perfparser_error(ps->pp, PPERR_INVALID_KALLSYMS, msg);
	}
	pthread_mutex_unlock(&ps->mu);
}

/* A small id per DSO identity (for keys shared across processes): by
 * content, not by the resolver's handle, so any -j gives the same ids. */
static int32_t dso_id(struct ppsink *ps, uint64_t ident)
{
	void *v = hmap_get(&ps->dso_ids, ident);
	if (v)
		return (int32_t)(intptr_t)v;
	int32_t id = (int32_t)ps->dso_ids.len + 1;
	hmap_put(&ps->dso_ids, ident, (void *)(intptr_t)id);
	return id;
}

/* The location ids for one frame group g[0..n-1] (inline frames, then the
 * real function), returning the address location's id.
 *
 * Frames in a file-backed DSO are keyed by (DSO, address in the DSO), not by
 * (pid, address): every process mapping the DSO shares the chain, written
 * with the first process's pid and address, as hotspot-perfparser's address
 * cache does (hotspot uses neither). Kernel frames share pid -1. Anonymous
 * and JIT code stays per process. */
static int32_t frame_group(struct ppsink *ps, uint32_t pid, const struct frame *g, uint32_t n)
{
	const struct frame *f0 = &g[0];
	const struct frame *fn = &g[n - 1];
	bool kernel = is_kernel_kind(fn->kind);
	bool shared = !kernel && f0->dso_handle && f0->rel && fn->dso && fn->dso[0] == '/' &&
		      !frame_anon_name(fn->dso);
	uint32_t kpid = kernel ? PERFPARSER_KERNEL_PID : shared ? SHARED_PID : pid;
	uint64_t kip = shared ? f0->rel : f0->ip;
	uint64_t h = hash_u64(kip ^ ((uint64_t)kpid << 40) ^ (uint64_t)(uintptr_t)f0->dso_handle ^
			      ((uint64_t)(uintptr_t)f0->sym << 7) ^ n);
	struct frame_cache_entry *ce = &ps->fcache[h & ps->fcache_mask];
	if (ce->loc1 && ce->ip == kip && ce->pid == kpid && ce->dso == f0->dso_handle &&
	    ce->sym == f0->sym && ce->n == n)
		return ce->loc1 - 1;

	uint32_t lpid = kernel ? PERFPARSER_KERNEL_PID : pid;
	/* an ELF DSO's identity, else (JIT maps) its name's */
	int32_t did = !shared ? 0 : f0->dso_ident ? dso_id(ps, f0->dso_ident) :
			  dso_id(ps, f0->dso ? hash_bytes(f0->dso, strlen(f0->dso)) << 1 : 0);
	int32_t parent = -1;
	int32_t addr_loc = -1;
	for (uint32_t m = n; m-- > 0;) {
		const struct frame *f = &g[m];
		const char *dso = f->dso;
		int32_t name = perfparser_string_stable(ps->pp, f->sym);
		int32_t binary = -1, path = -1;
		if (kernel) {
			if (dso && strcmp(dso, "[kernel.kallsyms]") && strncmp(dso, "[kernel.kallsyms]", 17)) {
				binary = perfparser_string_stable(ps->pp, dso);
				path = binary;
			} else {
				if (ps->kernel_path_id == -2)
					ps->kernel_path_id = perfparser_string(ps->pp, "[kernel.kallsyms]_text");
				path = ps->kernel_path_id;
			}
		} else if (dso) {
			/* a string's id never changes once given (nor is its
			 * definition written again), and DSO names live as long
			 * as the pipeline */
			if (dso != ps->ids_dso) {
				ps->ids_binary = perfparser_string(ps->pp, base_name(dso));
				ps->ids_path = perfparser_string_stable(ps->pp, dso);
				ps->ids_dso = dso;
			}
			binary = ps->ids_binary;
			path = ps->ids_path;
		}
		/* key address: in the DSO when shared, else in the process */
		uint64_t kaddr = shared ? f->rel : f->ip;
		int32_t func = -1;
		if (f->sym || dso) {
			struct perfparser_loc_key k;
			memset(&k, 0, sizeof(k));
			uint64_t start;
			if (f->sym) {
				k.address = kaddr - f->sym_off;
				start = f->ip - f->sym_off;
			} else {
				k.address = shared ? 0 : f->map ? f->map->start : 0;
				start = f->map ? f->map->start : 0;
			}
			k.file = -1;
			k.pid = kpid;
			k.parent = parent;
			k.sym_name = name;
			k.sym_binary = path;
			k.dso_id = did;
			bool isnew;
			func = perfparser_location_intern(ps->pp, &k, start, lpid, &isnew);
			if (isnew)
				perfparser_symbol(ps->pp, func, name, binary, path, kernel);
		}
		struct perfparser_loc_key a;
		memset(&a, 0, sizeof(a));
		a.address = kaddr;
		a.file = perfparser_string_stable(ps->pp, f->file);
		a.pid = kpid;
		a.line = (int32_t)f->line;
		a.column = (int32_t)f->column;
		a.parent = func;
		a.sym_name = a.sym_binary = -2;
		a.dso_id = did;
		bool isnew;
		int32_t id = perfparser_location_intern(ps->pp, &a, f->ip, lpid, &isnew);
		if (m == 0)
			addr_loc = id;
		else
			parent = id; /* the call site in g[m], parent of the inlined g[m-1] */
	}
	ce->loc1 = addr_loc + 1;
	ce->ip = kip;
	ce->pid = kpid;
	ce->dso = f0->dso_handle;
	ce->sym = f0->sym;
	ce->n = n;
	return addr_loc;
}

static void sync_attrs(struct ppsink *ps, struct pipeline *p)
{
	struct perf_evlist *el = input_evlist(pipeline_input(p));
	for (; ps->attrs_sent < el->nr; ps->attrs_sent++) {
		const struct perf_attr *a = &el->attrs[ps->attrs_sent];
		char name[128];
		const char *nm = a->name;
		if (!nm || !*nm) {
			perf_attr_default_name(&a->attr, name, sizeof(name));
			nm = name;
		}
		perfparser_attributes(ps->pp, (int32_t)ps->attrs_sent, a->attr.type, a->attr.config,
				      perfparser_string(ps->pp, nm), a->attr.freq,
				      a->attr.sample_period);
	}
}

/* Pipe input: the header records (attrs, tracing data, features) come first;
 * at the first data record, define the attrs (now named from the tracing
 * data) and the features. */
static void maybe_pipe_features(struct ppsink *ps, struct pipeline *p)
{
	sync_attrs(ps, p);
	if (ps->features_sent || !ps->features_pending)
		return;
	ps->features_sent = true;
	perfparser_features(ps->pp, input_header(pipeline_input(p)), ps->arch);
}

static int sink_begin(void *ctx, struct pipeline *p)
{
	struct ppsink *ps = ctx;
	struct input *in = pipeline_input(p);
	struct perf_header *h = input_header(in);
	ps->pipe = h->pipe;
	if (!ps->fcache) {
		/* an entry per 256 bytes of data, or per 1/8 of the smallest
		 * sample the attrs allow where that is larger (a DWARF
		 * sample carries its stack copy: 8 KB of data is a sample,
		 * not 32 of them) */
		uint64_t per = 256;
		const struct perf_evlist *el = input_evlist(in);
		uint64_t least = UINT64_MAX;
		for (size_t i = 0; i < el->nr; i++) {
			const struct perf_event_attr *a = &el->attrs[i].attr;
			uint64_t b = a->sample_type & PERF_SAMPLE_STACK_USER ? a->sample_stack_user : 0;
			if (b < least)
				least = b;
		}
		if (el->nr && least / 8 > per)
			per = least / 8;
		unsigned bits = FRAME_CACHE_BITS;
		if (!h->pipe && h->data_size)
			for (bits = FRAME_CACHE_MIN_BITS;
			     bits < FRAME_CACHE_BITS && (per << bits) < h->data_size;)
				bits++;
		ps->fcache = hugeheap_zeroed(((size_t)1 << bits) * sizeof(*ps->fcache));
		ps->fcache_mask = ((size_t)1 << bits) - 1;
	}
	if (h->tracing_data && h->tracing_data_size)
		perfparser_trace_formats(ps->pp, h->tracing_data, h->tracing_data_size);
	if (!ps->pipe) {
		sync_attrs(ps, p);
		perfparser_features(ps->pp, h, ps->arch);
		ps->features_sent = true;
		ps->data_off = h->data_offset;
		ps->data_size = h->data_size;
		if (ps->data_size) {
			perfparser_progress(ps->pp, 0);
			ps->progress_step = ps->data_size / 100 ? ps->data_size / 100 : 1;
			ps->progress_next = ps->progress_step;
		}
	}
	return perfparser_error_state(ps->pp);
}

static void progress(struct ppsink *ps, struct pipeline *p)
{
	if (!ps->progress_step)
		return;
	uint64_t pos = pipeline_input_pos(p);
	if (pos <= ps->data_off)
		return;
	pos -= ps->data_off;
	if (pos < ps->progress_next)
		return;
	if (pos > ps->data_size)
		pos = ps->data_size;
	perfparser_progress(ps->pp, (double)pos / (double)ps->data_size);
	while (ps->progress_next <= pos)
		ps->progress_next += ps->progress_step;
}

/* A record this reads more of than its type and time must be named in
 * sink_event_light below (block-parallel runs keep the others without
 * their bytes). */
static int sink_event(void *ctx, struct pipeline *p, const struct perf_event *ev)
{
	struct ppsink *ps = ctx;
	const struct perf_sample *s = &ev->s;
	switch (ev->type) {
	case PERF_RECORD_HEADER_FEATURE:
		ps->features_pending = true;
		break;
	case PERF_RECORD_HEADER_TRACING_DATA: {
		struct perf_header *h = input_header(pipeline_input(p));
		if (h->tracing_data && h->tracing_data_size)
			perfparser_trace_formats(ps->pp, h->tracing_data, h->tracing_data_size);
		break;
	}
	case PERF_RECORD_COMM:
		maybe_pipe_features(ps, p);
		perfparser_command(ps->pp, ev->comm.pid, ev->comm.tid, s->time, s->cpu, ev->comm.comm);
		break;
	case PERF_RECORD_FORK:
		maybe_pipe_features(ps, p);
		perfparser_thread_start(ps->pp, ev->fork.pid, ev->fork.tid, s->time, s->cpu, ev->fork.ppid);
		break;
	case PERF_RECORD_EXIT:
		maybe_pipe_features(ps, p);
		perfparser_thread_end(ps->pp, ev->fork.pid, ev->fork.tid, s->time, s->cpu);
		break;
	case PERF_RECORD_LOST:
		maybe_pipe_features(ps, p);
		perfparser_lost(ps->pp, s->pid, s->tid, s->time, s->cpu);
		break;
	case PERF_RECORD_SWITCH:
		maybe_pipe_features(ps, p);
		perfparser_context_switch(ps->pp, s->pid, s->tid, s->time, s->cpu,
					  ev->misc & PERF_RECORD_MISC_SWITCH_OUT);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		maybe_pipe_features(ps, p);
		const struct order_stats *os = pipeline_order_stats(p);
		if (os && os->mmap_violations > ps->mmap_violations) {
			ps->mmap_violations = os->mmap_violations;
			char msg[256];
			snprintf(msg, sizeof(msg),
				 "Time order violation of MMAP event across buffer flush detected. "
				 "Event time is %llu. This potentially breaks the data analysis.",
				 (unsigned long long)s->time);
			perfparser_error(ps->pp, PPERR_TIME_ORDER_VIOLATION, msg);
		}
		break;
	}
	default:
		break;
	}
	progress(ps, p);
	return perfparser_error_state(ps->pp);
}

/* Block-parallel runs (sink_jobs.event_light, never a pipe): the records whose
 * event() above reads only their type and time (MMAPs: the time of a late
 * one's message) besides the input position and ordering counters. */
static bool sink_event_light(const struct perf_event *ev)
{
	switch (ev->type) {
	case PERF_RECORD_SAMPLE:
	case PERF_RECORD_HEADER_FEATURE:
	case PERF_RECORD_HEADER_TRACING_DATA:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_LOST:
	case PERF_RECORD_SWITCH:
		return false;
	default:
		return true;
	}
}

/* Costs of a sample: the period, or one value per read_format entry. */
static uint32_t sample_costs(struct ppsink *ps, const struct perf_evlist *el,
			     const struct perf_sample *s, int32_t attr_id)
{
	const struct perf_attr *a = s->attr_idx >= 0 && (size_t)s->attr_idx < el->nr ?
					    &el->attrs[s->attr_idx] : NULL;
	if (!a || !s->read || !s->read_nr_u64) {
		ps->costs[0].attr = attr_id;
		ps->costs[0].cost = s->period;
		return 1;
	}
	uint64_t rf = a->attr.read_format;
	const uint64_t *r = s->read;
	uint32_t n = s->read_nr_u64, i = 0, out = 0;
	uint64_t nr = 1;
	bool group = rf & PERF_FORMAT_GROUP;
	if (group) {
		nr = r[i++];
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			i++;
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			i++;
	}
	for (uint64_t k = 0; k < nr && i < n; k++) {
		uint64_t value = r[i++];
		if (!group) {
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
				i++;
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
				i++;
		}
		uint64_t id = 0;
		if (rf & PERF_FORMAT_ID) {
			if (i >= n)
				break;
			id = r[i++];
		}
		if (rf & PERF_FORMAT_LOST)
			i++;
		if (out == ps->costs_cap &&
		    ARRAY_GROW(ps->costs, ps->costs_cap, out + 1, 65536))
			break;
		void *v = hmap_get(&el->by_id, id);
		ps->costs[out].attr = v ? (int32_t)((intptr_t)v - 1) : -1;
		ps->costs[out].cost = value;
		out++;
	}
	if (!out) {
		ps->costs[0].attr = attr_id;
		ps->costs[0].cost = s->period;
		out = 1;
	}
	return out;
}

static int sink_sample(void *ctx, struct pipeline *p, const struct resolved_sample *rs)
{
	struct ppsink *ps = ctx;
	const struct perf_sample *s = &rs->ev->s;
	struct perf_evlist *el = input_evlist(pipeline_input(p));
	maybe_pipe_features(ps, p);
	if (!ps->costs_cap && ARRAY_GROW(ps->costs, ps->costs_cap, 4, 65536))
		return -ENOMEM;

	uint32_t nf = rs->nr_frames;
	if (nf > MAX_SAMPLE_FRAMES)
		nf = MAX_SAMPLE_FRAMES;
	if (nf > ps->frame_ids_cap && ARRAY_GROW(ps->frame_ids, ps->frame_ids_cap, nf, MAX_SAMPLE_FRAMES))
		return -ENOMEM;
	uint32_t nids = 0;
	for (uint32_t i = 0; i < nf;) {
		uint32_t j = i;
		while (j + 1 < nf && rs->frames[j].inlined && rs->frames[j + 1].ip == rs->frames[i].ip)
			j++;
		const struct frame *f = &rs->frames[i];
		if (is_kernel_kind(f->kind)) {
			if (!ps->kallsyms_checked)
				check_kallsyms(ps);
		} else if (f->map || f->dso) {
			const char *path = f->map ? f->map->filename : f->dso;
			if (path && ptrset_put(&ps->elf_checked, path))
				check_elf(ps, path);
		}
		ps->frame_ids[nids++] = frame_group(ps, rs->pid, f, j - i + 1);
		i = j + 1;
	}

	int32_t attr_id = s->attr_idx >= 0 ? s->attr_idx : 0;
	uint32_t nc = sample_costs(ps, el, s, attr_id);
	uint8_t guessed = rs->nr_guessed > 255 ? 255 : (uint8_t)rs->nr_guessed;
	const struct perf_attr *a = s->attr_idx >= 0 && (size_t)s->attr_idx < el->nr ?
					    &el->attrs[s->attr_idx] : NULL;
	bool tp = a && a->attr.type == PERF_TYPE_TRACEPOINT;
	struct buf fields;
	buf_init(&fields, 0);
	if (tp)
		perfparser_trace_fields(ps->pp, a->attr.config, s->raw, s->raw_size, &fields);
	perfparser_sample(ps->pp, tp, s->pid, s->tid, s->time, s->cpu, ps->frame_ids, nids, guessed,
			  ps->costs, nc, fields.data, fields.len);
	buf_release(&fields);
	return perfparser_error_state(ps->pp);
}

static int sink_end(void *ctx, struct pipeline *p, int rc)
{
	struct ppsink *ps = ctx;
	(void)p;
	(void)rc;
	int r = perfparser_flush(ps->pp, true);
	free(ps->fcache);
	free(ps->frame_ids);
	free(ps->costs);
	free(ps->kallsyms_path);
	free(ps->kallsyms_why);
	ptrset_release(&ps->elf_checked);
	hmap_release(&ps->elf_checked_names);
	hmap_release(&ps->dso_ids);
	hmap_release(&ps->missing);
	pthread_mutex_destroy(&ps->mu);
	free(ps);
	return r;
}

void perfparser_sink_init(struct perfparser *pp, const char *arch, struct pipeline_config *c,
			  struct sink *sink)
{
	struct ppsink *ps = xcalloc(1, sizeof(*ps));
	ps->pp = pp;
	ps->arch = arch ? arch : "x86";
	ps->kernel_path_id = -2;
	ptrset_init(&ps->elf_checked);
	hmap_init(&ps->elf_checked_names);
	hmap_init(&ps->dso_ids);
	hmap_init(&ps->missing);
	pthread_mutex_init(&ps->mu, NULL);
	c->file_warn = file_warn;
	c->file_warn_ctx = ps;
	static const struct sink_jobs jobs = { .event_light = sink_event_light };
	*sink = (struct sink){ .ctx = ps, .begin = sink_begin, .event = sink_event,
				.sample = sink_sample, .end = sink_end, .jobs = &jobs };
}
