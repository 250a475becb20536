/*
 * resolver.c: the basic resolver — callchain entries (or the sampled ip) as
 * frames with their DSO from the session's maps, no symbols. The full
 * unwinder and symbolizer replaces this file (see resolver.h).
 */
#include "analyze/resolver.h"
#include "util/buf.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct resolver {
	struct session *s;
	int max_frames;
	struct frame *frames;
	size_t cap;
	struct resolver_stats st;
	const char *kernel_name;
};

struct resolver *resolver_new(const struct pipeline_config *c, struct session *s,
			      const struct perf_header *h)
{
	struct resolver *r = xcalloc(1, sizeof(*r));
	r->s = s;
	r->max_frames = c && c->max_frames > 0 ? c->max_frames : 64;
	r->kernel_name = session_intern(s, "[kernel.kallsyms]");
	(void)h;
	return r;
}

void resolver_set_warn(struct resolver *r, resolver_warn_fn fn, void *ctx)
{
	(void)r;
	(void)fn;
	(void)ctx;
}

void resolver_free(struct resolver *r)
{
	if (!r)
		return;
	free(r->frames);
	free(r);
}

const struct resolver_stats *resolver_stats(const struct resolver *r)
{
	return &r->st;
}

static uint8_t kind_of_cpumode(uint16_t cm)
{
	switch (cm) {
	case PERF_RECORD_MISC_KERNEL: return FRAME_KERNEL;
	case PERF_RECORD_MISC_HYPERVISOR: return FRAME_HV;
	case PERF_RECORD_MISC_GUEST_KERNEL: return FRAME_GUEST_KERNEL;
	case PERF_RECORD_MISC_GUEST_USER: return FRAME_GUEST_USER;
	default: return FRAME_USER;
	}
}

void resolver_symbolize(struct resolver *r, uint32_t pid, uint64_t ip, uint8_t kind, struct frame *f)
{
	memset(f, 0, sizeof(*f));
	f->ip = ip;
	f->kind = kind;
	bool kern = kind == FRAME_KERNEL || kind == FRAME_GUEST_KERNEL || kind == FRAME_HV;
	const struct map *m = session_find_map(r->s, kern ? SESSION_KERNEL_PID : pid, ip);
	f->map = m;
	if (m) {
		f->dso = m->filename;
		if (kern && !strncmp(m->filename, "[kernel.kallsyms]", 17))
			f->dso = r->kernel_name;
		f->dso_handle = m->filename;
		f->rel = ip - m->start + m->pgoff;
	}
}

static int push(struct resolver *r, struct resolved_sample *out, uint32_t pid, uint64_t ip, uint8_t kind)
{
	if (out->nr_frames >= (uint32_t)r->max_frames) {
		r->st.truncated++;
		return 1;
	}
	if (ARRAY_GROW(r->frames, r->cap, out->nr_frames + 1, 1u << 20))
		return -ENOMEM;
	out->frames = r->frames;
	resolver_symbolize(r, pid, ip, kind, &r->frames[out->nr_frames++]);
	return 0;
}

int resolver_resolve(struct resolver *r, const struct perf_event *ev,
		     const struct perf_attr *attr, struct resolved_sample *out)
{
	const struct perf_sample *s = &ev->s;
	memset(out, 0, sizeof(*out));
	out->ev = ev;
	out->attr = attr;
	out->pid = s->pid;
	out->tid = s->tid;
	out->comm = session_comm(r->s, s->tid, s->time);
	out->frames = r->frames;
	r->st.samples++;
	uint8_t kind = kind_of_cpumode(s->misc & PERF_RECORD_MISC_CPUMODE_MASK);
	if (s->callchain_nr) {
		r->st.fp_samples++;
		for (uint64_t i = 0; i < s->callchain_nr; i++) {
			uint64_t ip = s->callchain[i];
			if (ip >= PERF_CONTEXT_MAX) {
				switch (ip) {
				case PERF_CONTEXT_HV: kind = FRAME_HV; break;
				case PERF_CONTEXT_KERNEL: kind = FRAME_KERNEL; break;
				case PERF_CONTEXT_USER: kind = FRAME_USER; break;
				case PERF_CONTEXT_GUEST_KERNEL: kind = FRAME_GUEST_KERNEL; break;
				case PERF_CONTEXT_GUEST_USER: kind = FRAME_GUEST_USER; break;
				default: break;
				}
				continue;
			}
			int rc = push(r, out, s->pid, ip, kind);
			if (rc < 0)
				return rc;
			if (rc)
				break;
		}
	} else {
		int rc = push(r, out, s->pid, s->ip, kind);
		if (rc < 0)
			return rc;
	}
	r->st.frames += out->nr_frames;
	return 0;
}
