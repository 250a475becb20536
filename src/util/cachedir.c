/* cachedir.c: see cachedir.h. */
#include "util/cachedir.h"
#include "util/sys.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CACHEDIR_MAX_FILES 100000

/* Set once by the command line before any thread runs; read only after. */
static struct cachedir_config config = { .off = true };

void cachedir_configure(const struct cachedir_config *c)
{
	struct cachedir_config old = config;
	config = *c;
	config.xdg_cache_home = c->xdg_cache_home ? xstrdup(c->xdg_cache_home) : NULL;
	config.home = c->home ? xstrdup(c->home) : NULL;
	free((char *)old.xdg_cache_home);
	free((char *)old.home);
}

const struct cachedir_config *cachedir_config(void)
{
	return &config;
}

bool cachedir_disabled(void)
{
	return config.off;
}

bool cachedir_path(const char *sub, char *out, size_t cap)
{
	const char *x = config.xdg_cache_home, *home = config.home;
	int k;
	if (x && x[0] == '/')
		k = snprintf(out, cap, "%s/scorch/%s", x, sub);
	else if (home && home[0] == '/')
		k = snprintf(out, cap, "%s/.cache/scorch/%s", home, sub);
	else
		return false;
	return k > 0 && (size_t)k < cap;
}

int cachedir_mkdirs(char *dir)
{
	for (char *s = dir + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		int rc = mkdir(dir, 0755);
		*s = '/';
		if (rc && errno != EEXIST)
			return -1;
	}
	return mkdir(dir, 0755) && errno != EEXIST ? -1 : 0;
}

int cachedir_create(char *dir, const char *path, char *tmp, size_t cap)
{
	static unsigned seq;
	if (cachedir_mkdirs(dir))
		return -1;
	int k = snprintf(tmp, cap, "%s.tmp.%ld.%u", path, (long)getpid(),
			 __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	if (k < 0 || (size_t)k >= cap)
		return -1;
	return open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
}

void cachedir_commit(int fd, bool ok, const char *tmp, const char *path)
{
	ok = !close(fd) && ok;
	if (!ok || rename(tmp, path))
		unlink(tmp);
	else
		cachedir_trim(path);
}

void cachedir_used(int fd)
{
	futimens(fd, NULL);
}

unsigned long long cachedir_max(void)
{
	return config.max;
}

struct entry {
	char *path;
	unsigned long long size;
	struct timespec used;
};

static int by_use(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
	return strcmp(x->path, y->path);
}

void cachedir_trim(const char *kept)
{
	char root[PATH_MAX];
	if (!cachedir_path("", root, sizeof root))
		return;
	unsigned long long max = cachedir_max(), total = 0;
	struct entry *e = NULL;
	size_t n = 0, cap = 0;
	/* the kinds' directories, one level of files each */
	DIR *top = opendir(root);
	for (struct dirent *k; top && (k = readdir(top));) {
		if (k->d_name[0] == '.')
			continue;
		char dir[PATH_MAX];
		if (snprintf(dir, sizeof dir, "%s%s", root, k->d_name) >= (int)sizeof dir)
			continue;
		DIR *d = opendir(dir);
		for (struct dirent *f; d && (f = readdir(d)) && n < CACHEDIR_MAX_FILES;) {
			if (f->d_name[0] == '.' || strstr(f->d_name, ".tmp."))
				continue;
			char p[PATH_MAX];
			struct stat st;
			if (snprintf(p, sizeof p, "%s/%s", dir, f->d_name) >= (int)sizeof p ||
			    lstat(p, &st) || !S_ISREG(st.st_mode))
				continue;
			total += (unsigned long long)st.st_size;
			if (kept && !strcmp(p, kept))
				continue;
			if (n == cap) {
				size_t nc = cap ? cap * 2 : 64;
				struct entry *ne = realloc(e, nc * sizeof *e);
				if (!ne)
					break;
				e = ne;
				cap = nc;
			}
			char *dup = strdup(p);
			if (!dup)
				break;
			e[n++] = (struct entry){ dup, (unsigned long long)st.st_size, st.st_mtim };
		}
		if (d)
			closedir(d);
	}
	if (top)
		closedir(top);
	if (total > max) {
		unsigned long long goal = max / 10 * 9;
		qsort(e, n, sizeof *e, by_use);
		for (size_t i = 0; i < n && total > goal; i++)
			if (!unlink(e[i].path))
				total -= e[i].size;
	}
	for (size_t i = 0; i < n; i++)
		free(e[i].path);
	free(e);
}

/*
 * The images mapped now, shared by every thread of the process: with -j N
 * each thread's resolver loads the same tables (kallsyms, symbol tables,
 * DWARF indexes, kept unwind rows), and N mappings of one file made N page
 * tables to fault in, each counted in the resident size again (`script -j
 * 4` on the 916 MB build recording: 40 MB of these images, 10 MB each).
 * Keyed by the file (device, inode, size): a cache file is never written
 * in place (a store renames a new file over it), so a file still mapped
 * keeps its inode and bytes; a newer one at the same path is another key.
 */
struct shared_map {
	dev_t dev;
	ino_t ino;
	size_t size;
	void *p;
	unsigned long refs;
	struct shared_map *next;
};

static pthread_mutex_t maps_mu = PTHREAD_MUTEX_INITIALIZER;
static struct shared_map *maps;

void *cachedir_map(const char *path, unsigned long long max, size_t *size, int *fdp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (unsigned long long)st.st_size > max) {
		close(fd);
		return NULL;
	}
	void *map = NULL;
	pthread_mutex_lock(&maps_mu);
	for (struct shared_map *m = maps; m && !map; m = m->next)
		if (m->dev == st.st_dev && m->ino == st.st_ino && m->size == (size_t)st.st_size) {
			m->refs++;
			map = m->p;
		}
	if (!map) {
		struct shared_map *m = malloc(sizeof *m);
		void *p = m ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
		if (p != MAP_FAILED) {
			*m = (struct shared_map){ .dev = st.st_dev, .ino = st.st_ino, .size = (size_t)st.st_size,
						  .p = p, .refs = 1, .next = maps };
			maps = m;
			map = p;
		} else {
			free(m);
		}
	}
	pthread_mutex_unlock(&maps_mu);
	if (!map) {
		close(fd);
		return NULL;
	}
	*size = (size_t)st.st_size;
	*fdp = fd;
	return map;
}

void cachedir_unmap(void *map)
{
	if (!map)
		return;
	struct shared_map *gone = NULL;
	pthread_mutex_lock(&maps_mu);
	for (struct shared_map **pp = &maps; *pp; pp = &(*pp)->next)
		if ((*pp)->p == map) {
			if (!--(*pp)->refs) {
				gone = *pp;
				*pp = gone->next;
			}
			break;
		}
	pthread_mutex_unlock(&maps_mu);
	if (gone) {
		munmap(gone->p, gone->size);
		free(gone);
	}
}

unsigned long cachedir_map_refs(const void *map)
{
	unsigned long refs = 0;
	pthread_mutex_lock(&maps_mu);
	for (struct shared_map *m = maps; m; m = m->next)
		if (m->p == map)
			refs = m->refs;
	pthread_mutex_unlock(&maps_mu);
	return refs;
}

void cachedir_store(char *dir, const char *path, const void *p, size_t size)
{
	char tmp[PATH_MAX + 128];
	int fd = cachedir_create(dir, path, tmp, sizeof tmp);
	if (fd >= 0)
		cachedir_commit(fd, !sys_write_all(fd, p, size, false), tmp, path);
}
