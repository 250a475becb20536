/*
 * demangle_rust.c: Rust v0 symbol demangling, written from the grammar in
 * RFC 2603 ("symbol name mangling v0"). Output follows rustc-demangle's
 * alternate form ({:#}): paths joined by "::", crate disambiguators
 * hidden, integer constants without type suffix.
 *
 * Hostile input: every read is bounds-checked, recursion is limited to
 * DEPTH_MAX, output to OUT_MAX bytes and total work to STEPS_MAX parse
 * steps; backrefs must point strictly backwards. Any violation makes the
 * whole demangling fail (NULL), so callers fall back to the raw name.
 */
#include "analyze/demangle/demangle_rust.h"
#include "util/xalloc.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DEPTH_MAX 64
#define OUT_MAX 4096
#define STEPS_MAX 200000

struct dm {
	const char *s; /* the symbol after "_R" */
	size_t n;      /* its length (v0 alphabet only) */
	size_t pos;
	int depth;
	long steps;
	int skip;      /* >0: parse without printing */
	bool err;
	uint64_t bound_lt; /* lifetimes bound by enclosing binders */
	char out[OUT_MAX + 1];
	size_t olen;
};

static bool fail(struct dm *d)
{
	d->err = true;
	return false;
}

static void put_n(struct dm *d, const char *p, size_t l)
{
	if (d->err || d->skip)
		return;
	if (l > OUT_MAX - d->olen) {
		d->err = true;
		return;
	}
	memcpy(d->out + d->olen, p, l);
	d->olen += l;
}

static void put(struct dm *d, const char *p)
{
	put_n(d, p, strlen(p));
}

static void put_u64(struct dm *d, uint64_t v)
{
	char buf[24];
	int i = (int)sizeof(buf);
	buf[--i] = 0;
	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(d, buf + i);
}

static int peek(const struct dm *d)
{
	return d->pos < d->n ? (unsigned char)d->s[d->pos] : -1;
}

static bool eat(struct dm *d, char c)
{
	if (peek(d) == (unsigned char)c) {
		d->pos++;
		return true;
	}
	return false;
}

static int next(struct dm *d)
{
	int c = peek(d);
	if (c < 0) {
		fail(d);
		return -1;
	}
	d->pos++;
	return c;
}

/* inner(d, arg) one level deeper: the depth and step limits hold, an
 * error already set fails */
static bool nested(struct dm *d, bool (*inner)(struct dm *, bool), bool arg)
{
	if (d->err)
		return false;
	if (++d->depth > DEPTH_MAX || ++d->steps > STEPS_MAX)
		return fail(d);
	bool ok = inner(d, arg) && !d->err;
	d->depth--;
	return ok;
}

/* {digit} "_" in base 62 (0-9a-zA-Z) or 16 (0-9a-f): the value into *v;
 * more than max_digits digits (0: any number) fail. A value past 64 bits
 * fails without big; with big, *big is set and *v keeps its low 64 bits. */
static bool digit_run(struct dm *d, unsigned base, int max_digits, uint64_t *v, bool *big)
{
	uint64_t x = 0;
	int nd = 0;
	for (;;) {
		int c = next(d);
		if (c < 0)
			return false;
		if (c == '_')
			break;
		unsigned dg;
		if (c >= '0' && c <= '9')
			dg = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'z' && 10 + (unsigned)(c - 'a') < base)
			dg = 10 + (unsigned)(c - 'a');
		else if (base == 62 && c >= 'A' && c <= 'Z')
			dg = 36 + (unsigned)(c - 'A');
		else
			return fail(d);
		if (max_digits && ++nd > max_digits)
			return fail(d);
		if (x > (UINT64_MAX - dg) / base) {
			if (!big)
				return fail(d);
			*big = true;
		}
		x = x * base + dg;
	}
	*v = x;
	return true;
}

/* base-62-number: "_" is 0, {digits} "_" is value + 1 */
static bool base62(struct dm *d, uint64_t *v)
{
	if (eat(d, '_')) {
		*v = 0;
		return true;
	}
	uint64_t x;
	if (!digit_run(d, 62, 0, &x, NULL))
		return false;
	if (x == UINT64_MAX)
		return fail(d);
	*v = x + 1;
	return true;
}

