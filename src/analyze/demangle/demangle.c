/*
 * demangle.c: C++ (Itanium) and legacy Rust names as perf prints them; Rust
 * v0 names go to demangle_rust.c.
 *
 * perf demangles without DMGL_PARAMS: "ns::f<int>" rather than
 * "void ns::f<int>(int) const". The C++ runtime's __cxa_demangle only
 * prints the full form, so the parameter list, trailing qualifiers and the
 * return type are cut from its output (strip_params). Legacy Rust symbols
 * are Itanium names whose last element is a hash ("::h" + 16 hex digits):
 * the hash is dropped and rustc's $..$ escapes are undone, as
 * rustc-demangle does. A thunk keeps its target's parameters, which
 * perf's demangler prints below the top level ("virtual thunk to
 * A::~A()").
 *
 * perf's demangler does not read the parameter list of the top-level
 * function at all, so a name whose parameter types __cxa_demangle cannot
 * parse (V8's nested lambdas, with a return type of substitutions) still
 * demangles there. __cxa_demangle must parse the whole name; when it
 * fails, the name is tried again cut after each 'E' in turn (the end of a
 * nested name or of a template argument list): the shortest prefix that
 * demangles is the function's name alone, as an object's name, and the
 * parser is deterministic, so a prefix that ends inside the name fails.
 */
