/* unpack.c: reading an archive into a private directory; see archive.h. */
#include "archive/archive.h"
#include "archive/tar.h"
#include "util/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define ZSTD_MAGIC 0xFD2FB528u
#define IN_CHUNK (1u << 17)

int archive_sniff(int fd)
{
	uint8_t m[4];
	ssize_t n = pread(fd, m, sizeof m, 0);
	if (n < 0)
		return -errno;
	return n == 4 && ((uint32_t)m[0] | (uint32_t)m[1] << 8 | (uint32_t)m[2] << 16 | (uint32_t)m[3] << 24) ==
				 ZSTD_MAGIC;
}

/* ---- the zstd stream, read as the tar reader asks ---------------------- */

struct zin {
	int fd;
	ZSTD_DStream *z;
	uint8_t *ib;
	size_t ib_len, ib_pos;
	uint64_t ib_off;  /* file offset of ib[0] */
	bool eof;
	size_t hint;      /* ZSTD_decompressStream's last return: 0 at a frame's end */
	bool started;
	uint8_t *ob;
	size_t ob_len, ob_pos, ob_cap;
};

static int64_t zread(void *ctx, void *p, size_t n, struct err *e)
{
	struct zin *z = ctx;
	size_t got = 0;
	while (got < n) {
		if (z->ob_pos < z->ob_len) {
			size_t k = z->ob_len - z->ob_pos;
			if (k > n - got)
				k = n - got;
			memcpy((uint8_t *)p + got, z->ob + z->ob_pos, k);
			z->ob_pos += k;
			got += k;
			continue;
		}
		if (z->ib_pos == z->ib_len && !z->eof) {
			z->ib_off += z->ib_len;
			ssize_t k;
			do
				k = pread(z->fd, z->ib, IN_CHUNK, (off_t)z->ib_off);
			while (k < 0 && errno == EINTR);
			if (k < 0)
				return err_set(e, -errno, "cannot read: %s", strerror(errno));
			z->ib_len = (size_t)k;
			z->ib_pos = 0;
			z->eof = k == 0;
		}
		if (z->ib_pos == z->ib_len) {
			if (z->started && z->hint)
				return err_at(e, z->ib_off + z->ib_len,
					      "truncated: the compressed data ends inside its frame");
			break;
		}
		ZSTD_inBuffer in = { z->ib, z->ib_len, z->ib_pos };
		ZSTD_outBuffer out = { z->ob, z->ob_cap, 0 };
		size_t r = ZSTD_decompressStream(z->z, &out, &in);
		if (ZSTD_isError(r))
			return err_at(e, z->ib_off + in.pos, "damaged: zstd: %s", ZSTD_getErrorName(r));
		z->started = true;
		z->hint = r;
		z->ib_pos = in.pos;
		z->ob_len = out.pos;
		z->ob_pos = 0;
	}
	return (int64_t)got;
}

/* ---- member names -------------------------------------------------------- */

/* A name that stays inside the directory: relative, its parts neither
 * empty nor "." nor "..", none longer than NAME_MAX. A trailing '/' (a
 * directory member) is dropped. */
