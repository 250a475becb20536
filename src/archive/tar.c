/* tar.c: the ustar + pax format, written and read; see tar.h. */
#include "archive/tar.h"
#include "util/xalloc.h"
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Field offsets and sizes of a header block. */
#define H_NAME 0
#define H_MODE 100
#define H_UID 108
#define H_GID 116
#define H_SIZE 124
#define H_MTIME 136
#define H_CHKSUM 148
#define H_TYPE 156
#define H_LINK 157
#define H_MAGIC 257
#define H_VERSION 263
#define H_UNAME 265
#define H_GNAME 297
#define H_PREFIX 345
#define NAME_LEN 100
#define OCTAL_SIZE_MAX 077777777777ULL /* 11 octal digits */

static const uint8_t zeros[TAR_BLOCK];

/* ---- writing --------------------------------------------------------- */

static int put(struct tar_w *t, const void *p, size_t n)
{
	int rc = t->write(t->ctx, p, n);
	if (!rc)
		t->off += n;
	return rc;
}

static int pad(struct tar_w *t, uint64_t n)
{
	size_t r = (size_t)(n % TAR_BLOCK);
	return r ? put(t, zeros, TAR_BLOCK - r) : 0;
}

static void octal(uint8_t *f, size_t w, uint64_t v)
{
	/* w-1 digits and a NUL */
	char s[32];
	snprintf(s, sizeof s, "%0*llo", (int)(w - 1), (unsigned long long)v);
	memcpy(f, s, w - 1);
	f[w - 1] = 0;
}

static int header(struct tar_w *t, char type, const char *name, const char *link, uint64_t size,
		  int64_t mtime, unsigned mode)
{
	uint8_t h[TAR_BLOCK] = { 0 };
	memcpy(h + H_NAME, name, strnlen(name, NAME_LEN));
	octal(h + H_MODE, 8, mode);
	octal(h + H_UID, 8, 0);
	octal(h + H_GID, 8, 0);
	octal(h + H_SIZE, 12, size > OCTAL_SIZE_MAX ? 0 : size);
	octal(h + H_MTIME, 12, mtime > 0 && (uint64_t)mtime <= OCTAL_SIZE_MAX ? (uint64_t)mtime : 0);
	h[H_TYPE] = (uint8_t)type;
	if (link)
		memcpy(h + H_LINK, link, strnlen(link, NAME_LEN));
	memcpy(h + H_MAGIC, "ustar", 6);
	memcpy(h + H_VERSION, "00", 2);
	memcpy(h + H_UNAME, "root", 4);
	memcpy(h + H_GNAME, "root", 4);
	memset(h + H_CHKSUM, ' ', 8);
	unsigned sum = 0;
	for (size_t i = 0; i < TAR_BLOCK; i++)
		sum += h[i];
	snprintf((char *)h + H_CHKSUM, 8, "%06o", sum); /* six digits, NUL, space */
	h[H_CHKSUM + 7] = ' ';
	return put(t, h, TAR_BLOCK);
}

/* One pax record "LEN key=value\n" appended to b (cap bytes, *n used);
 * LEN counts the whole record, its own digits included. */
static int pax_record(char *b, size_t cap, size_t *n, const char *key, const char *val)
{
	size_t body = 1 + strlen(key) + 1 + strlen(val) + 1; /* " key=val\n" */
	size_t len = body + 1;
	for (size_t d = 1; (size_t)snprintf(NULL, 0, "%zu", len) != d;)
		len = body + ++d;
	if (*n + len >= cap)
		return -ENAMETOOLONG;
	*n += (size_t)snprintf(b + *n, cap - *n, "%zu %s=%s\n", len, key, val);
	return 0;
}

/* The pax header a member needs (long name or target, big size), then its
 * ustar header. */
static int member(struct tar_w *t, char type, const char *name, const char *link, uint64_t size,
		  int64_t mtime, unsigned mode)
{
	if (!*name || strlen(name) >= TAR_NAME_MAX || (link && strlen(link) >= TAR_NAME_MAX))
		return -ENAMETOOLONG;
	char pax[3 * TAR_NAME_MAX];
	size_t n = 0;
	int rc = 0;
	if (strlen(name) > NAME_LEN)
		rc = pax_record(pax, sizeof pax, &n, "path", name);
	if (!rc && link && strlen(link) > NAME_LEN)
		rc = pax_record(pax, sizeof pax, &n, "linkpath", link);
	if (!rc && size > OCTAL_SIZE_MAX) {
		char s[24];
		snprintf(s, sizeof s, "%llu", (unsigned long long)size);
		rc = pax_record(pax, sizeof pax, &n, "size", s);
	}
	if (rc)
		return rc;
	if (n) {
		/* the pax member's own name, as GNU tar makes it */
		char pn[NAME_LEN + 1];
		snprintf(pn, sizeof pn, "PaxHeaders/%.80s", strrchr(name, '/') ? strrchr(name, '/') + 1 : name);
		if ((rc = header(t, 'x', pn, NULL, n, mtime, 0644)) || (rc = put(t, pax, n)) || (rc = pad(t, n)))
			return rc;
	}
	return header(t, type, name, link, size, mtime, mode);
}

