/*
 * debugfile.c: where a DSO's files are (see debugfile.h for the order).
 *
 * Every candidate is checked before it is used: a binary must carry the
 * recorded build id (or none at all), a debug file the build id or the
 * .gnu_debuglink CRC, and must have a .symtab or .debug_info. The first
 * match wins; the order is perf's where perf has one, the user's paths
 * first. debuginfod is asked last among the local places and only when
 * DEBUGINFOD_URLS is set.
 */
#include "analyze/symbols/debugfile.h"
#include "analyze/symbols/elffile.h"
#include "util/xalloc.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#ifdef HAVE_LZMA
#include <lzma.h>
#endif
#ifdef HAVE_DEBUGINFOD
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#endif

void debugfile_init(struct debugfile *f, const struct symbols_config *c)
{
	memset(f, 0, sizeof(*f));
	f->sysroot = c->sysroot;
	f->debug_paths = c->debug_paths;
	f->extra_paths = c->extra_paths;
	f->app_path = c->app_path;
	f->debuginfod = c->debuginfod;
	if (c->buildid_dir)
		f->buildid_dir = xstrdup(c->buildid_dir);
}

bool debugfile_kallsyms(const struct debugfile *f, const uint8_t *id, size_t n, char *out,
			size_t cap)
{
	char hex[41];
	elffile_hexid(hex, id, n);
	if (!f->buildid_dir)
		return false;
	snprintf(out, cap, "%s/[kernel.kallsyms]/%s/kallsyms", f->buildid_dir, hex);
	return elffile_exists(out);
}

static uint32_t file_crc(int fd)
{
	uint32_t crc = 0;
	char buf[65536];
	ssize_t n;
	off_t off = 0;
	while ((n = pread(fd, buf, sizeof buf, off)) > 0) {
		crc = (uint32_t)crc32(crc, (const Bytef *)buf, (uInt)n);
		off += n;
	}
	return crc;
}

/* A candidate file (fd, e) opened at p: kept in *path, *fdp, *elfp when
 * ok, else closed. Returns ok. */
static bool keep(bool ok, const char *p, int fd, Elf *e, char **path, int *fdp, Elf **elfp)
{
	if (!ok) {
		elf_end(e);
		close(fd);
		return false;
	}
	*path = xstrdup(p);
	*fdp = fd;
	*elfp = e;
	return true;
}

/* Try one candidate debug file: must have the build id (when known) or the
 * debuglink CRC. */
static bool try_debug(struct dso *d, const char *p, bool check_crc, uint32_t crc)
{
	if (!elffile_exists(p) || (d->path && !strcmp(p, d->path)))
		return false;
	int fd;
	Elf *e = elffile_open(p, &fd);
	if (!e)
		return false;
	bool ok = true;
	uint8_t id[20];
	size_t n;
	if (d->build_id_size && elffile_build_id(e, id, &n))
		ok = n >= d->build_id_size && !memcmp(id, d->build_id, d->build_id_size);
	else if (check_crc)
		ok = file_crc(fd) == crc;
	GElf_Shdr sh;
	if (ok && !elffile_scn(e, SHT_SYMTAB, NULL, &sh) && !elffile_scn(e, 0, ".debug_info", &sh))
		ok = false;
	return keep(ok, p, fd, e, &d->debug_path, &d->debug_fd, &d->debug_elf);
}

/* fn(ctx, dir) for each dir of a ':'-separated list until one returns
 * true; whether one did. */
static bool each_path(const char *list, bool (*fn)(void *, const char *), void *ctx)
{
	if (!list)
		return false;
	const char *p = list;
	while (*p) {
		const char *c = strchr(p, ':');
		size_t l = c ? (size_t)(c - p) : strlen(p);
		if (l) {
			char dir[PATH_MAX];
			if (l < sizeof dir) {
				memcpy(dir, p, l);
				dir[l] = 0;
				if (fn(ctx, dir))
					return true;
			}
		}
		p += l;
		if (*p == ':')
			p++;
	}
	return false;
}

struct dbg_search {
	struct dso *d;
	const char *link;
	const char *origdir;
	uint32_t crc;
};

/* A --debug dir: build-id layout, then the debuglink name (directly, and
 * under the binary's own directory). */
