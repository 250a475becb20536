/*
 * decode.c: record and sample decoding, bounds-checked, in place.
 *
 * A sample's layout is fixed by its attr's sample_type, in this order:
 *   IDENTIFIER IP TID(pid,tid u32) TIME ADDR ID STREAM_ID CPU(cpu,res u32)
 *   PERIOD READ CALLCHAIN(nr, ips[nr]) RAW(u32 size, bytes) BRANCH_STACK(nr,
 *   [hw_idx], {from,to,flags}[nr]) REGS_USER(abi, regs[popcount]) STACK_USER
 *   (size, bytes[size], dyn_size if size) WEIGHT|WEIGHT_STRUCT DATA_SRC
 *   TRANSACTION REGS_INTR PHYS_ADDR CGROUP DATA_PAGE_SIZE CODE_PAGE_SIZE
 *   AUX(size, bytes)
 * Non-sample records end with the sample_id_all trailer: TID TIME ID
 * STREAM_ID CPU IDENTIFIER (those of the attr's sample_type that are set).
 * Every count is checked against the bytes left before it is used.
 */
#include "perf/event.h"
#include "util/load.h"
#include <errno.h>
#include <string.h>

struct cur {
	const uint8_t *p, *end, *base;
	uint64_t off;
};



#define NEED(c, n, what)                                                               \
	do {                                                                           \
		if ((uint64_t)((c)->end - (c)->p) < (uint64_t)(n))                    \
			return err_at(e, (c)->off + (uint64_t)((c)->p - (c)->base),     \
				      "%s: needs %llu bytes, record has %llu left", what, \
				      (unsigned long long)(n),                          \
				      (unsigned long long)((c)->end - (c)->p));         \
	} while (0)

static int get64(struct cur *c, uint64_t *v, const char *what, struct err *e)
{
	NEED(c, 8, what);
	*v = load_u64(c->p);
	c->p += 8;
	return 0;
}

int perf_evlist_attr_of(const struct perf_evlist *el, const uint8_t *p)
{
	if (el->nr == 1)
		return 0;
	if (el->nr == 0)
		return -1;
	const struct perf_event_header *h = (const void *)p;
	uint64_t id;
	if (h->type == PERF_RECORD_SAMPLE) {
		if (el->id_pos < 0 || 8 + 8 * (uint64_t)el->id_pos + 8 > h->size)
			return -1;
		id = load_u64(p + 8 + 8 * el->id_pos);
	} else {
		if (h->type >= PERF_RECORD_USER_TYPE_START || !el->sample_id_all || el->is_pos < 0 ||
		    8 * (uint64_t)el->is_pos + 8 > h->size)
			return -1;
		id = load_u64(p + h->size - 8 * el->is_pos);
	}
	uintptr_t v = (uintptr_t)hmap_get(&el->by_id, id);
	return v ? (int)(v - 1) : -1;
}

bool perf_record_time(const struct perf_evlist *el, const uint8_t *p, uint64_t *time)
{
	const struct perf_event_header *h = (const void *)p;
	if (h->type >= PERF_RECORD_USER_TYPE_START)
		return false;
	int ai = perf_evlist_attr_of(el, p);
	if (ai < 0) {
		if (!el->nr)
			return false;
		ai = 0;
	}
	const struct perf_attr *pa = &el->attrs[ai];
	if (!(pa->attr.sample_type & PERF_SAMPLE_TIME))
		return false;
	if (h->type == PERF_RECORD_SAMPLE) {
		uint64_t o = 8 + 8 * (uint64_t)pa->time_pos;
		if (o + 8 > h->size)
			return false;
		*time = load_u64(p + o);
		return true;
	}
	if (!pa->attr.sample_id_all || pa->trailer_size + 8 > h->size)
		return false;
	uint64_t o = h->size - pa->trailer_size + 8 * !!(pa->attr.sample_type & PERF_SAMPLE_TID);
	*time = load_u64(p + o);
	return true;
}

