/*
 * fuzz_dwdie.c: libFuzzer harness for the CU reader of dwdie.c (a binary's
 * or debug file's .debug_info, .debug_abbrev and range lists are untrusted
 * input). Byte 0 picks whether types are walked; bytes 1-2 and 3-4 give the
 * lengths of the .debug_abbrev part and of the range-list part (used as
 * .debug_ranges and .debug_rnglists both); the rest is .debug_info. Every
 * unit in it is walked for its functions, and from each function reported
 * the inline walk runs at its first, middle and last addresses. What is
 * reported must be inside the unit. Bit 1 of byte 0: the rest is
 * .debug_aranges instead (both byte orders), whose set headers must come
 * back sorted, at most one per 10 bytes; the table made of it must be
 * taken back as kept (dwdie_aranges_kept), and the same bytes read as a
 * kept table must be refused or give CUs inside .debug_info, in order.
 */
#include "analyze/dwarf/dwdie.h"
#include <dwarf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct unit_ctx {
	uint64_t lo, hi;
	uint64_t fn[64], flo[64], fhi[64];
	int nfn;
};

static void check(const struct unit_ctx *u, uint64_t die_off)
{
	if (die_off < u->lo || die_off >= u->hi)
		abort();
}

static void on_range(void *ctx, uint64_t die_off, uint64_t lo, uint64_t hi)
{
	struct unit_ctx *u = ctx;
	check(u, die_off);
	if (u->nfn < 64) {
		u->fn[u->nfn] = die_off;
		u->flo[u->nfn] = lo;
		u->fhi[u->nfn++] = hi;
	}
}

static void on_ask(void *ctx, uint64_t die_off)
{
	check(ctx, die_off);
}

static int on_haspc(void *ctx, uint64_t die_off, uint64_t pc)
{
	check(ctx, die_off);
	return (int)(pc & 1); /* libdw's answer, made up */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 5)
		return 0;
	if (data[0] & 2) {
		for (int big = 0; big < 2; big++) {
			uint64_t *cus;
			size_t n = dwdie_aranges_cus(data + 1, size - 1, big, &cus);
			if (n > (size - 1) / 10 || (n && !cus))
				abort();
			for (size_t i = 1; i < n; i++)
				if (cus[i - 1] > cus[i])
					abort();
			free(cus);
		}
		/* the sets as address ranges, their CUs in .debug_info taken
		 * from the same bytes: every range's CU inside it, sorted, and
		 * every lookup lands on one of them */
		struct dwdie_sections s = { .info = data + 1, .info_size = size - 1 };
		struct dwdie_arange *ar;
		size_t n;
		if (dwdie_aranges(&s, data + 1, size - 1, &ar, &n)) {
			for (size_t i = 0; i < n; i++) {
				if (ar[i].cu >= size - 1 || ar[i].cu_die <= ar[i].cu ||
				    ar[i].cu_die >= size - 1 || (i && ar[i].lo < ar[i - 1].lo))
					abort();
				uint64_t at[3] = { ar[i].lo, ar[i].lo + ar[i].len / 2, ar[i].lo - 1 };
				for (int k = 0; k < 3; k++) {
					const struct dwdie_arange *h = dwdie_arange_find(ar, n, at[k]);
					if (h && (h < ar || h >= ar + n))
						abort();
				}
			}
			const struct dwdie_arange *back;
			size_t nb;
			if (n && (!dwdie_aranges_kept(&s, ar, n * sizeof *ar, &back, &nb) || back != ar ||
				  nb != n))
				abort();
			free(ar);
		}
		/* the bytes as a kept table (aligned, as an image entry is) */
		size_t kb = size - 1;
		struct dwdie_arange *kv = malloc(kb ? kb : 1);
		if (kv) {
			memcpy(kv, data + 1, kb);
			const struct dwdie_arange *got;
			size_t ng;
			if (dwdie_aranges_kept(&s, kv, kb, &got, &ng)) {
				for (size_t i = 0; i < ng; i++) {
					if (got[i].cu >= kb || got[i].cu_die >= kb ||
					    (i && got[i].lo < got[i - 1].lo))
						abort();
					const struct dwdie_arange *h = dwdie_arange_find(got, ng, got[i].lo);
					if (!h || h < got || h >= got + ng)
						abort();
				}
			}
			free(kv);
		}
		return 0;
	}
	bool types = data[0] & 1;
	size_t alen = (size_t)data[1] | (size_t)data[2] << 8;
	size_t rlen = (size_t)data[3] | (size_t)data[4] << 8;
	if (alen > size - 5 || rlen > size - 5 - alen)
		return 0;
	const uint8_t *ab = data + 5, *rl = ab + alen, *info = rl + rlen;
	struct dwdie_sections s = {
		.info = info, .info_size = size - 5 - alen - rlen,
		.abbrev = ab, .abbrev_size = alen,
		.ranges = rlen ? rl : NULL, .ranges_size = rlen,
		.rnglists = rlen ? rl : NULL, .rnglists_size = rlen,
		/* strings: the range bytes serve (any offset must stay inside) */
		.str = rlen ? rl : NULL, .str_size = rlen,
		.line_str = rlen ? rl : NULL, .line_str_size = rlen,
	};
	uint64_t off = 0;
	for (int k = 0; k < 64 && off + 4 <= s.info_size; k++) {
		uint32_t len;
		memcpy(&len, s.info + off, 4);
		if (len >= 0xfffffff0 || len > s.info_size - off - 4)
			break;
		struct unit_ctx u = { .lo = off, .hi = off + 4 + len };
		struct dwdie_visitor v = { on_range, on_ask, on_haspc, &u };
		struct dwdie_cu *c = dwdie_cu_open(&s, off, types);
		if (c) {
			uint64_t x;
			const char *str;
			dwdie_cu_udata(c, DW_AT_language, &x);
			if (dwdie_cu_string(c, DW_AT_comp_dir, &str) > 0 &&
			    ((const uint8_t *)str < data || (const uint8_t *)str + strlen(str) >= data + size))
				abort();
			dwdie_cu_set_types(c, !types);
			dwdie_cu_set_types(c, types);
		}
		if (c && dwdie_functions(c, &v)) {
			for (int i = 0; i < u.nfn; i++) {
				uint64_t pcs[3] = { u.flo[i], u.flo[i] + (u.fhi[i] - u.flo[i]) / 2,
						    u.fhi[i] - 1 };
				for (int j = 0; j < 3; j++) {
					uint64_t path[16];
					int n = dwdie_inlines(c, u.fn[i], pcs[j], path, 16, &v);
					if (n > 16)
						abort();
					for (int m = 0; m < n; m++) {
						check(&u, path[m]);
						/* a name is a string inside the input */
						struct dwdie_info x;
						if (dwdie_info(c, path[m], &x) && x.name &&
						    ((const uint8_t *)x.name < data ||
						     (const uint8_t *)x.name + strlen(x.name) >= data + size))
							abort();
					}
				}
			}
		}
		dwdie_cu_free(c);
		off += 4 + (uint64_t)len;
	}
	return 0;
}
