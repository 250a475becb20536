/* tracing.c: see tracing.h. Every size is checked against what is left. */
#include "perf/tracing.h"
#include "util/buf.h"
#include <byteswap.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRACING_MAX_EVENTS (1u << 20)

struct tc {
	const uint8_t *p, *end, *base;
	int swap;
	struct err *e;
};

static int need(struct tc *c, uint64_t n, const char *what)
{
	if ((uint64_t)(c->end - c->p) < n)
		return err_at(c->e, (uint64_t)(c->p - c->base), "tracing data: %s truncated", what);
	return 0;
}

/* A number of size bytes (4 or 8: *v is a uint32_t or uint64_t) in the
 * file's byte order. */
static int num(struct tc *c, void *v, size_t size, const char *what)
{
	if (need(c, size, what))
		return -EINVAL;
	memcpy(v, c->p, size);
	if (c->swap && size == 4)
		*(uint32_t *)v = bswap_32(*(uint32_t *)v);
	else if (c->swap)
		*(uint64_t *)v = bswap_64(*(uint64_t *)v);
	c->p += size;
	return 0;
}

static int cstr(struct tc *c, const char **s, const char *what)
{
	const uint8_t *z = memchr(c->p, 0, (size_t)(c->end - c->p));
	if (!z)
		return err_at(c->e, (uint64_t)(c->p - c->base), "tracing data: %s not terminated", what);
	*s = (const char *)c->p;
	c->p = z + 1;
	return 0;
}

static int tag(struct tc *c, const char *want)
{
	size_t n = strlen(want) + 1;
	if (need(c, n, want))
		return -EINVAL;
	if (memcmp(c->p, want, n))
		return err_at(c->e, (uint64_t)(c->p - c->base), "tracing data: no %s", want);
	c->p += n;
	return 0;
}

static int blob(struct tc *c, struct tracing_text *t, uint64_t size, const char *what)
{
	if (need(c, size, what))
		return -EINVAL;
	t->p = (const char *)c->p;
	t->len = (size_t)size;
	c->p += size;
	return 0;
}

static int blob64(struct tc *c, struct tracing_text *t, const char *what)
{
	uint64_t n;
	return num(c, &n, sizeof n, what) || blob(c, t, n, what) ? -EINVAL : 0;
}

static char *field(const char *fmt, size_t len, const char *key)
{
	size_t kl = strlen(key);
	for (size_t i = 0; i + kl <= len; i++) {
		if ((i == 0 || fmt[i - 1] == '\n') && !strncmp(fmt + i, key, kl)) {
			size_t j = i + kl;
			while (j < len && fmt[j] == ' ')
				j++;
			size_t k = j;
			while (k < len && fmt[k] != '\n' && fmt[k])
				k++;
			return xstrndup(fmt + j, k - j);
		}
	}
	return NULL;
}

static int formats(struct tc *c, struct tracing_info *ti, size_t *cap, const char *sys,
		   size_t sysn, const char *what)
{
	uint32_t n;
	if (num(c, &n, sizeof n, what))
		return -EINVAL;
	for (uint32_t k = 0; k < n; k++) {
		struct tracing_text t;
		if (blob64(c, &t, "event format"))
			return -EINVAL;
		if (ARRAY_GROW(ti->events, *cap, ti->nr + 1, TRACING_MAX_EVENTS))
			return err_at(c->e, (uint64_t)(c->p - c->base), "tracing data: too many events");
		struct tracing_event *ev = &ti->events[ti->nr];
		char *id = field(t.p, t.len, "ID:");
		char *end = NULL;
		ev->name = field(t.p, t.len, "name:");
		ev->system = xstrndup(sys, sysn);
		ev->id = id ? strtoull(id, &end, 10) : UINT64_MAX;
		if (id && end == id)
			ev->id = UINT64_MAX;
		ev->format = t.p;
		ev->format_len = t.len;
		free(id);
		if (!ev->name)
			ev->name = xstrdup("");
		ti->nr++;
	}
	return 0;
}