static int decode_read(struct cur *c, const struct perf_attr *pa, struct perf_sample *s, struct err *e)
{
	uint64_t rf = pa->attr.read_format;
	uint64_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	uint64_t hdr = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	uint64_t n;
	s->read = (const uint64_t *)c->p;
	if (rf & PERF_FORMAT_GROUP) {
		uint64_t nr = 0;
		if (get64(c, &nr, "read_format group nr", e))
			return -EINVAL;
		if (nr > ((uint64_t)(c->end - c->p) / 8))
			return err_at(e, c->off + (c->p - c->base), "read_format group nr %llu too large",
				      (unsigned long long)nr);
		n = hdr + nr * per;
		NEED(c, n * 8, "read_format group values");
		n += 1;
	} else {
		n = hdr + per;
		NEED(c, n * 8, "read_format values");
	}
	s->read_nr_u64 = (uint32_t)n;
	c->p = (const uint8_t *)s->read + n * 8;
	return 0;
}

static int decode_sample(const struct perf_attr *pa, struct cur *c, struct perf_sample *s, struct err *e)
{
	uint64_t t = pa->attr.sample_type;
	if (t & PERF_SAMPLE_IDENTIFIER && get64(c, &s->id, "sample identifier", e))
		return -EINVAL;
	if (t & PERF_SAMPLE_IP && get64(c, &s->ip, "sample ip", e))
		return -EINVAL;
	if (t & PERF_SAMPLE_TID) {
		NEED(c, 8, "sample pid/tid");
		s->pid = load_u32(c->p);
		s->tid = load_u32(c->p + 4);
		s->has_tid = true;
		c->p += 8;
	}
	if (t & PERF_SAMPLE_TIME) {
		if (get64(c, &s->time, "sample time", e))
			return -EINVAL;
		s->has_time = true;
	}
	if (t & PERF_SAMPLE_ADDR && get64(c, &s->addr, "sample addr", e))
		return -EINVAL;
	if (t & PERF_SAMPLE_ID && get64(c, &s->id, "sample id", e))
		return -EINVAL;
	if (t & PERF_SAMPLE_STREAM_ID && get64(c, &s->stream_id, "sample stream_id", e))
		return -EINVAL;
	if (t & PERF_SAMPLE_CPU) {
		NEED(c, 8, "sample cpu");
		s->cpu = load_u32(c->p);
		s->has_cpu = true;
		c->p += 8;
	}
	if (t & PERF_SAMPLE_PERIOD) {
		if (get64(c, &s->period, "sample period", e))
			return -EINVAL;
	} else if (!pa->attr.freq) {
		s->period = pa->attr.sample_period; /* fixed period (-c) */
	}
	if (t & PERF_SAMPLE_READ && decode_read(c, pa, s, e))
		return -EINVAL;
	if (t & PERF_SAMPLE_CALLCHAIN) {
		if (get64(c, &s->callchain_nr, "callchain nr", e))
			return -EINVAL;
		if (s->callchain_nr > (uint64_t)(c->end - c->p) / 8)
			return err_at(e, c->off + (c->p - c->base) - 8,
				      "callchain nr %llu exceeds the record",
				      (unsigned long long)s->callchain_nr);
		s->callchain = (const uint64_t *)c->p;
		c->p += s->callchain_nr * 8;
	}
	if (t & PERF_SAMPLE_RAW) {
		NEED(c, 4, "raw size");
		s->raw_size = load_u32(c->p);
		c->p += 4;
		NEED(c, s->raw_size, "raw data");
		s->raw = c->p;
		c->p += s->raw_size;
		/* u32 size + data is padded to 8 bytes */
		size_t used = (size_t)(c->p - c->base) & 7;
		if (used) {
			size_t pad = 8 - used;
			if ((size_t)(c->end - c->p) < pad)
				c->p = c->end;
			else
				c->p += pad;
		}
	}
	s->branch_hw_idx = UINT64_MAX;
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		if (get64(c, &s->branch_nr, "branch stack nr", e))
			return -EINVAL;
		if (pa->attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX &&
		    get64(c, &s->branch_hw_idx, "branch hw_idx", e))
			return -EINVAL;
		if (s->branch_nr > (uint64_t)(c->end - c->p) / 24)
			return err_at(e, c->off + (c->p - c->base), "branch stack nr %llu exceeds the record",
				      (unsigned long long)s->branch_nr);
		s->branch = (const struct perf_branch_entry_raw *)c->p;
		c->p += s->branch_nr * 24;
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		if (get64(c, &s->regs_user_abi, "regs_user abi", e))
			return -EINVAL;
		if (s->regs_user_abi) {
			s->regs_user_nr = pa->regs_user_nr;
			NEED(c, 8ull * s->regs_user_nr, "regs_user");
			s->regs_user = (const uint64_t *)c->p;
			c->p += 8ull * s->regs_user_nr;
		}
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		if (get64(c, &s->stack_user_size, "stack_user size", e))
			return -EINVAL;
		if (s->stack_user_size) {
			NEED(c, s->stack_user_size, "stack_user data");
			s->stack_user = c->p;
			c->p += s->stack_user_size;
			if (get64(c, &s->stack_user_dyn_size, "stack_user dyn_size", e))
				return -EINVAL;
			if (s->stack_user_dyn_size > s->stack_user_size)
				s->stack_user_dyn_size = s->stack_user_size;
		}
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT) && get64(c, &s->weight, "weight", e))
		return -EINVAL;
	if (t & PERF_SAMPLE_DATA_SRC && get64(c, &s->data_src, "data_src", e))
		return -EINVAL;
	if (t & PERF_SAMPLE_TRANSACTION && get64(c, &s->transaction, "transaction", e))
		return -EINVAL;
	if (t & PERF_SAMPLE_REGS_INTR) {
		if (get64(c, &s->regs_intr_abi, "regs_intr abi", e))
			return -EINVAL;
		if (s->regs_intr_abi) {
			s->regs_intr_nr = pa->regs_intr_nr;
			NEED(c, 8ull * s->regs_intr_nr, "regs_intr");
			s->regs_intr = (const uint64_t *)c->p;
			c->p += 8ull * s->regs_intr_nr;
		}
	}
	if (t & PERF_SAMPLE_PHYS_ADDR && get64(c, &s->phys_addr, "phys_addr", e))
		return -EINVAL;
	if (t & PERF_SAMPLE_CGROUP && get64(c, &s->cgroup, "cgroup", e))
		return -EINVAL;
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE && get64(c, &s->data_page_size, "data_page_size", e))
		return -EINVAL;
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE && get64(c, &s->code_page_size, "code_page_size", e))
		return -EINVAL;
	if (t & PERF_SAMPLE_AUX) {
		if (get64(c, &s->aux_size, "aux size", e))
			return -EINVAL;
		NEED(c, s->aux_size, "aux data");
		s->aux = c->p;
		c->p += s->aux_size;
	}
	return 0;
}

