/* parse.c: option values (see parse.h). */
#include "util/parse.h"
#include <errno.h>
#include <string.h>

static size_t len_of(const char *s, size_t len)
{
	return len == PARSE_NUL ? strlen(s) : len;
}

static int digit(char c, unsigned base)
{
	int d = c >= '0' && c <= '9' ? c - '0'
		: c >= 'a' && c <= 'f' ? c - 'a' + 10
		: c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
	return d < (int)base ? d : -1;
}

/* s[0..len) with the blanks around it dropped (PARSE_BLANKS) */
static void trim(const char **s, size_t *len, unsigned flags)
{
	if (!(flags & PARSE_BLANKS))
		return;
	while (*len && (**s == ' ' || **s == '\t'))
		(*s)++, (*len)--;
	while (*len && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t'))
		(*len)--;
}

/* digits only (no sign, no blanks), in the base the prefix says */
static int magnitude(const char *s, size_t len, unsigned flags, uint64_t max, uint64_t *v)
{
	unsigned base = 10;
	if ((flags & PARSE_C) && len > 1 && s[0] == '0') {
		if (s[1] == 'x' || s[1] == 'X')
			base = 16, s += 2, len -= 2;
		else
			base = 8, s++, len--;
	}
	if (!len)
		return -EINVAL;
	uint64_t x = 0;
	int over = 0;
	for (size_t i = 0; i < len; i++) {
		int d = digit(s[i], base);
		if (d < 0)
			return -EINVAL;
		if (x > (UINT64_MAX - (uint64_t)d) / base)
			over = 1;
		else
			x = x * base + (uint64_t)d;
	}
	if (over || x > max)
		return -ERANGE;
	*v = x;
	return 0;
}

int parse_u64(const char *s, size_t len, unsigned flags, uint64_t max, uint64_t *v)
{
	len = len_of(s, len);
	trim(&s, &len, flags);
	if ((flags & PARSE_BLANKS) && len && *s == '+')
		s++, len--;
	return magnitude(s, len, flags, max, v);
}

int parse_i64(const char *s, size_t len, unsigned flags, int64_t min, int64_t max, int64_t *v)
{
	len = len_of(s, len);
	trim(&s, &len, flags);
	int neg = len && *s == '-';
	if (neg || ((flags & PARSE_BLANKS) && len && *s == '+'))
		s++, len--;
	uint64_t m;
	int rc = magnitude(s, len, flags, (uint64_t)INT64_MAX + neg, &m);
	if (rc)
		return rc;
	int64_t x = neg ? (m ? -(int64_t)(m - 1) - 1 : 0) : (int64_t)m;
	if (x < min || x > max)
		return -ERANGE;
	*v = x;
	return 0;
}

/* the leading decimal digits of s: their count */
static size_t digits(const char *s)
{
	size_t n = 0;
	while (s[n] >= '0' && s[n] <= '9')
		n++;
	return n;
}

static int scaled(const char *s, size_t n, uint64_t mul, uint64_t *out)
{
	uint64_t x;
	int rc = magnitude(s, n, 0, UINT64_MAX, &x);
	if (rc)
		return rc;
	if (x > UINT64_MAX / mul)
		return -ERANGE;
	*out = x * mul;
	return 0;
}

int parse_size(const char *s, uint64_t *bytes)
{
	size_t n = digits(s);
	const char *u = s + n;
	uint64_t mul = 1;
	switch (*u) {
	case 0: break;
	case 'b': case 'B': u++; break;
	case 'k': case 'K': mul = 1ULL << 10; u++; break;
	case 'm': case 'M': mul = 1ULL << 20; u++; break;
	case 'g': case 'G': mul = 1ULL << 30; u++; break;
	default: return -EINVAL;
	}
	if (*u == 'b' || *u == 'B')
		u++;
	if (*u || !n)
		return -EINVAL;
	return scaled(s, n, mul, bytes);
}

int parse_duration_ms(const char *s, uint64_t *ms)
{
	size_t n = digits(s);
	uint64_t mul;
	switch (s[n]) {
	case 's': mul = 1000; break;
	case 'm': mul = 60000; break;
	case 'h': mul = 3600000; break;
	case 'd': mul = 86400000; break;
	default: return -EINVAL;
	}
	if (!n || s[n + 1])
		return -EINVAL;
	return scaled(s, n, mul, ms);
}

int parse_seconds_ns(const char *s, size_t len, uint64_t *ns)
{
	len = len_of(s, len);
	const char *dot = memchr(s, '.', len);
	size_t il = dot ? (size_t)(dot - s) : len, fl = dot ? len - il - 1 : 0;
	uint64_t sec, frac = 0;
	int rc = magnitude(s, il, 0, UINT64_MAX / 1000000000u - 1, &sec);
	if (rc)
		return rc;
	if (fl > 9)
		return -EINVAL;
	if (fl && (rc = magnitude(dot + 1, fl, 0, 999999999u, &frac)))
		return rc;
	for (size_t i = fl; i < 9; i++)
		frac *= 10;
	*ns = sec * 1000000000u + frac;
	return 0;
}

const char *parse_list_next(const char **p, size_t *len)
{
	if (!**p)
		return NULL;
	const char *s = *p, *e = strchr(s, ',');
	*len = e ? (size_t)(e - s) : strlen(s);
	*p = e ? e + 1 : s + *len;
	return s;
}

int parse_id_list(const char *s, uint64_t lo, uint64_t hi, int (*add)(void *ctx, uint64_t id),
		  void *ctx, struct parse_bad *bad)
{
	const char *it;
	size_t len;
	while ((it = parse_list_next(&s, &len))) {
		uint64_t v;
		int rc = parse_u64(it, len, 0, hi, &v);
		if (!rc && v < lo)
			rc = -ERANGE;
		if (!rc)
			rc = add(ctx, v);
		if (rc) {
			*bad = (struct parse_bad){ it, len };
			return rc;
		}
	}
	return 0;
}

int parse_cpu_list(const char *s, uint64_t ncpu, int (*add)(void *ctx, uint64_t cpu), void *ctx,
		   struct parse_bad *bad)
{
	const char *it;
	size_t len;
	while ((it = parse_list_next(&s, &len))) {
		const char *dash = memchr(it, '-', len);
		size_t al = dash ? (size_t)(dash - it) : len;
		uint64_t a = 0, b = 0;
		int rc = ncpu ? parse_u64(it, al, 0, ncpu - 1, &a) : -ERANGE;
		if (!rc && dash)
			rc = parse_u64(dash + 1, len - al - 1, 0, ncpu - 1, &b);
		else
			b = a;
		if (!rc && b < a)
			rc = -EINVAL;
		for (uint64_t c = a; !rc && c <= b; c++)
			rc = add(ctx, c);
		if (rc) {
			*bad = (struct parse_bad){ it, len };
			return rc;
		}
	}
	return 0;
}
