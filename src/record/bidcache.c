/* bidcache.c: writing and pruning perf's build-id cache; see bidcache.h. */
#include "record/bidcache.h"
#include "util/buf.h"
#include "util/cachedir.h"
#include "util/sys.h"
#include "util/xalloc.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KALLSYMS "[kernel.kallsyms]"
#define MAX_ENTRIES (1u << 22)

static void hexid(char out[41], const uint8_t *id, size_t n)
{
	static const char d[] = "0123456789abcdef";
	size_t i;
	for (i = 0; i < n && i < 20; i++) {
		out[2 * i] = d[id[i] >> 4];
		out[2 * i + 1] = d[id[i] & 15];
	}
	out[2 * i] = 0;
}

/* Copy from fd to a new file tmp; 0 or -errno. */
static int copy_fd(int in, const char *tmp, uint64_t *bytes)
{
	int out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0)
		return -errno;
	char buf[1 << 16];
	int rc = 0;
	for (;;) {
		ssize_t n = read(in, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			break;
		}
		if (!n)
			break;
		if ((rc = sys_write_all(out, buf, (size_t)n, false)))
			break;
		*bytes += (uint64_t)n;
	}
	if (close(out) && !rc)
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}

/* src as dir/name: a hard link when link is allowed and possible, else a
 * copy, under a temporary name renamed into place. 0 or -errno. */
static int put_file(const char *src, const char *dir, const char *name, bool link_ok,
		    uint64_t *bytes)
{
	char tmp[PATH_MAX], dst[PATH_MAX];
	if ((size_t)snprintf(dst, sizeof dst, "%s/%s", dir, name) >= sizeof dst ||
	    (size_t)snprintf(tmp, sizeof tmp, "%s/.%s.tmp.%ld", dir, name, (long)getpid()) >=
		    sizeof tmp)
		return -ENAMETOOLONG;
	unlink(tmp);
	struct stat st;
	if (link_ok && !link(src, tmp) && !stat(tmp, &st)) {
		*bytes += (uint64_t)st.st_size;
	} else {
		int in = open(src, O_RDONLY | O_CLOEXEC);
		if (in < 0)
			return -errno;
		int rc = copy_fd(in, tmp, bytes);
		close(in);
		if (rc)
			return rc;
	}
	if (rename(tmp, dst)) {
		int rc = -errno;
		unlink(tmp);
		return rc;
	}
	return 0;
}

/* /proc/kallsyms shows real addresses (not all zeros: kptr_restrict). */
static bool kallsyms_readable(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	if (!f)
		return false;
	char line[256];
	bool real = false;
	for (int i = 0; i < 64 && !real && fgets(line, sizeof line, f); i++)
		real = strtoull(line, NULL, 16) != 0;
	fclose(f);
	return real;
}

/* dir/.build-id/XX/REST -> ../../REL/HEX */
static int put_link(const char *dir, const char *hex, const char *rel)
{
	char ldir[PATH_MAX], lnk[PATH_MAX], tmp[PATH_MAX + 32], target[PATH_MAX];
	if ((size_t)snprintf(ldir, sizeof ldir, "%s/.build-id/%.2s", dir, hex) >= sizeof ldir ||
	    (size_t)snprintf(lnk, sizeof lnk, "%s/%s", ldir, hex + 2) >= sizeof lnk ||
	    (size_t)snprintf(target, sizeof target, "../../%s/%s", rel, hex) >= sizeof target)
		return -ENAMETOOLONG;
	char cur[PATH_MAX];
	ssize_t n = readlink(lnk, cur, sizeof cur - 1);
	if (n >= 0) {
		cur[n] = 0;
		if (!strcmp(cur, target))
			return 0;
	}
	if (cachedir_mkdirs(ldir))
		return -errno;
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", lnk, (long)getpid());
	unlink(tmp);
	if (symlink(target, tmp))
		return -errno;
	if (rename(tmp, lnk)) {
		int rc = -errno;
		unlink(tmp);
		return rc;
	}
	return 0;
}

/* ---- the kernel's symbols, read while the workload runs ---------------- */

#define KALLSYMS_MAX (256u << 20)