/* [ "s" base-62-number ]: absent is 0, present is value + 1 */
static bool opt_dis(struct dm *d, uint64_t *v)
{
	*v = 0;
	if (!eat(d, 's'))
		return true;
	uint64_t x;
	if (!base62(d, &x) || x == UINT64_MAX)
		return fail(d);
	*v = x + 1;
	return true;
}

struct ident {
	const char *p;
	size_t len;
	bool puny;
};

/* undisambiguated-identifier = ["u"] decimal-number ["_"] bytes */
static bool ident(struct dm *d, struct ident *id)
{
	id->puny = eat(d, 'u');
	int c = peek(d);
	if (c < '0' || c > '9')
		return fail(d);
	uint64_t len = 0;
	if (c == '0') {
		d->pos++;
	} else {
		while ((c = peek(d)) >= '0' && c <= '9') {
			len = len * 10 + (uint64_t)(c - '0');
			if (len > d->n)
				return fail(d);
			d->pos++;
		}
	}
	eat(d, '_');
	if (len > d->n - d->pos)
		return fail(d);
	id->p = d->s + d->pos;
	id->len = (size_t)len;
	d->pos += (size_t)len;
	return true;
}

static void put_utf8(struct dm *d, uint32_t cp)
{
	char b[4];
	size_t l;
	if (cp < 0x80) {
		b[0] = (char)cp;
		l = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3f));
		l = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		l = 3;
	} else {
		b[0] = (char)(0xf0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		l = 4;
	}
	put_n(d, b, l);
}

#define PUNY_MAX 256

/* RFC 3492 bootstring decoding, with '_' in place of '-' as delimiter */
static bool punycode(struct dm *d, const struct ident *id)
{
	uint32_t cps[PUNY_MAX];
	size_t ncp = 0;
	bool first = true;
	const char *p = id->p, *end = id->p + id->len;
	const char *delim = NULL;
	for (const char *q = p; q < end; q++)
		if (*q == '_')
			delim = q;
	if (delim) {
		for (const char *q = p; q < delim; q++) {
			if (ncp >= PUNY_MAX)
				return false;
			cps[ncp++] = (unsigned char)*q;
		}
		p = delim + 1;
	}
	uint32_t n = 128, bias = 72;
	uint64_t i = 0;
	while (p < end) {
		uint64_t old = i, w = 1;
		for (uint32_t k = 36;; k += 36) {
			if (p >= end)
				return false;
			char c = *p++;
			uint32_t dg;
			if (c >= 'a' && c <= 'z')
				dg = (uint32_t)(c - 'a');
			else if (c >= '0' && c <= '9')
				dg = 26 + (uint32_t)(c - '0');
			else
				return false;
			if (dg > (UINT32_MAX - i) / w)
				return false;
			i += dg * w;
			uint32_t t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
			if (dg < t)
				break;
			if (w > UINT32_MAX / (36 - t))
				return false;
			w *= 36 - t;
		}
		if (ncp >= PUNY_MAX)
			return false;
		/* adapt */
		uint64_t delta = first ? (i - old) / 700 : (i - old) / 2;
		first = false;
		delta += delta / (ncp + 1);
		uint32_t k = 0;
		while (delta > ((36 - 1) * 26) / 2) {
			delta /= 36 - 1;
			k += 36;
		}
		bias = k + (uint32_t)((36 * delta) / (delta + 38));
		uint64_t nn = n + i / (ncp + 1);
		if (nn > 0x10ffff)
			return false;
		n = (uint32_t)nn;
		i %= ncp + 1;
		if (n >= 0xd800 && n < 0xe000)
			return false;
		memmove(cps + i + 1, cps + i, (ncp - i) * sizeof(cps[0]));
		cps[i] = n;
		ncp++;
		i++;
	}
	for (size_t k = 0; k < ncp; k++)
		put_utf8(d, cps[k]);
	return true;
}

static void put_ident(struct dm *d, const struct ident *id)
{
	if (id->puny) {
		if (d->skip || punycode(d, id))
			return;
		put(d, "punycode{");
		put_n(d, id->p, id->len);
		put(d, "}");
		return;
	}
	put_n(d, id->p, id->len);
}

static bool path(struct dm *d, bool in_value);
static bool type(struct dm *d);
static bool konst(struct dm *d);