#include "analyze/demangle/demangle.h"
#include "analyze/demangle/demangle_rust.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* Cut "RET name<T>(ARGS) const" to "name<T>", as a demangler without
 * DMGL_PARAMS prints it (perf's form). */
static void strip_params(char *d)
{
	size_t n = strlen(d);
	/* trailing qualifiers after the parameter list */
	for (;;) {
		static const char *const quals[] = { " const", " volatile", " &&", " &", " noexcept" };
		bool cut = false;
		for (size_t i = 0; i < sizeof quals / sizeof quals[0]; i++) {
			size_t q = strlen(quals[i]);
			if (n > q && !memcmp(d + n - q, quals[i], q) && n > q && d[n - q - 1] == ')') {
				n -= q;
				d[n] = 0;
				cut = true;
			}
		}
		if (!cut)
			break;
	}
	if (n && d[n - 1] == ')') {
		int depth = 0;
		for (size_t i = n; i-- > 0;) {
			if (d[i] == ')')
				depth++;
			else if (d[i] == '(' && --depth == 0) {
				/* "operator()" keeps its own parens */
				if (i > 0) {
					d[i] = 0;
					n = i;
				}
				break;
			}
		}
	}
	/* return type: text before the last space at depth 0 */
	int depth = 0;
	ssize_t last = -1;
	for (size_t i = 0; i < n; i++) {
		char c = d[i];
		if (c == '<' || c == '(' || c == '[')
			depth++;
		else if ((c == '>' || c == ')' || c == ']') && depth > 0)
			depth--;
		else if (c == ' ' && depth == 0) {
			if (i >= 8 && !memcmp(d + i - 8, "operator", 8))
				continue;
			last = (ssize_t)i;
		}
	}
	if (last >= 0) {
		/* a conversion operator "operator unsigned long": keep from "operator" */
		char *op = strstr(d, "operator ");
		if (op && op < d + last) {
			char *start = op;
			while (start > d && start[-1] != ' ')
				start--;
			memmove(d, start, strlen(start) + 1);
			return;
		}
		memmove(d, d + last + 1, strlen(d + last + 1) + 1);
	}
}

static bool rust_legacy_hash(const char *s, size_t n)
{
	/* "::h" + 16 hex digits at the end */
	if (n < 19 || memcmp(s + n - 19, "::h", 3))
		return false;
	for (size_t i = n - 16; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* Rust legacy names are Itanium-mangled with $..$ escapes and a hash. */
static void rust_unescape(char *d)
{
	static const struct { const char *esc, *rep; } tab[] = {
		{ "$SP$", "@" }, { "$BP$", "*" }, { "$RF$", "&" }, { "$LT$", "<" },
		{ "$GT$", ">" }, { "$LP$", "(" }, { "$RP$", ")" }, { "$C$", "," },
		{ "$u7e$", "~" }, { "$u20$", " " }, { "$u27$", "'" }, { "$u5b$", "[" },
		{ "$u5d$", "]" }, { "$u7b$", "{" }, { "$u7d$", "}" }, { "$u3b$", ";" },
		{ "$u2b$", "+" }, { "$u22$", "\"" },
	};
	char *w = d;
	for (char *r = d; *r;) {
		/* an element starting with "_$" had the underscore added */
		if (r[0] == '_' && r[1] == '$' && (r == d || (r - d >= 2 && r[-1] == ':' && r[-2] == ':')))
			r++;
		if (*r == '$') {
			bool hit = false;
			for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
				size_t l = strlen(tab[i].esc);
				if (!strncmp(r, tab[i].esc, l)) {
					size_t rl = strlen(tab[i].rep);
					memcpy(w, tab[i].rep, rl);
					w += rl;
					r += l;
					hit = true;
					break;
				}
			}
			if (hit)
				continue;
		}
		if (r[0] == '.' && r[1] == '.') {
			*w++ = ':';
			*w++ = ':';
			r += 2;
			continue;
		}
		*w++ = *r++;
	}
	*w = 0;
}

/* At most this many prefixes are tried: each is a whole demangling, and a
 * symbol table is untrusted input (node 18's V8 name has 11 'E's). */
#define NAME_ONLY_TRIES 256

/* The Itanium name of NAME (a '_Z' name that does not demangle whole)
 * without its parameter list: the shortest prefix ending in 'E' that
 * demangles, or NULL. */
static char *demangle_name_only(const char *name)
{
	size_t n = strlen(name);
	char *buf = xmalloc(n + 1);
	char *d = NULL;
	unsigned tries = 0;
	for (size_t i = 2; i < n && !d && tries < NAME_ONLY_TRIES; i++) {
		if (name[i] != 'E')
			continue;
		tries++;
		memcpy(buf, name, i + 1);
		buf[i + 1] = 0;
		int st = 0;
		d = __cxa_demangle(buf, NULL, NULL, &st);
		if (d && st) {
			free(d);
			d = NULL;
		}
	}
	free(buf);
	return d;
}

char *demangle_alloc(const char *name)
{
	if (!name || name[0] != '_')
		return NULL;
	if (name[1] == 'R') {
		/* Rust v0 (RFC 2603); a path of empty identifiers demangles to
		 * nothing: keep the mangled name then, never print an empty one */
		char *d = demangle_rust_v0(name);
		if (d && !d[0]) {
			free(d);
			d = NULL;
		}
		return d;
	}
	if (name[1] != 'Z')
		return NULL;
	/* GCC clone suffixes (".isra.0", ".cold"): a demangler without
	 * DMGL_PARAMS (perf's) stops before them, so they are dropped */
	const char *dot = strchr(name, '.');
	char *base = dot ? xstrndup(name, (size_t)(dot - name)) : NULL;
	int st = 0;
	char *d = __cxa_demangle(base ? base : name, NULL, NULL, &st);
	if (!d || st) {
		free(d);
		d = demangle_name_only(base ? base : name);
		if (!d) {
			free(base);
			return NULL;
		}
	}
	size_t n = strlen(d);
	bool rust = rust_legacy_hash(d, n);
	/* a thunk's target ("virtual thunk to A::~A()") is an encoding below
	 * the top level, whose parameters perf's demangler prints */
	bool thunk = name[2] == 'T' && (name[3] == 'h' || name[3] == 'v' || name[3] == 'c');
	if (rust) {
		d[n - 19] = 0;
		rust_unescape(d);
	} else if (!thunk) {
		strip_params(d);
	}
	free(base);
	if (!d[0]) {
		/* a name of spaces and qualifiers only ("_Z6_Z6 & " is "_Z6 & "):
		 * keep the mangled name rather than print an empty one */
		free(d);
		return NULL;
	}
	return d;
}