static int decode_trailer(const struct perf_attr *pa, struct cur *c, struct perf_sample *s, struct err *e)
{
	uint64_t t = pa->attr.sample_type;
	if (t & PERF_SAMPLE_TID) {
		NEED(c, 8, "trailer pid/tid");
		s->pid = load_u32(c->p);
		s->tid = load_u32(c->p + 4);
		s->has_tid = true;
		c->p += 8;
	}
	if (t & PERF_SAMPLE_TIME) {
		if (get64(c, &s->time, "trailer time", e))
			return -EINVAL;
		s->has_time = true;
	}
	if (t & PERF_SAMPLE_ID && get64(c, &s->id, "trailer id", e))
		return -EINVAL;
	if (t & PERF_SAMPLE_STREAM_ID && get64(c, &s->stream_id, "trailer stream_id", e))
		return -EINVAL;
	if (t & PERF_SAMPLE_CPU) {
		NEED(c, 8, "trailer cpu");
		s->cpu = load_u32(c->p);
		s->has_cpu = true;
		c->p += 8;
	}
	if (t & PERF_SAMPLE_IDENTIFIER && get64(c, &s->id, "trailer identifier", e))
		return -EINVAL;
	return 0;
}

/* A NUL-terminated string starting at c->p within the body. */
static int get_str(struct cur *c, const char **out, const char *what, struct err *e)
{
	const uint8_t *z = memchr(c->p, 0, (size_t)(c->end - c->p));
	if (!z)
		return err_at(e, c->off + (c->p - c->base), "%s is not NUL-terminated within the record", what);
	*out = (const char *)c->p;
	c->p = z + 1;
	return 0;
}