/* run fn at the target of a backref "B" base-62-number, then come back */
static bool backref(struct dm *d, bool (*fn)(struct dm *, bool), bool arg)
{
	size_t start = d->pos - 1;
	uint64_t off;
	if (!base62(d, &off))
		return false;
	if (off >= start)
		return fail(d);
	size_t save = d->pos;
	d->pos = (size_t)off;
	bool ok = fn(d, arg);
	d->pos = save;
	return ok;
}

static bool type_b(struct dm *d, bool unused)
{
	(void)unused;
	return type(d);
}

static bool const_b(struct dm *d, bool unused)
{
	(void)unused;
	return konst(d);
}

static void put_lifetime(struct dm *d, uint64_t lt)
{
	put(d, "'");
	if (lt == 0) {
		put(d, "_");
		return;
	}
	if (lt > d->bound_lt) {
		d->err = true;
		return;
	}
	uint64_t depth = d->bound_lt - lt;
	if (depth < 26) {
		char c = (char)('a' + depth);
		put_n(d, &c, 1);
	} else {
		put(d, "_");
		put_u64(d, depth);
	}
}

/* binder = "G" base-62-number: for<'a, 'b, ...> */
static bool binder(struct dm *d)
{
	if (!eat(d, 'G'))
		return true;
	uint64_t n;
	if (!base62(d, &n))
		return false;
	if (n >= 1000)
		return fail(d);
	n++;
	put(d, "for<");
	for (uint64_t i = 0; i < n; i++) {
		if (i)
			put(d, ", ");
		d->bound_lt++;
		put_lifetime(d, 1);
	}
	put(d, "> ");
	return !d->err;
}

/* {item} "E", the items printed with sep between them: how many there
 * were, or -1 */
static int list(struct dm *d, const char *sep, bool (*item)(struct dm *))
{
	int i;
	for (i = 0; !eat(d, 'E'); i++) {
		if (d->err || peek(d) < 0) {
			fail(d);
			return -1;
		}
		if (i)
			put(d, sep);
		if (!item(d))
			return -1;
	}
	return i;
}

/* generic-arg = lifetime | type | "K" const */
static bool generic_arg(struct dm *d)
{
	if (eat(d, 'L')) {
		uint64_t lt;
		if (!base62(d, &lt))
			return false;
		put_lifetime(d, lt);
		return true;
	}
	if (eat(d, 'K'))
		return konst(d);
	return type(d);
}

static bool generic_args(struct dm *d)
{
	return list(d, ", ", generic_arg) >= 0 && !d->err;
}

static bool path_b(struct dm *d, bool in_value)
{
	return path(d, in_value);
}

static bool path_inner(struct dm *d, bool in_value)
{
	struct ident id;
	uint64_t dis;
	int c = next(d);
	switch (c) {
	case 'C':
		if (!opt_dis(d, &dis) || !ident(d, &id))
			return false;
		put_ident(d, &id);
		return true;
	case 'M':
	case 'X':
	case 'Y':
		if (c != 'Y') { /* impl-path = [disambiguator] path, not shown */
			d->skip++;
			bool ok = opt_dis(d, &dis) && path(d, false);
			d->skip--;
			if (!ok)
				return false;
		}
		put(d, "<");
		if (!type(d))
			return false;
		if (c != 'M') {
			put(d, " as ");
			if (!path(d, false))
				return false;
		}
		put(d, ">");
		return true;
	case 'N': {
		int ns = next(d);
		if (ns < 0 || !path(d, in_value) || !opt_dis(d, &dis) ||
		    !ident(d, &id))
			return false;
		if (ns >= 'A' && ns <= 'Z') {
			put(d, "::{");
			if (ns == 'C')
				put(d, "closure");
			else if (ns == 'S')
				put(d, "shim");
			else {
				char ch = (char)ns;
				put_n(d, &ch, 1);
			}
			if (id.len) {
				put(d, ":");
				put_ident(d, &id);
			}
			put(d, "#");
			put_u64(d, dis);
			put(d, "}");
		} else if (ns >= 'a' && ns <= 'z') {
			if (id.len) {
				put(d, "::");
				put_ident(d, &id);
			}
		} else {
			return fail(d);
		}
		return true;
	}
	case 'I':
		if (!path(d, in_value))
			return false;
		if (in_value)
			put(d, "::");
		put(d, "<");
		if (!generic_args(d))
			return false;
		put(d, ">");
		return true;
	case 'B':
		return backref(d, path_b, in_value);
	default:
		return fail(d);
	}
}