static bool dbg_in_dir(void *ctx, const char *dir)
{
	struct dbg_search *ds = ctx;
	char p[PATH_MAX * 2];
	if (ds->d->build_id_size) {
		char hex[41];
		elffile_hexid(hex, ds->d->build_id, ds->d->build_id_size);
		snprintf(p, sizeof p, "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2);
		if (try_debug(ds->d, p, false, 0))
			return true;
	}
	if (!ds->link)
		return false;
	snprintf(p, sizeof p, "%s/%s", dir, ds->link);
	if (try_debug(ds->d, p, true, ds->crc))
		return true;
	snprintf(p, sizeof p, "%s%s/%s", dir, ds->origdir, ds->link);
	return try_debug(ds->d, p, true, ds->crc);
}

static bool try_binary(struct debugfile *f, struct dso *d, const char *p, bool *mismatch);

#ifdef HAVE_DEBUGINFOD
/*
 * libdebuginfod is loaded with dlopen, only when DEBUGINFOD_URLS is set:
 * linking it pulls in libcurl, gnutls, kerberos and LDAP, whose relocation
 * alone costs every scorch command ~15 ms at startup.
 */
struct dbgd_api {
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *);
	int (*find_executable)(debuginfod_client *, const unsigned char *, int, char **);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
};

static struct dbgd_api dbgd_api_fns;
static bool dbgd_api_ok;
static pthread_once_t dbgd_api_once = PTHREAD_ONCE_INIT;

static void dbgd_api_load(void)
{
	void *h = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return;
	struct dbgd_api *api = &dbgd_api_fns;
	api->begin = (debuginfod_client * (*)(void)) dlsym(h, "debuginfod_begin");
	api->end = (void (*)(debuginfod_client *))dlsym(h, "debuginfod_end");
	api->find_executable = (int (*)(debuginfod_client *, const unsigned char *, int, char **))dlsym(
		h, "debuginfod_find_executable");
	api->find_debuginfo = (int (*)(debuginfod_client *, const unsigned char *, int, char **))dlsym(
		h, "debuginfod_find_debuginfo");
	dbgd_api_ok = api->begin && api->end && api->find_executable && api->find_debuginfo;
}

/* The library's entry points, loaded once per process (resolvers of -j
 * threads may ask at the same time: pthread_once); NULL when unavailable.
 * The table is process-wide and read-only once loaded; each struct
 * debugfile has its own client. */
static const struct dbgd_api *dbgd_api(void)
{
	pthread_once(&dbgd_api_once, dbgd_api_load);
	return dbgd_api_ok ? &dbgd_api_fns : NULL;
}
#endif

/* Optional: ask debuginfod (only when symbols_config.debuginfod) for the
 * debug file or the executable of a build id; the client caches files. */
static bool debuginfod_fetch(struct debugfile *f, struct dso *d, bool executable)
{
#ifdef HAVE_DEBUGINFOD
	if (!f->debuginfod)
		return false;
	const struct dbgd_api *api = dbgd_api();
	if (!api)
		return false;
	if (!f->dbgd)
		f->dbgd = api->begin();
	if (!f->dbgd)
		return false;
	char *path = NULL;
	int fd = executable ? api->find_executable(f->dbgd, d->build_id, d->build_id_size, &path)
			    : api->find_debuginfo(f->dbgd, d->build_id, d->build_id_size, &path);
	if (fd < 0)
		return false;
	close(fd);
	bool mm = false;
	bool ok = path && (executable ? try_binary(f, d, path, &mm) : try_debug(d, path, false, 0));
	free(path);
	return ok;
#else
	(void)f;
	(void)d;
	(void)executable;
	return false;
#endif
}