struct bidcache_kallsyms {
	pthread_t thread;
	bool joined, taken;
	char hex[41];
	char edir[PATH_MAX];     /* DIR/[kernel.kallsyms]/HEX */
	char tmp[PATH_MAX + 32]; /* the copy there, under a temporary name */
	uint8_t *data;
	size_t len;
	int rc;
};

/* Real addresses (not all zeros: kptr_restrict) in the first lines. */
static bool real_addresses(const uint8_t *data, size_t len)
{
	const char *p = (const char *)data, *end = p + len;
	for (int i = 0; i < 64 && p < end; i++) {
		if (strtoull(p, NULL, 16) != 0)
			return true;
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;
		p = nl + 1;
	}
	return false;
}

/* The copy written into its entry's directory under a temporary name;
 * renamed into place at the end when the recording hit the kernel. */
static int put_tmp(struct bidcache_kallsyms *k)
{
	if (cachedir_mkdirs(k->edir))
		return -errno;
	unlink(k->tmp);
	int out = open(k->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0)
		return -errno;
	int rc = sys_write_all(out, k->data, k->len, false);
	if (close(out) && !rc)
		rc = -errno;
	if (rc)
		unlink(k->tmp);
	return rc;
}

static void *read_kallsyms(void *arg)
{
	struct bidcache_kallsyms *k = arg;
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		k->rc = -errno;
		return NULL;
	}
	size_t cap = 0;
	for (;;) {
		if (k->len == cap) {
			if (cap >= KALLSYMS_MAX) {
				k->rc = -EFBIG;
				break;
			}
			cap = cap ? cap * 2 : 1u << 20;
			k->data = xrealloc(k->data, cap);
		}
		ssize_t n = read(fd, k->data + k->len, cap - k->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			k->rc = -errno;
			break;
		}
		if (!n)
			break;
		k->len += (size_t)n;
	}
	close(fd);
	if (!k->rc && !real_addresses(k->data, k->len))
		k->rc = -EACCES;
	if (!k->rc)
		k->rc = put_tmp(k);
	free(k->data);
	k->data = NULL;
	return NULL;
}

struct bidcache_kallsyms *bidcache_kallsyms_start(const char *dir, const uint8_t *id, size_t n)
{
	char hex[41], file[PATH_MAX];
	hexid(hex, id, n);
	if (!n || (size_t)snprintf(file, sizeof file, "%s/%s/%s/kallsyms", dir, KALLSYMS, hex) >= sizeof file ||
	    !access(file, F_OK))
		return NULL;
	struct bidcache_kallsyms *k = xcalloc(1, sizeof(*k));
	memcpy(k->hex, hex, sizeof hex);
	if ((size_t)snprintf(k->edir, sizeof k->edir, "%s/%s/%s", dir, KALLSYMS, hex) >= sizeof k->edir ||
	    (size_t)snprintf(k->tmp, sizeof k->tmp, "%s/.kallsyms.tmp.%ld", k->edir, (long)getpid()) >=
		    sizeof k->tmp) {
		free(k);
		return NULL;
	}
	/* the thread takes no signal: they stay the recorder's */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&k->thread, NULL, read_kallsyms, k);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		free(k);
		return NULL;
	}
	return k;
}

static void ks_join(struct bidcache_kallsyms *k)
{
	if (!k->joined)
		pthread_join(k->thread, NULL);
	k->joined = true;
}

void bidcache_kallsyms_free(struct bidcache_kallsyms *k)
{
	if (!k)
		return;
	ks_join(k);
	if (!k->rc && !k->taken)
		unlink(k->tmp);
	free(k);
}

/* The early copy, when it is this kernel's and was written whole. */
static bool ks_take(struct bidcache_kallsyms *k, const char *hex)
{
	if (strcmp(k->hex, hex))
		return false;
	ks_join(k);
	return !k->rc;
}