static bool path(struct dm *d, bool in_value)
{
	return nested(d, path_inner, in_value);
}

static const char *basic_type(int c)
{
	switch (c) {
	case 'a': return "i8";
	case 'b': return "bool";
	case 'c': return "char";
	case 'd': return "f64";
	case 'e': return "str";
	case 'f': return "f32";
	case 'h': return "u8";
	case 'i': return "isize";
	case 'j': return "usize";
	case 'l': return "i32";
	case 'm': return "u32";
	case 'n': return "i128";
	case 'o': return "u128";
	case 's': return "i16";
	case 't': return "u16";
	case 'u': return "()";
	case 'v': return "...";
	case 'x': return "i64";
	case 'y': return "u64";
	case 'z': return "!";
	case 'p': return "_";
	default: return NULL;
	}
}

/* dyn-trait = path {dyn-trait-assoc-binding}; generics left open for
 * the bindings: dyn Iterator<Item = u32> */
static bool dyn_trait(struct dm *d)
{
	bool open = false;
	/* follow backrefs to see whether the path is generic */
	size_t save = 0;
	bool jumped = false;
	int hops = 0;
	while (peek(d) == 'B') {
		size_t start = d->pos;
		d->pos++;
		uint64_t off;
		if (!base62(d, &off))
			return false;
		if (off >= start || ++hops > DEPTH_MAX)
			return fail(d);
		if (!jumped)
			save = d->pos;
		jumped = true;
		d->pos = (size_t)off;
	}
	if (eat(d, 'I')) {
		if (!path(d, false))
			return false;
		put(d, "<");
		if (!generic_args(d))
			return false;
		open = true;
	} else if (!path(d, false)) {
		return false;
	}
	if (jumped)
		d->pos = save;
	/* with generics, ">" is still to come, after the bindings */
	while (eat(d, 'p')) {
		struct ident id;
		if (!open)
			put(d, "<");
		else
			put(d, ", ");
		open = true;
		if (!ident(d, &id))
			return false;
		put_ident(d, &id);
		put(d, " = ");
		if (!type(d))
			return false;
	}
	if (open)
		put(d, ">");
	return !d->err;
}

static bool type_inner(struct dm *d, bool unused)
{
	int c = next(d);
	if (c < 0)
		return false;
	const char *b = basic_type(c);
	if (b) {
		put(d, b);
		return true;
	}
	uint64_t lt;
	switch (c) {
	case 'R':
	case 'Q':
		put(d, "&");
		if (eat(d, 'L')) {
			if (!base62(d, &lt))
				return false;
			if (lt) { /* "&'a T", "&'a mut T" */
				put_lifetime(d, lt);
				put(d, " ");
			}
		}
		if (c == 'Q')
			put(d, "mut ");
		return type(d);
	case 'P':
		put(d, "*const ");
		return type(d);
	case 'O':
		put(d, "*mut ");
		return type(d);
	case 'A':
		put(d, "[");
		if (!type(d))
			return false;
		put(d, "; ");
		if (!konst(d))
			return false;
		put(d, "]");
		return true;
	case 'S':
		put(d, "[");
		if (!type(d))
			return false;
		put(d, "]");
		return true;
	case 'T': {
		put(d, "(");
		int i = list(d, ", ", type);
		if (i < 0)
			return false;
		if (i == 1)
			put(d, ",");
		put(d, ")");
		return true;
	}
	case 'F': {
		uint64_t saved = d->bound_lt;
		if (!binder(d))
			return false;
		if (eat(d, 'U'))
			put(d, "unsafe ");
		if (eat(d, 'K')) {
			put(d, "extern \"");
			if (eat(d, 'C')) {
				put(d, "C");
			} else {
				struct ident id;
				if (!ident(d, &id) || id.puny)
					return fail(d);
				for (size_t k = 0; k < id.len; k++) {
					char ch = id.p[k] == '_' ? '-' : id.p[k];
					put_n(d, &ch, 1);
				}
			}
			put(d, "\" ");
		}
		put(d, "fn(");
		if (list(d, ", ", type) < 0)
			return false;
		put(d, ")");
		if (!eat(d, 'u')) {
			put(d, " -> ");
			if (!type(d))
				return false;
		}
		d->bound_lt = saved;
		return true;
	}
	case 'D': {
		uint64_t saved = d->bound_lt;
		put(d, "dyn ");
		if (!binder(d))
			return false;
		if (list(d, " + ", dyn_trait) < 0)
			return false;
		d->bound_lt = saved;
		if (!eat(d, 'L') || !base62(d, &lt))
			return fail(d);
		if (lt) {
			put(d, " + ");
			put_lifetime(d, lt);
		}
		return true;
	}
	case 'B':
		return backref(d, type_b, false);
	case 'C':
	case 'M':
	case 'X':
	case 'Y':
	case 'N':
	case 'I':
		d->pos--;
		return path(d, false);
	default:
		return fail(d);
	}
}

