/*
 * fmt.h: numbers as text, without printf, for the lines that are written
 * once per frame or per sample (`scorch script`: tens of millions of
 * addresses on a big recording, where snprintf's format parsing and a
 * digit loop cost more than the rest of the line).
 *
 * Every function writes into p, which must have room for FMT_ROOM bytes
 * whatever it returns (the fast paths store whole 8-byte words past the
 * digits), and returns how many bytes are the text. No NUL is written.
 * The hex words are stored as they are on little-endian machines
 * (x86_64, aarch64); others take a digit loop.
 */
#ifndef SCORCH_FMT_H
#define SCORCH_FMT_H

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define FMT_ROOM 40

/* The 8 nibbles of x as lower-case hex digits, most significant first,
 * in the byte order of memory (little-endian stores). */
static inline uint64_t fmt_hex8(uint32_t x)
{
	uint64_t t = x;
	/* nibble i of x to byte i */
	t = (t | (t << 16)) & 0x0000ffff0000ffffull;
	t = (t | (t << 8)) & 0x00ff00ff00ff00ffull;
	t = (t | (t << 4)) & 0x0f0f0f0f0f0f0f0full;
	/* most significant first */
	t = __builtin_bswap64(t);
	/* '0' + d, and 'a' - '0' - 10 more where d >= 10 */
	uint64_t ten = ((t + 0x0606060606060606ull) >> 4) & 0x0101010101010101ull;
	return t + 0x3030303030303030ull + ten * 0x27;
}

/* The digits v needs in hex (1 for 0). */
static inline int fmt_hex_len(uint64_t v)
{
	return v ? (67 - __builtin_clzll(v)) >> 2 : 1;
}

/* v in lower-case hex, right-aligned to width with spaces ("%*lx",
 * width <= 16, or 0: no padding). Stores up to 16 bytes. */
static inline int fmt_hex(char *p, uint64_t v, int width)
{
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	int k = fmt_hex_len(v), w = width > 16 ? 16 : width;
	if (w < k)
		w = k;
	for (int i = w - 1; i >= 0; i--, v >>= 4)
		p[i] = i >= w - k ? "0123456789abcdef"[v & 15] : ' ';
	return w;
#else
	/* the 16 digits as two words (byte i of a word: bits 8i..8i+7) */
#ifdef __SSE2__
	/* each byte's two nibbles side by side, most significant first, then
	 * '0' + d, and 'a' - '0' - 10 more where d > 9: all 16 at once */
	__m128i x = _mm_cvtsi64_si128((long long)__builtin_bswap64(v));
	__m128i m = _mm_set1_epi8(0x0f);
	__m128i d = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi64(x, 4), m), _mm_and_si128(x, m));
	__m128i gt9 = _mm_cmpgt_epi8(d, _mm_set1_epi8(9));
	d = _mm_add_epi8(d, _mm_add_epi8(_mm_set1_epi8('0'), _mm_and_si128(gt9, _mm_set1_epi8(39))));
	uint64_t hi = (uint64_t)_mm_cvtsi128_si64(d), lo = (uint64_t)_mm_cvtsi128_si64(_mm_srli_si128(d, 8));
#else
	uint64_t hi = fmt_hex8((uint32_t)(v >> 32)), lo = fmt_hex8((uint32_t)v);
#endif
	int k = fmt_hex_len(v);
	if (width > 16)
		width = 16;
	int w = k;
	if (width > k) {
		/* the leading zeros that are padding become spaces */
		int pad = 16 - k;
		uint64_t mhi = pad >= 8 ? ~0ull : (1ull << (pad * 8)) - 1;
		uint64_t mlo = pad <= 8 ? 0 : (1ull << ((pad - 8) * 8)) - 1;
		hi = (hi & ~mhi) | (0x2020202020202020ull & mhi);
		lo = (lo & ~mlo) | (0x2020202020202020ull & mlo);
		w = width;
	}
	/* the last w of the 16 bytes */
	if (w <= 8) {
		lo >>= (8 - w) * 8;
		memcpy(p, &lo, 8);
	} else {
		hi >>= (16 - w) * 8;
		memcpy(p, &hi, 8);
		memcpy(p + (w - 8), &lo, 8);
	}
	return w;
#endif
}

/* v in decimal, right-aligned to width (<= 20) with spaces ("%*lu"), or
 * with zeros when zero is set ("%0*lu"). */
static inline int fmt_dec(char *p, uint64_t v, int width, int zero)
{
	char d[20];
	int n = 0;
	do {
		d[19 - n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (width > 20)
		width = 20;
	int k = 0;
	for (; k < width - n; k++)
		p[k] = zero ? '0' : ' ';
	memcpy(p + k, d + 20 - n, (size_t)n);
	return k + n;
}

/* v in decimal, right-aligned to width (<= 20) with spaces ("%*ld"). */
static inline int fmt_sdec(char *p, int64_t v, int width)
{
	if (v >= 0)
		return fmt_dec(p, (uint64_t)v, width, 0);
	uint64_t m = (uint64_t)0 - (uint64_t)v;
	char d[21];
	int n = fmt_dec(d, m, 0, 0);
	int k = 0;
	for (; k < width - n - 1; k++)
		p[k] = ' ';
	p[k++] = '-';
	memcpy(p + k, d, (size_t)n);
	return k + n;
}

#endif