static int add_one(const char *dir, const struct perf_build_id *b, struct bidcache_kallsyms *ks,
		   struct bidcache_stats *st)
{
	bool kernel = !strcmp(b->filename, KALLSYMS);
	if (!kernel && !sys_plain_path(b->filename))
		return 0; /* a module ("[name]"), or not a path */
	char hex[41], edir[PATH_MAX], file[PATH_MAX + 16];
	hexid(hex, b->id, b->size);
	const char *rel = kernel ? KALLSYMS : b->filename + 1;
	const char *base = kernel ? "kallsyms" : "elf";
	if ((size_t)snprintf(edir, sizeof edir, "%s/%s/%s", dir, rel, hex) >= sizeof edir)
		return -ENAMETOOLONG;
	snprintf(file, sizeof file, "%s/%s", edir, base);
	int rc;
	if (!access(file, F_OK)) {
		utimensat(AT_FDCWD, edir, NULL, 0);
		st->present++;
		return put_link(dir, hex, rel);
	}
	bool early = kernel && ks && ks_take(ks, hex);
	if (kernel && !early && !kallsyms_readable())
		return -EACCES;
	if (cachedir_mkdirs(edir))
		return -errno;
	if (early) {
		snprintf(file, sizeof file, "%s/%s", edir, base);
		rc = rename(ks->tmp, file) ? -errno : 0;
		if (!rc) {
			ks->taken = true;
			st->bytes += ks->len;
		}
	} else if (kernel) {
		rc = put_file("/proc/kallsyms", edir, base, false, &st->bytes);
	} else {
		rc = put_file(b->filename, edir, base, true, &st->bytes);
		char dbg[PATH_MAX];
		snprintf(dbg, sizeof dbg, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
		if (!rc && !access(dbg, R_OK))
			put_file(dbg, edir, "debug", true, &st->bytes);
	}
	if (!rc)
		rc = put_link(dir, hex, rel);
	if (!rc)
		st->added++;
	return rc;
}

int bidcache_add(const char *dir, const struct perf_build_id *l, size_t n,
		 struct bidcache_kallsyms *ks, struct bidcache_stats *st)
{
	char d[PATH_MAX];
	if ((size_t)snprintf(d, sizeof d, "%s", dir) >= sizeof d)
		return -ENAMETOOLONG;
	if (cachedir_mkdirs(d))
		return -errno;
	for (size_t i = 0; i < n; i++)
		if (l[i].size && add_one(dir, &l[i], ks, st))
			st->failed++;
	return 0;
}

/* ---- walking the cache --------------------------------------------------- */

struct entry {
	char *link;     /* dir/.build-id/XX/REST */
	char *path;     /* what it points to: an entry directory (or an old-style file) */
	char hex[41];
	uint64_t bytes;
	int64_t mtime;
	bool dangling;
};

struct walk {
	struct entry *e;
	size_t nr, cap;
};

static int64_t mtime_ns(const struct stat *s)
{
	return (int64_t)s->st_mtim.tv_sec * 1000000000 + s->st_mtim.tv_nsec;
}

static uint64_t dir_bytes(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return 0;
	uint64_t sum = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		struct stat s;
		if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (!fstatat(dirfd(d), de->d_name, &s, AT_SYMLINK_NOFOLLOW) && S_ISREG(s.st_mode))
			sum += (uint64_t)s.st_size;
	}
	closedir(d);
	return sum;
}

/* One .build-id link: where it points, and that entry's size and time. */
static void walk_link(struct walk *w, const char *dir, const char *xx, const char *rest)
{
	char lnk[PATH_MAX], target[PATH_MAX], path[PATH_MAX * 2];
	if ((size_t)snprintf(lnk, sizeof lnk, "%s/.build-id/%s/%s", dir, xx, rest) >= sizeof lnk)
		return;
	ssize_t n = readlink(lnk, target, sizeof target - 1);
	if (n <= 0)
		return;
	target[n] = 0;
	/* only links into this cache: ../../REL with no ".." after the prefix */
	if (strncmp(target, "../../", 6) || strstr(target + 6, "..") ||
	    strlen(xx) + strlen(rest) > 40)
		return;
	if (ARRAY_GROW(w->e, w->cap, w->nr + 1, MAX_ENTRIES))
		return;
	snprintf(path, sizeof path, "%s/%s", dir, target + 6);
	struct entry *e = &w->e[w->nr++];
	memset(e, 0, sizeof *e);
	e->link = xstrdup(lnk);
	e->path = xstrdup(path);
	if ((size_t)snprintf(e->hex, sizeof e->hex, "%s%s", xx, rest) >= sizeof e->hex)
		e->hex[0] = 0; /* cannot be: the lengths were checked above */
	struct stat s;
	if (lstat(path, &s)) {
		e->dangling = true;
		return;
	}
	e->mtime = mtime_ns(&s);
	e->bytes = S_ISDIR(s.st_mode) ? dir_bytes(path) : S_ISREG(s.st_mode) ? (uint64_t)s.st_size : 0;
}