static bool type(struct dm *d)
{
	return nested(d, type_inner, false);
}

/* const-data = ["n"] {hex-digit} "_" */
static bool const_int(struct dm *d, bool is_signed)
{
	bool neg = eat(d, 'n');
	if (neg && !is_signed)
		return fail(d);
	size_t start = d->pos;
	uint64_t v;
	bool big = false;
	if (!digit_run(d, 16, 0, &v, &big))
		return false;
	if (neg)
		put(d, "-");
	if (big) {
		put(d, "0x");
		put_n(d, d->s + start, d->pos - 1 - start);
	} else {
		put_u64(d, v);
	}
	return true;
}

static bool konst_inner(struct dm *d, bool unused)
{
	int c = next(d);
	if (c < 0)
		return false;
	switch (c) {
	case 'p':
		put(d, "_");
		return true;
	case 'B':
		return backref(d, const_b, false);
	case 'a': case 's': case 'l': case 'x': case 'n': case 'i':
		return const_int(d, true);
	case 'h': case 't': case 'm': case 'y': case 'o': case 'j':
		return const_int(d, false);
	case 'b':
		if (eat(d, '0') && eat(d, '_'))
			put(d, "false");
		else if (eat(d, '1') && eat(d, '_'))
			put(d, "true");
		else
			return fail(d);
		return true;
	case 'c': {
		uint64_t v;
		bool big = false;
		if (!digit_run(d, 16, 8, &v, &big))
			return false;
		if (v > 0x10ffff || (v >= 0xd800 && v < 0xe000))
			return fail(d);
		put(d, "'");
		if (v == '\'' || v == '\\') {
			put(d, "\\");
			put_utf8(d, (uint32_t)v);
		} else if (v == '\n') {
			put(d, "\\n");
		} else if (v == '\t') {
			put(d, "\\t");
		} else if (v == '\r') {
			put(d, "\\r");
		} else if (v < 0x20 || v == 0x7f) {
			static const char hx[] = "0123456789abcdef";
			char e[8] = { '\\', 'u', '{', hx[(v >> 4) & 15], hx[v & 15], '}', 0, 0 };
			put(d, e);
		} else {
			put_utf8(d, (uint32_t)v);
		}
		put(d, "'");
		return true;
	}
	default:
		/* str, references, arrays, tuples, ADTs as constants: not
		 * decoded */
		return fail(d);
	}
}

static bool konst(struct dm *d)
{
	return nested(d, konst_inner, false);
}

static bool is_v0_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || c == '_';
}

char *demangle_rust_v0(const char *sym)
{
	if (!sym || sym[0] != '_' || sym[1] != 'R')
		return NULL;
	const char *s = sym + 2;
	size_t n = 0;
	while (s[n] && is_v0_char(s[n]))
		n++;
	/* an encoding version (decimal) is not supported; a path starts
	 * with an upper case letter */
	if (n == 0 || s[0] < 'A' || s[0] > 'Z')
		return NULL;
	struct dm *d = xcalloc(1, sizeof(*d));
	d->s = s;
	d->n = n;
	bool ok = path(d, true);
	/* [instantiating-crate]: parsed, not shown */
	if (ok && d->pos < d->n && d->s[d->pos] >= 'A' && d->s[d->pos] <= 'Z') {
		d->skip++;
		ok = path(d, false);
		d->skip--;
	}
	char *r = NULL;
	if (ok && !d->err && d->pos == d->n) {
		d->out[d->olen] = 0;
		r = xstrdup(d->out);
	}
	free(d);
	return r;
}