size_t perf_sample_without_stack(const uint8_t *rec, const struct perf_event *ev, uint8_t *dst)
{
	uint16_t size;
	memcpy(&size, rec + 6, 2);
	const uint8_t *stk = ev->type == PERF_RECORD_SAMPLE ? ev->s.stack_user : NULL;
	if (!stk || stk < rec + 8 + 8 || stk + ev->s.stack_user_size + 8 > rec + size)
		return 0;
	size_t head = (size_t)(stk - 8 - rec);
	size_t tail = (size_t)(rec + size - (stk + ev->s.stack_user_size + 8));
	uint64_t zero = 0;
	uint16_t nsize = (uint16_t)(head + 8 + tail);
	if (!dst)
		return nsize;
	memcpy(dst, rec, head);
	memcpy(dst + head, &zero, 8);
	if (tail)
		memcpy(dst + head + 8, stk + ev->s.stack_user_size + 8, tail);
	memcpy(dst + 6, &nsize, 2);
	return nsize;
}

void perf_event_light(struct perf_event *ev, uint32_t type, uint16_t misc, uint64_t file_off, uint64_t time)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->misc = misc;
	ev->file_off = file_off;
	ev->s.attr_idx = -1;
	ev->s.time = time;
}

int perf_event_decode(const struct perf_evlist *el, const uint8_t *p, uint64_t file_off,
		      struct perf_event *ev, struct err *e)
{
	const struct perf_event_header *h = (const void *)p;
	memset(ev, 0, sizeof(*ev));
	ev->type = h->type;
	ev->misc = h->misc;
	ev->size = h->size;
	ev->data = p;
	ev->file_off = file_off;
	ev->s.misc = h->misc;
	ev->s.attr_idx = -1;
	struct cur c = { .p = p + 8, .end = p + h->size, .base = p, .off = file_off };

	if (h->type >= PERF_RECORD_USER_TYPE_START) {
		switch (h->type) {
		case PERF_RECORD_AUXTRACE:
			NEED(&c, 40, "AUXTRACE fields");
			ev->auxtrace.size = load_u64(c.p);
			ev->auxtrace.offset = load_u64(c.p + 8);
			ev->auxtrace.reference = load_u64(c.p + 16);
			ev->auxtrace.idx = load_u32(c.p + 24);
			ev->auxtrace.tid = load_u32(c.p + 28);
			ev->auxtrace.cpu = load_u32(c.p + 32);
			break;
		case PERF_RECORD_HEADER_TRACING_DATA:
			NEED(&c, 4, "TRACING_DATA size");
			ev->tracing_data.size = load_u32(c.p);
			break;
		case PERF_RECORD_TIME_CONV:
			NEED(&c, 24, "TIME_CONV fields");
			ev->time_conv.time_shift = load_u64(c.p);
			ev->time_conv.time_mult = load_u64(c.p + 8);
			ev->time_conv.time_zero = load_u64(c.p + 16);
			break;
		case PERF_RECORD_COMPRESSED:
			ev->compressed.data = c.p;
			ev->compressed.size = (size_t)(c.end - c.p);
			break;
		default:
			break;
		}
		return 0;
	}

	int ai = perf_evlist_attr_of(el, p);
	if (h->type == PERF_RECORD_SAMPLE) {
		if (ai < 0)
			return err_at(e, file_off, "sample with an id that matches no attr");
		ev->s.attr_idx = ai;
		return decode_sample(&el->attrs[ai], &c, &ev->s, e);
	}
	if (ai < 0 && el->nr)
		ai = 0;
	ev->s.attr_idx = ai;
	if (ai >= 0 && el->attrs[ai].attr.sample_id_all) {
		const struct perf_attr *pa = &el->attrs[ai];
		if (pa->trailer_size > (uint64_t)(c.end - c.p))
			return err_at(e, file_off, "%s record of %u bytes is too small for its sample_id trailer",
				      perf_record_name(h->type), h->size);
		struct cur t = { .p = c.end - pa->trailer_size, .end = c.end, .base = p, .off = file_off };
		if (decode_trailer(pa, &t, &ev->s, e))
			return -EINVAL;
		c.end -= pa->trailer_size;
	}