void debugfile_find_debug(struct debugfile *f, struct dso *d)
{
	char p[PATH_MAX * 2];
	const char *sysroot = f->sysroot ? f->sysroot : "";
	struct dbg_search ds = { .d = d };
	GElf_Shdr sh;
	char origdir[PATH_MAX] = "";
	if (d->elf) {
		Elf_Scn *scn = elffile_scn(d->elf, 0, ".gnu_debuglink", &sh);
		Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
		if (data && data->d_size > 4) {
			const char *l = data->d_buf;
			size_t ln = strnlen(l, data->d_size);
			if (ln < data->d_size) {
				ds.link = l;
				size_t off = (ln + 4) & ~(size_t)3;
				if (off + 4 <= data->d_size)
					memcpy(&ds.crc, (const char *)data->d_buf + off, 4);
			}
		}
		const char *slash = d->path ? strrchr(d->path, '/') : NULL;
		if (slash && (size_t)(slash - d->path) < sizeof origdir) {
			memcpy(origdir, d->path, (size_t)(slash - d->path));
			origdir[slash - d->path] = 0;
		}
	}
	ds.origdir = origdir;
	/* --debug paths first (user's choice), then the standard places */
	if (each_path(f->debug_paths, dbg_in_dir, &ds))
		return;
	if (d->build_id_size) {
		char hex[41];
		elffile_hexid(hex, d->build_id, d->build_id_size);
		snprintf(p, sizeof p, "%s/usr/lib/debug/.build-id/%.2s/%s.debug", sysroot, hex, hex + 2);
		if (try_debug(d, p, false, 0))
			return;
		if (f->buildid_dir &&
		    snprintf(p, sizeof p, "%s/.build-id/%.2s/%s/debug", f->buildid_dir, hex, hex + 2) > 0 &&
		    try_debug(d, p, false, 0))
			return;
	}
	if (d->build_id_size && debuginfod_fetch(f, d, false))
		return;
	if (ds.link && d->path) {
		snprintf(p, sizeof p, "%s/%s", origdir, ds.link);
		if (try_debug(d, p, true, ds.crc))
			return;
		snprintf(p, sizeof p, "%s/.debug/%s", origdir, ds.link);
		if (try_debug(d, p, true, ds.crc))
			return;
		snprintf(p, sizeof p, "%s/usr/lib/debug%s/%s", sysroot, origdir, ds.link);
		if (try_debug(d, p, true, ds.crc))
			return;
	}
}

struct bin_search {
	struct debugfile *f;
	struct dso *d;
	const char *base;
};

static bool try_binary(struct debugfile *f, struct dso *d, const char *p, bool *mismatch)
{
	if (!elffile_exists(p))
		return false;
	int fd;
	Elf *e = elffile_open(p, &fd);
	if (!e)
		return false;
	bool ok = elffile_id_matches(e, d->build_id, d->build_id_size);
	if (!ok)
		*mismatch = true;
	return keep(ok, p, fd, e, &d->path, &d->fd, &d->elf);
}

/* --app / --extra dirs, by basename (a build id mismatch there is not
 * reported: the file may just be another program of the same name). */
static bool bin_in_dir(void *ctx, const char *dir)
{
	struct bin_search *bs = ctx;
	char p[PATH_MAX * 2];
	bool mm = false;
	snprintf(p, sizeof p, "%s/%s", dir, bs->base);
	return try_binary(bs->f, bs->d, p, &mm);
}

enum debugfile_result debugfile_find_binary(struct debugfile *f, struct dso *d)
{
	char p[PATH_MAX * 2];
	bool mismatch = false;
	const char *base = strrchr(d->name, '/');
	base = base ? base + 1 : d->name;
	struct bin_search bs = { .f = f, .d = d, .base = base };
	if (f->app_path && bin_in_dir(&bs, f->app_path))
		return DEBUGFILE_FOUND;
	snprintf(p, sizeof p, "%s%s", f->sysroot ? f->sysroot : "", d->name);
	if (try_binary(f, d, p, &mismatch))
		return DEBUGFILE_FOUND;
	if (d->build_id_size) {
		char hex[41];
		elffile_hexid(hex, d->build_id, d->build_id_size);
		if (f->buildid_dir &&
		    snprintf(p, sizeof p, "%s/.build-id/%.2s/%s/elf", f->buildid_dir, hex, hex + 2) > 0 &&
		    try_binary(f, d, p, &mismatch))
			return DEBUGFILE_FOUND;
	}
	if (each_path(f->extra_paths, bin_in_dir, &bs))
		return DEBUGFILE_FOUND;
	if (d->build_id_size && debuginfod_fetch(f, d, true))
		return DEBUGFILE_FOUND;
	return mismatch ? DEBUGFILE_MISMATCH : DEBUGFILE_NOT_FOUND;
}