static bool plain_rel(char *s)
{
	size_t n = strlen(s);
	while (n > 1 && s[n - 1] == '/')
		s[--n] = 0;
	if (!n || s[0] == '/')
		return false;
	for (const char *p = s;;) {
		size_t l = strcspn(p, "/");
		if (!l || l > NAME_MAX || (l == 1 && p[0] == '.') || (l == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (!p[l])
			return true;
		p += l + 1;
	}
}

static bool hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* .build-id/XX/REST -> ../../PATH/HEX: the only links an archive holds. */
static bool build_id_link(const char *name, const char *target)
{
	size_t rest = strlen(name) - (sizeof ".build-id/XX/" - 1);
	if (strncmp(name, ".build-id/", 10) || strlen(name) < 14 || !hex(name + 10, 2) || name[12] != '/' ||
	    rest > 38 || !hex(name + 13, rest))
		return false;
	if (strncmp(target, "../../", 6) || strlen(target) >= TAR_NAME_MAX)
		return false;
	char t[TAR_NAME_MAX];
	snprintf(t, sizeof t, "%s", target + 6);
	return plain_rel(t) && strncmp(t, ".build-id", 9);
}

/* The directory that holds name's last part, made as needed, each part
 * opened without following a link; *last: that part. The fd, or a
 * negative code. */
static int parent_dir(int root, const char *name, const char **last)
{
	int fd = dup(root);
	if (fd < 0)
		return -errno;
	const char *p = name;
	for (;;) {
		size_t l = strcspn(p, "/");
		if (!p[l]) {
			*last = p;
			return fd;
		}
		char part[NAME_MAX + 1];
		memcpy(part, p, l);
		part[l] = 0;
		if (mkdirat(fd, part, 0755) && errno != EEXIST) {
			int rc = -errno;
			close(fd);
			return rc;
		}
		int nfd = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int rc = -errno;
		close(fd);
		if (nfd < 0)
			return rc == -ELOOP ? -ENOTDIR : rc;
		fd = nfd;
		p += l + 1;
	}
}

/* ---- unpacking --------------------------------------------------------- */

struct unpack {
	struct tar_r t;
	int root;
	struct archive_in *a;
	struct err *e;
	uint8_t *buf;
};

static int member_err(struct unpack *u, const struct tar_member *m, int rc, const char *what)
{
	if (rc == -EEXIST)
		return err_at(u->e, m->off, "member '%s' appears twice", m->name);
	if (rc == -ENOTDIR)
		return err_at(u->e, m->off, "member '%s' goes through a file or a link", m->name);
	if (rc == -ENOSPC || rc == -EDQUOT || rc == -EIO || rc == -EROFS || rc == -EACCES)
		return err_set(u->e, rc, "unpacking '%s': %s: %s", m->name, what, strerror(-rc));
	return err_at(u->e, m->off, "member '%s': %s: %s", m->name, what, strerror(-rc));
}

static int put_file(struct unpack *u, const struct tar_member *m)
{
	const char *last;
	int dfd = parent_dir(u->root, m->name, &last);
	if (dfd < 0)
		return member_err(u, m, dfd, "cannot make its directory");
	int fd = openat(dfd, last, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	int rc = fd < 0 ? -errno : 0;
	close(dfd);
	if (rc)
		return member_err(u, m, rc, "cannot create it");
	for (;;) {
		int64_t k = tar_r_data(&u->t, u->buf, IN_CHUNK, u->e);
		if (k <= 0) {
			rc = (int)k;
			break;
		}
		for (int64_t w = 0; w < k;) {
			ssize_t n = write(fd, u->buf + w, (size_t)(k - w));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				rc = member_err(u, m, n < 0 ? -errno : -EIO, "writing");
				break;
			}
			w += n;
		}
		if (rc)
			break;
		u->a->bytes += (uint64_t)k;
	}
	if (close(fd) && !rc)
		rc = member_err(u, m, -errno, "writing");
	return rc;
}

/* "HEX PATH": a build id the recording lacks (a malformed line is
 * dropped: the DSO is then read as the recording names it). */
static void build_id_line(struct archive_in *a, const char *s)
{
	size_t n = strcspn(s, " ");
	const char *path = s + n + 1;
	if (!s[n] || n < 2 || n > 40 || n % 2 || !hex(s, n) || path[0] != '/' ||
	    a->nr_build_ids >= ARCHIVE_MAX_MEMBERS)
		return;
	struct perf_build_id *b = xrealloc(a->build_ids, (a->nr_build_ids + 1) * sizeof *b);
	a->build_ids = b;
	b += a->nr_build_ids++;
	memset(b, 0, sizeof *b);
	b->pid = -1;
	b->size = (uint8_t)(n / 2);
	for (size_t i = 0; i < n / 2; i++) {
		char d[3] = { s[2 * i], s[2 * i + 1], 0 };
		b->id[i] = (uint8_t)strtoul(d, NULL, 16);
	}
	b->filename = xstrdup(path);
}

/* The manifest: its first line, then "missing HEX PATH" lines. */
static int manifest(struct unpack *u, const struct tar_member *m)
{
	if (m->type != TAR_FILE || strcmp(m->name, ARCHIVE_MANIFEST))
		return err_at(u->e, m->off, "not a scorch archive (its first member is '%s', not '%s')", m->name,
			      ARCHIVE_MANIFEST);
	if (m->size > ARCHIVE_MAX_MANIFEST)
		return err_at(u->e, m->off, "its list of %llu bytes is too long (at most %u)",
			      (unsigned long long)m->size, ARCHIVE_MAX_MANIFEST);
	char *s = xmalloc((size_t)m->size + 1);
	int64_t k = tar_r_data(&u->t, s, (size_t)m->size, u->e);
	if (k < 0) {
		free(s);
		return (int)k;
	}
	s[k] = 0;
	size_t first = sizeof ARCHIVE_FIRST_LINE - 1;
	if ((size_t)k < first || memcmp(s, ARCHIVE_FIRST_LINE, first)) {
		free(s);
		return err_at(u->e, m->off, "not a scorch archive of a version this scorch reads");
	}
	struct archive_in *a = u->a;
	for (char *line = s + first, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			break;
		*nl = 0;
		if (!strncmp(line, "buildid ", 8)) {
			build_id_line(a, line + 8);
			continue;
		}
		if (strncmp(line, "missing ", 8))
			continue;
		const char *path = strchr(line + 8, ' ');
		path = path ? path + 1 : line + 8;
		size_t used = strlen(a->missing);
		if (!a->nr_missing++)
			snprintf(a->missing, sizeof a->missing, "%s", path);
		else if (used + strlen(path) + 2 < sizeof a->missing - 8)
			snprintf(a->missing + used, sizeof a->missing - used, ", %s", path);
		else if (!strstr(a->missing, ", ..."))
			snprintf(a->missing + used, sizeof a->missing - used, ", ...");
	}
	free(s);
	return 0;
}

static int unpack_all(struct unpack *u)
{
	struct tar_member *m = xmalloc(sizeof *m);
	bool data = false, first = true;
	int rc;
	while ((rc = tar_r_next(&u->t, m, u->e)) > 0) {
		if (first) {
			first = false;
			if ((rc = manifest(u, m)))
				break;
			continue;
		}
		u->a->members++;
		rc = 0;
		if (!plain_rel(m->name)) {
			rc = err_at(u->e, m->off, "member '%s': not a plain relative name", m->name);
			break;
		}
		if (m->type == TAR_FILE) {
			data |= !strcmp(m->name, ARCHIVE_DATA);
			rc = put_file(u, m);
		} else if (m->type == TAR_DIR) {
			const char *last;
			int dfd = parent_dir(u->root, m->name, &last);
			if (dfd < 0 || (mkdirat(dfd, last, 0755) && errno != EEXIST))
				rc = member_err(u, m, dfd < 0 ? dfd : -errno, "cannot make it");
			if (dfd >= 0)
				close(dfd);
		} else {
			if (!build_id_link(m->name, m->link)) {
				rc = err_at(u->e, m->off, "link '%s' -> '%s': not a .build-id link into the archive",
					    m->name, m->link);
				break;
			}
			const char *last;
			int dfd = parent_dir(u->root, m->name, &last);
			if (dfd < 0 || symlinkat(m->link, dfd, last))
				rc = member_err(u, m, dfd < 0 ? dfd : -errno, "cannot make the link");
			if (dfd >= 0)
				close(dfd);
		}
		if (rc)
			break;
	}
	if (!rc && first)
		rc = err_at(u->e, u->t.off, "an empty archive");
	else if (!rc && !data)
		rc = err_at(u->e, u->t.off, "no %s in the archive", ARCHIVE_DATA);
	if (!rc) {
		/* the rest of the stream: zstd checks the frame's checksum at its end */
		int64_t k;
		while ((k = zread(u->t.ctx, u->buf, IN_CHUNK, u->e)) > 0)
			;
		rc = (int)k;
	}
	free(m);
	return rc < 0 ? rc : 0;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	remove(p);
	return 0;
}

void archive_in_remove(struct archive_in *a)
{
	if (a->dir)
		nftw(a->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(a->dir);
	free(a->data);
	a->dir = a->data = NULL;
	for (uint32_t i = 0; i < a->nr_build_ids; i++)
		free(a->build_ids[i].filename);
	free(a->build_ids);
	a->build_ids = NULL;
	a->nr_build_ids = 0;
}

int archive_unpack(int fd, const char *tmpbase, struct archive_in *a, struct err *e)
{
	memset(a, 0, sizeof *a);
	char tmpl[4096];
	if ((size_t)snprintf(tmpl, sizeof tmpl, "%s/scorch-archive.XXXXXX", tmpbase ? tmpbase : "/tmp") >=
	    sizeof tmpl)
		return err_set(e, -ENAMETOOLONG, "the temporary directory's name is too long");
	if (!mkdtemp(tmpl))
		return err_set(e, -errno, "cannot make a directory in %s: %s", tmpbase ? tmpbase : "/tmp",
			       strerror(errno));
	a->dir = xstrdup(tmpl);
	struct zin z = { .fd = fd, .ib = xmalloc(IN_CHUNK), .ob_cap = ZSTD_DStreamOutSize() };
	z.ob = xmalloc(z.ob_cap);
	z.z = ZSTD_createDStream();
	struct unpack u = { .t = { .read = zread, .ctx = &z, .max_members = ARCHIVE_MAX_MEMBERS,
				   .max_size = ARCHIVE_MAX_MEMBER },
			    .a = a, .e = e, .buf = xmalloc(IN_CHUNK) };
	int rc;
	u.root = open(a->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!z.z)
		rc = err_set(e, -ENOMEM, "cannot make a zstd stream");
	else if (u.root < 0)
		rc = err_set(e, -errno, "%s: %s", a->dir, strerror(errno));
	else if (ZSTD_isError(ZSTD_DCtx_setParameter(z.z, ZSTD_d_windowLogMax, 27)))
		rc = err_set(e, -EINVAL, "cannot set up zstd");
	else
		rc = unpack_all(&u);
	if (u.root >= 0)
		close(u.root);
	ZSTD_freeDStream(z.z);
	free(z.ib);
	free(z.ob);
	free(u.buf);
	tar_r_release(&u.t);
	if (rc) {
		archive_in_remove(a);
		return rc;
	}
	size_t n = strlen(a->dir) + sizeof "/" ARCHIVE_DATA;
	a->data = xmalloc(n);
	snprintf(a->data, n, "%s/%s", a->dir, ARCHIVE_DATA);
	return 0;
}