int tracing_parse(const uint8_t *p, size_t n, struct tracing_info *ti, struct err *e)
{
	memset(ti, 0, sizeof(*ti));
	struct tc c = { p, p + n, p, 0, e };
	static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	if (need(&c, 10, "magic") || memcmp(p, magic, 10))
		return err_at(e, 0, "tracing data: bad magic");
	c.p += 10;
	const char *ver = NULL;
	if (cstr(&c, &ver, "version"))
		return -EINVAL;
	snprintf(ti->version, sizeof(ti->version), "%s", ver);
	ti->header_ok = true;
	if (need(&c, 2, "endianness"))
		return -EINVAL;
	ti->big_endian = c.p[0] != 0;
	ti->long_size = c.p[1];
	c.p += 2;
	c.swap = ti->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	if (num(&c, &ti->page_size, sizeof ti->page_size, "page size"))
		return -EINVAL;
	if (tag(&c, "header_page") || blob64(&c, &ti->header_page, "header_page") ||
	    tag(&c, "header_event") || blob64(&c, &ti->header_event, "header_event"))
		return -EINVAL;
	size_t cap = 0;
	if (formats(&c, ti, &cap, "ftrace", 6, "ftrace count"))
		return -EINVAL;
	uint32_t nsys;
	if (num(&c, &nsys, sizeof nsys, "system count"))
		return -EINVAL;
	for (uint32_t i = 0; i < nsys; i++) {
		const char *sys = NULL;
		if (cstr(&c, &sys, "system name") || formats(&c, ti, &cap, sys, strlen(sys), "event count"))
			return -EINVAL;
	}
	uint32_t sz;
	if (num(&c, &sz, sizeof sz, "kallsyms size") || blob(&c, &ti->kallsyms, sz, "kallsyms") ||
	    num(&c, &sz, sizeof sz, "printk size") || blob(&c, &ti->printk, sz, "printk formats"))
		return -EINVAL;
	ti->complete = true;
	return 0;
}

void tracing_release(struct tracing_info *ti)
{
	for (size_t i = 0; i < ti->nr; i++) {
		free(ti->events[i].system);
		free(ti->events[i].name);
	}
	free(ti->events);
	memset(ti, 0, sizeof(*ti));
}

const struct tracing_event *tracing_find(const struct tracing_info *ti, uint64_t id)
{
	for (size_t i = 0; i < ti->nr; i++)
		if (ti->events[i].id == id && id != UINT64_MAX)
			return &ti->events[i];
	return NULL;
}

/* A format line: "\tfield:TYPE NAME[N];\toffset:O;\tsize:S;\tsigned:X;". The
 * name is the identifier right before the first ';' (or before '[' there). */
static bool num_after(const char *l, size_t n, const char *key, uint32_t *v)
{
	size_t k = strlen(key);
	for (size_t i = 0; i + k <= n; i++) {
		if (memcmp(l + i, key, k))
			continue;
		uint64_t x = 0;
		size_t j = i + k, d = 0;
		while (j < n && l[j] >= '0' && l[j] <= '9' && d < 10)
			x = x * 10 + (uint64_t)(l[j++] - '0'), d++;
		if (!d || x > UINT32_MAX)
			return false;
		*v = (uint32_t)x;
		return true;
	}
	return false;
}

int tracing_field(const struct tracing_event *te, const char *field, uint32_t *offset,
		  uint32_t *size)
{
	const char *p = te->format, *end = te->format + te->format_len;
	size_t flen = strlen(field);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t n = (size_t)(le - p);
		const char *f = n >= 6 ? memmem(p, n, "field:", 6) : NULL;
		const char *semi = f ? memchr(f, ';', (size_t)(le - f)) : NULL;
		if (semi) {
			const char *ne = semi, *br = memchr(f, '[', (size_t)(semi - f));
			if (br)
				ne = br;
			while (ne > f && ne[-1] == ' ')
				ne--;
			const char *nb = ne;
			while (nb > f + 6 && nb[-1] != ' ' && nb[-1] != '\t' && nb[-1] != ':')
				nb--;
			if ((size_t)(ne - nb) == flen && !memcmp(nb, field, flen)) {
				uint32_t o, s;
				if (!num_after(semi, (size_t)(le - semi), "offset:", &o) ||
				    !num_after(semi, (size_t)(le - semi), "size:", &s))
					return -EINVAL;
				*offset = o;
				*size = s;
				return 0;
			}
		}
		p = le + 1;
	}
	return -ENOENT;
}