int tar_w_file(struct tar_w *t, const char *name, uint64_t size, int64_t mtime, int fd)
{
	int rc = member(t, '0', name, NULL, size, mtime, 0644);
	char buf[1 << 16];
	for (uint64_t left = size; !rc && left;) {
		ssize_t k = read(fd, buf, left < sizeof buf ? (size_t)left : sizeof buf);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		rc = put(t, buf, (size_t)k);
		left -= (uint64_t)k;
	}
	return rc ? rc : pad(t, size);
}

int tar_w_mem(struct tar_w *t, const char *name, const void *p, size_t n, int64_t mtime)
{
	int rc = member(t, '0', name, NULL, n, mtime, 0644);
	if (!rc && n)
		rc = put(t, p, n);
	return rc ? rc : pad(t, n);
}

int tar_w_symlink(struct tar_w *t, const char *name, const char *target, int64_t mtime)
{
	return member(t, '2', name, target, 0, mtime, 0777);
}

int tar_w_end(struct tar_w *t)
{
	int rc = put(t, zeros, TAR_BLOCK);
	return rc ? rc : put(t, zeros, TAR_BLOCK);
}

/* ---- reading --------------------------------------------------------- */

/* Exactly n bytes, else an error (truncated). */
static int get(struct tar_r *t, void *p, size_t n, struct err *e)
{
	int64_t k = t->read(t->ctx, p, n, e);
	if (k < 0)
		return (int)k;
	t->off += (uint64_t)k;
	if ((size_t)k < n)
		return err_at(e, t->off, "truncated: the archive ends inside a member");
	return 0;
}

static int skip(struct tar_r *t, uint64_t n, struct err *e)
{
	uint8_t buf[1 << 14];
	while (n) {
		size_t k = n < sizeof buf ? (size_t)n : sizeof buf;
		int rc = get(t, buf, k, e);
		if (rc)
			return rc;
		n -= k;
	}
	return 0;
}

/* An octal field (leading spaces, digits, then NUL or spaces), or GNU's
 * base-256 form (first byte 0x80) for sizes; false when malformed. */
static bool field_num(const uint8_t *f, size_t w, uint64_t *out)
{
	uint64_t v = 0;
	if (f[0] == 0x80) {
		for (size_t i = 1; i < w; i++) {
			if (v >> 56)
				return false;
			v = v << 8 | f[i];
		}
		*out = v;
		return true;
	}
	size_t i = 0;
	while (i < w && f[i] == ' ')
		i++;
	size_t d = 0;
	for (; i < w && f[i] >= '0' && f[i] <= '7'; i++, d++) {
		if (v >> 60)
			return false;
		v = v << 3 | (uint64_t)(f[i] - '0');
	}
	for (; i < w; i++)
		if (f[i] != ' ' && f[i])
			return false;
	*out = v;
	return d > 0;
}

/* A NUL-terminated copy of a fixed field. */
static void field_str(char *out, const uint8_t *f, size_t w)
{
	size_t n = strnlen((const char *)f, w);
	memcpy(out, f, n);
	out[n] = 0;
}