/* [vdso]: perf's build-id cache keeps a copy; else this machine's own vdso
 * when its build id is the recorded one (same kernel). */
void debugfile_find_vdso(struct debugfile *f, struct dso *d)
{
	char p[PATH_MAX * 2];
	bool mismatch = false;
	if (d->build_id_size && f->buildid_dir) {
		char hex[41];
		elffile_hexid(hex, d->build_id, d->build_id_size);
		snprintf(p, sizeof p, "%s/.build-id/%.2s/%s/elf", f->buildid_dir, hex, hex + 2);
		if (try_binary(f, d, p, &mismatch))
			return;
		snprintf(p, sizeof p, "%s/[vdso]/%s/vdso", f->buildid_dir, hex);
		if (try_binary(f, d, p, &mismatch))
			return;
	}
	const uint8_t *v = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	if (!v || memcmp(v, ELFMAG, SELFMAG) || v[EI_CLASS] != ELFCLASS64)
		return;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)v;
	size_t size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (size > (64u << 10) || size < sizeof *eh)
		return;
	char *copy = xmalloc(size);
	memcpy(copy, v, size);
	Elf *e = elf_memory(copy, size);
	if (!e || (d->build_id_size && !elffile_id_matches(e, d->build_id, d->build_id_size))) {
		if (e)
			elf_end(e);
		free(copy);
		return;
	}
	/* keep it as an fd-backed file so the unwinder can share it */
	int fd = memfd_create("vdso", MFD_CLOEXEC);
	if (fd >= 0 && write(fd, copy, size) == (ssize_t)size) {
		elf_end(e);
		free(copy);
		e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		if (e) {
			d->fd = fd;
			d->elf = e;
			d->path = xstrdup("[vdso]");
			return;
		}
	}
	if (fd >= 0)
		close(fd);
	if (e)
		elf_end(e);
	free(copy);
}

void debugfile_release(struct debugfile *f)
{
#ifdef HAVE_DEBUGINFOD
	if (f->dbgd)
		dbgd_api()->end(f->dbgd);
#endif
	free(f->buildid_dir);
	f->buildid_dir = NULL;
}

/* The largest MiniDebugInfo unpacked (the ELF inside .gnu_debugdata). */
#define MINIDEBUG_MAX ((size_t)256 << 20)

Elf *debugfile_minidebuginfo(Elf *e, void **bufp)
{
#ifdef HAVE_LZMA
	GElf_Shdr sh;
	Elf_Scn *scn = elffile_scn(e, 0, ".gnu_debugdata", &sh);
	if (!scn)
		return NULL;
	Elf_Data *data = elf_rawdata(scn, NULL);
	if (!data || !data->d_size)
		return NULL;
	size_t cap = data->d_size < (MINIDEBUG_MAX - 65536) / 8 ? data->d_size * 8 + 65536
								  : MINIDEBUG_MAX;
	size_t pos = 0, inpos = 0;
	uint8_t *out = xmalloc_input(cap, MINIDEBUG_MAX);
	if (!out)
		return NULL;
	uint64_t memlimit = UINT64_MAX;
	for (;;) {
		size_t ip = inpos, op = pos;
		lzma_ret r = lzma_stream_buffer_decode(&memlimit, 0, NULL, data->d_buf, &ip,
						       data->d_size, out, &op, cap);
		if (r == LZMA_OK) {
			pos = op;
			break;
		}
		uint8_t *more;
		if (r == LZMA_BUF_ERROR && cap < MINIDEBUG_MAX &&
		    (more = xrealloc_input(out, cap * 2 < MINIDEBUG_MAX ? cap * 2 : MINIDEBUG_MAX,
					   MINIDEBUG_MAX))) {
			out = more;
			cap = cap * 2 < MINIDEBUG_MAX ? cap * 2 : MINIDEBUG_MAX;
			continue;
		}
		free(out);
		return NULL;
	}
	Elf *m = elf_memory((char *)out, pos);
	if (!m) {
		free(out);
		return NULL;
	}
	*bufp = out;
	return m;
#else
	(void)e;
	(void)bufp;
	return NULL;
#endif
}
