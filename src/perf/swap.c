/*
 * swap.c: perf.data from an opposite-endian machine (see swap.h). Every
 * u64 and u32 is byte-swapped in place; u32 pairs stored in one u64 slot
 * (TID, CPU) are put back in order after the u64 swap; strings stay as they
 * are; the attr's flags bitfield keeps its bytes and flips the bits of each
 * (a big-endian compiler allocates bitfields from the most significant end).
 */
#include "perf/swap.h"
#include "util/load.h"
#include <byteswap.h>
#include <string.h>



/* Byte-swap the w-byte words (4 or 8) of a[from, to), as far as n reaches. */
static void swap_words(uint8_t *a, size_t n, size_t from, size_t to, size_t w)
{
	for (size_t o = from; o + w <= to && o + w <= n; o += w) {
		if (w == 8) {
			uint64_t v = bswap_64(load_u64(a + o));
			memcpy(a + o, &v, 8);
		} else {
			uint32_t v = bswap_32(load_u32(a + o));
			memcpy(a + o, &v, 4);
		}
	}
}

void perf_attr_swap(uint8_t *a, size_t n)
{
	swap_words(a, n, 0, 8, 4);    /* u32 type, size */
	swap_words(a, n, 8, 40, 8);   /* config, sample_period, sample_type, read_format */
	/* the flags bitfield: a big-endian compiler allocates bits from the most
	 * significant end, so bytes stay in place and the bits of each flip */
	if (n >= 48)
		for (size_t i = 40; i < 48; i++) {
			uint8_t b = a[i], r = 0;
			for (int k = 0; k < 8; k++)
				r |= (uint8_t)(((b >> k) & 1) << (7 - k));
			a[i] = r;
		}
	swap_words(a, n, 48, 56, 4);  /* wakeup_events, bp_type */
	swap_words(a, n, 56, 88, 8);  /* config1, config2, branch_sample_type, sample_regs_user */
	swap_words(a, n, 88, 96, 4);  /* sample_stack_user, clockid */
	swap_words(a, n, 96, 104, 8); /* sample_regs_intr */
}

void perf_u64s_swap(uint64_t *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		w[i] = bswap_64(w[i]);
}

static void swap64s(uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 8 <= n; i += 8) {
		uint64_t v = bswap_64(load_u64(p + i));
		memcpy(p + i, &v, 8);
	}
}

static void swap32s(uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 4 <= n; i += 4) {
		uint32_t v = bswap_32(load_u32(p + i));
		memcpy(p + i, &v, 4);
	}
}

/* A u64 slot that holds two u32s: bswap_64 exchanged them; exchange back. */
static void unpair(uint8_t *p)
{
	uint8_t t[4];
	memcpy(t, p, 4);
	memmove(p, p + 4, 4);
	memcpy(p + 4, t, 4);
}

void perf_record_swap(const struct perf_evlist *el, uint8_t *p)
{
	struct perf_event_header *h = (void *)p;
	h->type = bswap_32(h->type);
	h->misc = bswap_16(h->misc);
	h->size = bswap_16(h->size);
	if (h->size < 8)
		return;
	uint8_t *b = p + 8;
	size_t n = h->size - 8;
	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_KSYMBOL:
	case PERF_RECORD_CGROUP: {
		/* fixed part as u32/u64, string left alone, trailer swapped */
		size_t fixed = h->type == PERF_RECORD_MMAP ? 32 : h->type == PERF_RECORD_MMAP2 ? 64
			     : h->type == PERF_RECORD_COMM ? 8 : h->type == PERF_RECORD_KSYMBOL ? 16 : 8;
		if (fixed > n)
			return;
		if (h->type == PERF_RECORD_CGROUP) {
			swap64s(b, 8);
		} else if (h->type == PERF_RECORD_KSYMBOL) {
			swap64s(b, 8);
			swap32s(b + 8, 4);
			uint16_t *f = (uint16_t *)(b + 12);
			f[0] = bswap_16(f[0]);
			f[1] = bswap_16(f[1]);
		} else {
			swap32s(b, 8);
			if (fixed >= 32)
				swap64s(b + 8, 24);
			if (fixed == 64) {
				swap32s(b + 32, 8);
				swap64s(b + 40, 16);
				swap32s(b + 56, 8);
			}
		}
		break;
	}
	case PERF_RECORD_SAMPLE:
	default:
		/* u64 words; the u32 pairs of TID and CPU are put back */
		swap64s(b, n & ~(size_t)7);
		break;
	}
	int ai = perf_evlist_attr_of(el, p);
	if (ai < 0)
		ai = el->nr ? 0 : -1;
	if (ai < 0 || h->type >= PERF_RECORD_USER_TYPE_START)
		return;
	uint64_t t = el->attrs[ai].attr.sample_type;
	if (h->type == PERF_RECORD_SAMPLE) {
		size_t o = 8 + 8 * (!!(t & PERF_SAMPLE_IDENTIFIER) + !!(t & PERF_SAMPLE_IP));
		if (t & PERF_SAMPLE_TID && o + 8 <= h->size)
			unpair(p + o);
		o += 8 * (!!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ADDR) +
			  !!(t & PERF_SAMPLE_ID) + !!(t & PERF_SAMPLE_STREAM_ID));
		if (t & PERF_SAMPLE_CPU && o + 8 <= h->size)
			unpair(p + o);
		return;
	}
	const struct perf_attr *pa = &el->attrs[ai];
	if (!pa->attr.sample_id_all || pa->trailer_size > n)
		return;
	uint8_t *tr = p + h->size - pa->trailer_size;
	if (h->type == PERF_RECORD_MMAP || h->type == PERF_RECORD_MMAP2 || h->type == PERF_RECORD_COMM ||
	    h->type == PERF_RECORD_KSYMBOL || h->type == PERF_RECORD_CGROUP)
		swap64s(tr, pa->trailer_size);
	if (t & PERF_SAMPLE_TID)
		unpair(tr);
	size_t o = 8 * (!!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ID) +
			!!(t & PERF_SAMPLE_STREAM_ID));
	if (t & PERF_SAMPLE_CPU && o + 8 <= pa->trailer_size)
		unpair(tr + o);
	if (h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT) {
		unpair(b);
		unpair(b + 8);
	}
}