/* pax records of an 'x' member: path, linkpath, size (others ignored). */
static int pax_parse(const char *b, size_t n, uint64_t off, struct tar_member *m, bool *has_path,
		     bool *has_link, bool *has_size, struct err *e)
{
	size_t i = 0;
	while (i < n) {
		size_t len = 0, j = i;
		while (j < n && b[j] >= '0' && b[j] <= '9' && len < n)
			len = len * 10 + (size_t)(b[j++] - '0');
		if (j == i || j >= n || b[j] != ' ' || len <= j - i + 1 || len > n - i || b[i + len - 1] != '\n')
			return err_at(e, off, "bad pax record");
		const char *kv = b + j + 1, *end = b + i + len - 1;
		const char *eq = memchr(kv, '=', (size_t)(end - kv));
		if (!eq)
			return err_at(e, off, "bad pax record");
		size_t kl = (size_t)(eq - kv), vl = (size_t)(end - eq - 1);
		const char *v = eq + 1;
		if ((kl == 4 && !memcmp(kv, "path", 4)) || (kl == 8 && !memcmp(kv, "linkpath", 8))) {
			char *dst = kl == 4 ? m->name : m->link;
			if (!vl || vl >= TAR_NAME_MAX || memchr(v, 0, vl))
				return err_at(e, off, "bad pax %s", kl == 4 ? "path" : "linkpath");
			memcpy(dst, v, vl);
			dst[vl] = 0;
			*(kl == 4 ? has_path : has_link) = true;
		} else if (kl == 4 && !memcmp(kv, "size", 4)) {
			uint64_t s = 0;
			if (!vl || vl > 19)
				return err_at(e, off, "bad pax size");
			for (size_t k = 0; k < vl; k++) {
				if (v[k] < '0' || v[k] > '9')
					return err_at(e, off, "bad pax size");
				s = s * 10 + (uint64_t)(v[k] - '0');
			}
			m->size = s;
			*has_size = true;
		}
		i += len;
	}
	return 0;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

int tar_r_next(struct tar_r *t, struct tar_member *m, struct err *e)
{
	int rc = skip(t, t->left + t->pad, e);
	if (rc)
		return rc;
	t->left = t->pad = 0;
	bool has_path = false, has_link = false, has_size = false;
	uint64_t pax_size = 0;
	for (;;) {
		uint8_t h[TAR_BLOCK];
		uint64_t at = t->off;
		int64_t k = t->read(t->ctx, h, TAR_BLOCK, e);
		if (k < 0)
			return (int)k;
		t->off += (uint64_t)k;
		if (k < TAR_BLOCK)
			return err_at(e, t->off, "truncated: the archive ends %s",
				      k || has_path || has_link || has_size ? "inside a member header"
									 : "before its end blocks");
		if (all_zero(h, TAR_BLOCK)) {
			if (has_path || has_link || has_size)
				return err_at(e, at, "a pax header not followed by its member");
			return 0;
		}
		if (++t->members > t->max_members)
			return err_at(e, at, "more than %u members", t->max_members);
		unsigned sum = 0;
		uint64_t want;
		for (size_t i = 0; i < TAR_BLOCK; i++)
			sum += i >= H_CHKSUM && i < H_CHKSUM + 8 ? ' ' : h[i];
		if (!field_num(h + H_CHKSUM, 8, &want) || want != sum)
			return err_at(e, at, "bad member header checksum");
		if (memcmp(h + H_MAGIC, "ustar", 5))
			return err_at(e, at, "not a ustar member header");
		uint64_t size;
		if (!field_num(h + H_SIZE, 12, &size))
			return err_at(e, at, "bad member size");
		char type = (char)h[H_TYPE];
		if (type == 'x' || type == 'g') {
			if (size > TAR_PAX_MAX)
				return err_at(e, at, "pax header of %llu bytes (at most %u)",
					      (unsigned long long)size, TAR_PAX_MAX);
			if (!t->pax)
				t->pax = xmalloc(TAR_PAX_MAX);
			char *pax = t->pax;
			if ((rc = get(t, pax, (size_t)size, e)) || (rc = skip(t, (TAR_BLOCK - size % TAR_BLOCK) % TAR_BLOCK, e)))
				return rc;
			if (type == 'x' &&
			    (rc = pax_parse(pax, (size_t)size, at, m, &has_path, &has_link, &has_size, e)))
				return rc;
			if (has_size)
				pax_size = m->size;
			continue;
		}
		m->off = at;
		if (!has_path) {
			char prefix[156], name[NAME_LEN + 1];
			field_str(prefix, h + H_PREFIX, 155);
			field_str(name, h + H_NAME, NAME_LEN);
			snprintf(m->name, sizeof m->name, "%s%s%s", prefix, *prefix ? "/" : "", name);
		}
		if (!has_link)
			field_str(m->link, h + H_LINK, NAME_LEN);
		if (has_size)
			size = pax_size;
		m->size = 0;
		if (!m->name[0])
			return err_at(e, at, "a member without a name");
		if (type == '0' || type == 0) {
			m->type = TAR_FILE;
			if (size > t->max_size)
				return err_at(e, at, "member '%s' of %llu bytes (at most %llu)", m->name,
					      (unsigned long long)size, (unsigned long long)t->max_size);
			m->size = size;
			t->left = size;
			t->pad = (TAR_BLOCK - size % TAR_BLOCK) % TAR_BLOCK;
		} else if (type == '5') {
			m->type = TAR_DIR;
		} else if (type == '2') {
			m->type = TAR_SYMLINK;
			if (!m->link[0])
				return err_at(e, at, "symbolic link '%s' without a target", m->name);
		} else {
			return err_at(e, at, "member '%s' of type '%c' (files, directories and "
					     "symbolic links only)", m->name, type >= 32 && type < 127 ? type : '?');
		}
		if (m->type != TAR_FILE && size) {
			/* a size on a link or directory: data to skip */
			if (size > t->max_size)
				return err_at(e, at, "bad member size");
			t->left = size;
			t->pad = (TAR_BLOCK - size % TAR_BLOCK) % TAR_BLOCK;
		}
		return 1;
	}
}

int64_t tar_r_data(struct tar_r *t, void *p, size_t n, struct err *e)
{
	if (n > t->left)
		n = (size_t)t->left;
	if (!n)
		return 0;
	int rc = get(t, p, n, e);
	if (rc)
		return rc;
	t->left -= n;
	return (int64_t)n;
}

void tar_r_release(struct tar_r *t)
{
	free(t->pax);
	t->pax = NULL;
}