static int walk(const char *dir, struct walk *w)
{
	char bdir[PATH_MAX];
	if ((size_t)snprintf(bdir, sizeof bdir, "%s/.build-id", dir) >= sizeof bdir)
		return -ENAMETOOLONG;
	DIR *top = opendir(bdir);
	if (!top)
		return errno == ENOENT ? 0 : -errno;
	struct dirent *de;
	while ((de = readdir(top))) {
		if (strlen(de->d_name) != 2 || de->d_name[0] == '.')
			continue;
		char sub[PATH_MAX + 4];
		if ((size_t)snprintf(sub, sizeof sub, "%s/%s", bdir, de->d_name) >= sizeof sub)
			continue;
		DIR *d = opendir(sub);
		if (!d)
			continue;
		struct dirent *le;
		while ((le = readdir(d)))
			if (le->d_name[0] != '.' && !strstr(le->d_name, ".tmp."))
				walk_link(w, dir, de->d_name, le->d_name);
		closedir(d);
	}
	closedir(top);
	return 0;
}

static void walk_release(struct walk *w)
{
	for (size_t i = 0; i < w->nr; i++) {
		free(w->e[i].link);
		free(w->e[i].path);
	}
	free(w->e);
}

static int by_hex(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->hex, ((const struct entry *)b)->hex);
}

static int by_age(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	return x->mtime < y->mtime ? -1 : x->mtime > y->mtime ? 1 : strcmp(x->hex, y->hex);
}

/* Remove path's now empty parent directories, up to (not including) dir. */
static void rmdir_up(const char *dir, char *path)
{
	size_t keep = strlen(dir);
	for (;;) {
		char *slash = strrchr(path, '/');
		if (!slash || (size_t)(slash - path) <= keep)
			return;
		*slash = 0;
		if (rmdir(path))
			return;
	}
}

static void remove_entry(const char *dir, struct entry *e)
{
	struct stat s;
	if (!lstat(e->path, &s) && S_ISDIR(s.st_mode)) {
		DIR *d = opendir(e->path);
		if (d) {
			struct dirent *de;
			while ((de = readdir(d)))
				if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
					unlinkat(dirfd(d), de->d_name, 0);
			closedir(d);
		}
		rmdir(e->path);
	} else {
		unlink(e->path);
	}
	rmdir_up(dir, e->path);
	unlink(e->link);
	rmdir_up(dir, e->link);
}

int bidcache_prune(const char *dir, uint64_t max_bytes, struct bidcache_stats *st)
{
	struct walk w = { 0 };
	int rc = walk(dir, &w);
	uint64_t total = 0;
	for (size_t i = 0; i < w.nr; i++) {
		if (w.e[i].dangling) {
			unlink(w.e[i].link);
			rmdir_up(dir, w.e[i].link);
		}
		total += w.e[i].bytes;
	}
	if (total > max_bytes) {
		qsort(w.e, w.nr, sizeof *w.e, by_age);
		for (size_t i = 0; i < w.nr && total > max_bytes; i++) {
			if (w.e[i].dangling)
				continue;
			remove_entry(dir, &w.e[i]);
			total -= w.e[i].bytes;
			st->removed++;
		}
	}
	st->total = total;
	walk_release(&w);
	return rc;
}

int bidcache_list(const char *dir, FILE *out)
{
	struct walk w = { 0 };
	int rc = walk(dir, &w);
	if (w.nr)
		qsort(w.e, w.nr, sizeof *w.e, by_hex);
	size_t dl = strlen(dir);
	for (size_t i = 0; i < w.nr; i++) {
		struct entry *e = &w.e[i];
		if (e->dangling)
			continue;
		/* path is DIR/REL/HEX: print /REL ([kernel.kallsyms] as it is) */
		const char *rel = e->path + dl + 1;
		size_t rl = strlen(rel), hl = strlen(e->hex);
		if (rl > hl + 1 && !strcmp(rel + rl - hl, e->hex))
			rl -= hl + 1;
		fprintf(out, "%s %s%.*s\n", e->hex, rel[0] == '[' ? "" : "/", (int)rl, rel);
	}
	walk_release(&w);
	return rc;
}