	switch (h->type) {
	case PERF_RECORD_MMAP:
		NEED(&c, 32, "MMAP fields");
		ev->mmap.pid = load_u32(c.p);
		ev->mmap.tid = load_u32(c.p + 4);
		ev->mmap.start = load_u64(c.p + 8);
		ev->mmap.len = load_u64(c.p + 16);
		ev->mmap.pgoff = load_u64(c.p + 24);
		ev->mmap.prot = 4; /* PROT_EXEC: MMAP records are executable maps */
		c.p += 32;
		return get_str(&c, &ev->mmap.filename, "MMAP filename", e);
	case PERF_RECORD_MMAP2:
		NEED(&c, 64, "MMAP2 fields");
		ev->mmap.pid = load_u32(c.p);
		ev->mmap.tid = load_u32(c.p + 4);
		ev->mmap.start = load_u64(c.p + 8);
		ev->mmap.len = load_u64(c.p + 16);
		ev->mmap.pgoff = load_u64(c.p + 24);
		if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			uint8_t n = c.p[32];
			ev->mmap.build_id_size = n > 20 ? 20 : n;
			memcpy(ev->mmap.build_id, c.p + 36, 20);
		} else {
			ev->mmap.maj = load_u32(c.p + 32);
			ev->mmap.min = load_u32(c.p + 36);
			ev->mmap.ino = load_u64(c.p + 40);
			ev->mmap.ino_generation = load_u64(c.p + 48);
		}
		ev->mmap.prot = load_u32(c.p + 56);
		ev->mmap.flags = load_u32(c.p + 60);
		c.p += 64;
		return get_str(&c, &ev->mmap.filename, "MMAP2 filename", e);
	case PERF_RECORD_COMM:
		NEED(&c, 8, "COMM fields");
		ev->comm.pid = load_u32(c.p);
		ev->comm.tid = load_u32(c.p + 4);
		ev->comm.exec = !!(h->misc & PERF_RECORD_MISC_COMM_EXEC);
		c.p += 8;
		return get_str(&c, &ev->comm.comm, "COMM name", e);
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		NEED(&c, 24, "FORK/EXIT fields");
		ev->fork.pid = load_u32(c.p);
		ev->fork.ppid = load_u32(c.p + 4);
		ev->fork.tid = load_u32(c.p + 8);
		ev->fork.ptid = load_u32(c.p + 12);
		ev->fork.time = load_u64(c.p + 16);
		return 0;
	case PERF_RECORD_LOST:
		NEED(&c, 16, "LOST fields");
		ev->lost.id = load_u64(c.p);
		ev->lost.lost = load_u64(c.p + 8);
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		NEED(&c, 8, "LOST_SAMPLES fields");
		ev->lost_samples.lost = load_u64(c.p);
		return 0;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		NEED(&c, 24, "THROTTLE fields");
		ev->throttle.time = load_u64(c.p);
		ev->throttle.id = load_u64(c.p + 8);
		ev->throttle.stream_id = load_u64(c.p + 16);
		return 0;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		NEED(&c, 8, "SWITCH_CPU_WIDE fields");
		ev->cs.next_prev_pid = load_u32(c.p);
		ev->cs.next_prev_tid = load_u32(c.p + 4);
		/* fallthrough */
	case PERF_RECORD_SWITCH:
		ev->cs.out = !!(h->misc & PERF_RECORD_MISC_SWITCH_OUT);
		ev->cs.preempt = !!(h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
		return 0;
	case PERF_RECORD_KSYMBOL:
		NEED(&c, 16, "KSYMBOL fields");
		ev->ksymbol.addr = load_u64(c.p);
		ev->ksymbol.len = load_u32(c.p + 8);
		ev->ksymbol.ksym_type = (uint16_t)load_u32(c.p + 12);
		ev->ksymbol.flags = (uint16_t)(load_u32(c.p + 12) >> 16);
		c.p += 16;
		return get_str(&c, &ev->ksymbol.name, "KSYMBOL name", e);
	case PERF_RECORD_CGROUP:
		NEED(&c, 8, "CGROUP fields");
		ev->cgroup.id = load_u64(c.p);
		c.p += 8;
		return get_str(&c, &ev->cgroup.path, "CGROUP path", e);
	case PERF_RECORD_AUX:
		NEED(&c, 24, "AUX fields");
		ev->aux.aux_offset = load_u64(c.p);
		ev->aux.aux_size = load_u64(c.p + 8);
		ev->aux.flags = load_u64(c.p + 16);
		return 0;
	default:
		/* READ, NAMESPACES, BPF_EVENT, TEXT_POKE, ITRACE_START,
		 * AUX_OUTPUT_HW_ID and unknown types: skipped by size. */
		return 0;
	}
}
