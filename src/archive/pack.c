/* pack.c: writing an archive; see pack.h and archive.h. */
#include "archive/pack.h"
#include "analyze/pipeline.h"
#include "analyze/symbols/debugfile.h"
#include "analyze/symbols/elffile.h"
#include "archive/archive.h"
#include "archive/tar.h"
#include "record/buildid.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/sys.h"
#include "util/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define KALLSYMS "[kernel.kallsyms]"
#define VDSO "[vdso]"
#define MAX_DSOS (1u << 15)
#define MAX_KALLSYMS (256u << 20)

/* A DSO the samples hit, and the files found for it. */
struct want {
	const char *name;      /* interned by the session while the run lasts, then
				* a copy (c_end) */
	char *path;            /* its ELF, NULL when not found */
	char *debug;           /* its debug file, NULL when none */
	uint8_t *mem;          /* [vdso] of this machine: its bytes */
	size_t mem_len;
	uint8_t id[20];
	uint8_t size;
	bool unrecorded;       /* the recording gives it no build id: the file's */
};

struct collect {
	struct want *w;
	size_t nr, cap;
	struct hmap idx;       /* hash(name pointer, id) -> index + 1 */
	bool kernel;           /* a kernel frame was seen */
	const struct perf_header *h; /* while the run lasts */
	bool full, named;
	uint8_t kid[20];       /* the kernel's recorded build id */
	uint8_t ksize;
};

static int c_begin(void *ctx, struct pipeline *p)
{
	struct collect *c = ctx;
	c->h = input_header(pipeline_input(p));
	return 0;
}

static void add(struct collect *c, const struct map *m)
{
	uint64_t key = hash_u64((uintptr_t)m->filename) ^ hash_bytes(m->build_id, m->build_id_size);
	size_t i = (size_t)(uintptr_t)hmap_get(&c->idx, key);
	struct want *w = i ? &c->w[i - 1] : NULL;
	if (w && w->name == m->filename && w->size == m->build_id_size &&
	    !memcmp(w->id, m->build_id, m->build_id_size))
		return;
	for (size_t j = 0; w && j < c->nr; j++) /* a collision: look at them all */
		if (c->w[j].name == m->filename && c->w[j].size == m->build_id_size &&
		    !memcmp(c->w[j].id, m->build_id, m->build_id_size))
			return;
	if (ARRAY_GROW(c->w, c->cap, c->nr + 1, MAX_DSOS)) {
		c->full = true;
		return;
	}
	w = &c->w[c->nr++];
	memset(w, 0, sizeof *w);
	w->name = m->filename;
	w->size = m->build_id_size;
	memcpy(w->id, m->build_id, sizeof w->id);
	if (!i)
		hmap_put(&c->idx, key, (void *)(uintptr_t)c->nr);
}

static int c_sample(void *ctx, struct pipeline *p, const struct resolved_sample *rs)
{
	struct collect *c = ctx;
	(void)p;
	for (uint32_t i = 0; i < rs->nr_frames; i++) {
		const struct frame *f = &rs->frames[i];
		if (f->kind == FRAME_KERNEL)
			c->kernel = true;
		else if (f->kind == FRAME_USER && f->map && f->map->filename && !f->inlined)
			add(c, f->map);
	}
	return 0;
}

static void recorded_id(const struct perf_header *h, struct want *w);

/* The end of the run, before the session and the input go: what the
 * archive needs of them copied. */
static int c_end(void *ctx, struct pipeline *p, int rc)
{
	struct collect *c = ctx;
	(void)p;
	for (size_t i = 0; i < c->nr; i++) {
		recorded_id(c->h, &c->w[i]);
		c->w[i].name = xstrdup(c->w[i].name);
	}
	c->named = true;
	for (uint32_t i = 0; c->kernel && c->h && i < c->h->nr_build_ids; i++) {
		const struct perf_build_id *b = &c->h->build_ids[i];
		if (b->filename && !strcmp(b->filename, KALLSYMS) && b->size && b->size <= 20) {
			memcpy(c->kid, b->id, b->size);
			c->ksize = b->size;
			break;
		}
	}
	c->h = NULL;
	return rc;
}

static void drop_warning(void *ctx, const char *msg)
{
	(void)ctx, (void)msg;
}

/* ---- finding the files ------------------------------------------------- */

/* The recorded build id of a DSO whose map carries none: the build-id
 * list's. */
static void recorded_id(const struct perf_header *h, struct want *w)
{
	for (uint32_t i = 0; h && !w->size && i < h->nr_build_ids; i++) {
		const struct perf_build_id *b = &h->build_ids[i];
		if (b->filename && b->size && b->size <= 20 && !strcmp(b->filename, w->name)) {
			memcpy(w->id, b->id, b->size);
			w->size = b->size;
		}
	}
}

static void dso_close(struct dso *d)
{
	if (d->elf)
		elf_end(d->elf);
	if (d->debug_elf)
		elf_end(d->debug_elf);
	if (d->fd >= 0)
		close(d->fd);
	if (d->debug_fd >= 0)
		close(d->debug_fd);
	free(d->path);
	free(d->debug_path);
}

/* Read all of fd into a buffer (at most cap bytes); 0 or a negative code. */
static int slurp(int fd, size_t cap, uint8_t **out, size_t *n)
{
	struct buf b;
	buf_init(&b, cap);
	for (;;) {
		if (buf_reserve(&b, 1 << 16)) {
			buf_release(&b);
			return -E2BIG;
		}
		ssize_t k = read(fd, b.data + b.len, b.cap - b.len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int rc = -errno;
			buf_release(&b);
			return rc;
		}
		if (!k)
			break;
		b.len += (size_t)k;
	}
	*out = b.data;
	*n = b.len;
	return 0;
}

static void find(struct debugfile *df, struct want *w, archive_missing_fn missing, void *mctx,
		 struct archive_pack_stats *st)
{
	char hex[41];
	elffile_hexid(hex, w->id, w->size);
	struct dso d = { .name = w->name, .fd = -1, .debug_fd = -1, .build_id_size = w->size };
	memcpy(d.build_id, w->id, sizeof d.build_id);
	if (!strcmp(w->name, VDSO)) {
		debugfile_find_vdso(df, &d);
		if (d.fd >= 0 && d.path && !strcmp(d.path, VDSO)) {
			/* this machine's own, in memory */
			lseek(d.fd, 0, SEEK_SET);
			if (slurp(d.fd, 1 << 20, &w->mem, &w->mem_len))
				w->mem = NULL;
		} else if (d.path) {
			w->path = xstrdup(d.path);
		}
		if (!w->mem && !w->path && missing)
			missing(mctx, w->name, hex, "not found");
		st->missing += !w->mem && !w->path;
		dso_close(&d);
		return;
	}
	enum debugfile_result r = debugfile_find_binary(df, &d);
	if (r == DEBUGFILE_FOUND) {
		w->path = xstrdup(d.path);
		debugfile_find_debug(df, &d);
		if (d.debug_path && d.debug_fd >= 0)
			w->debug = xstrdup(d.debug_path);
	} else {
		st->missing++;
		if (missing)
			missing(mctx, w->name, hex, r == DEBUGFILE_MISMATCH ? "build id differs" : "not found");
	}
	dso_close(&d);
}

/* A DSO the recording names without a build id: the build id of the file
 * a reader would take (the recorded path, --sysroot, --app, --extra), so
 * that the archive can keep it by build id; the file is taken to be the
 * recorded one, as a reader does. */
static void file_id(struct debugfile *df, struct want *w)
{
	struct dso d = { .name = w->name, .fd = -1, .debug_fd = -1 };
	if (debugfile_find_binary(df, &d) == DEBUGFILE_FOUND && d.path) {
		int n = buildid_read_elf(d.path, w->id);
		if (n > 0 && n <= 20) {
			w->size = (uint8_t)n;
			w->unrecorded = true;
		}
	}
	dso_close(&d);
}

/* /proc/kallsyms shows addresses (not zeros: kptr_restrict). */
static bool real_kallsyms(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n && i < 8192; i++)
		if (p[i] != '0' && ((p[i] >= '1' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
			return true;
		else if (p[i] == ' ')
			while (i < n && p[i] != '\n')
				i++;
	return false;
}

/* The kernel's symbols for build id id: --kallsyms, the cache's copy, or
 * /proc/kallsyms when this machine runs that kernel. */
static int kallsyms(const struct pipeline_config *c, struct debugfile *df, const uint8_t *id,
		    uint8_t size, uint8_t **mem, size_t *n, const char **why)
{
	char p[PATH_MAX];
	const char *src = c->kallsyms;
	if (!src && debugfile_kallsyms(df, id, size, p, sizeof p))
		src = p;
	if (!src) {
		uint8_t run[20] = { 0 };
		int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
		uint8_t notes[4096];
		ssize_t k = fd >= 0 ? read(fd, notes, sizeof notes) : -1;
		if (fd >= 0)
			close(fd);
		int rs = k > 0 ? buildid_parse_notes(notes, (size_t)k, run) : -1;
		if (rs != size || memcmp(run, id, size)) {
			*why = "not found (this machine runs another kernel)";
			return -ENOENT;
		}
		src = "/proc/kallsyms";
	}
	int fd = open(src, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*why = "cannot be read";
		return -errno;
	}
	int rc = slurp(fd, MAX_KALLSYMS, mem, n);
	close(fd);
	if (!rc && !real_kallsyms(*mem, *n)) {
		free(*mem);
		*mem = NULL;
		*why = "shows no addresses (kernel.kptr_restrict)";
		return -EACCES;
	}
	if (rc)
		*why = "cannot be read";
	return rc;
}

/* ---- writing ----------------------------------------------------------- */

struct zout {
	int fd;
	ZSTD_CStream *z;
	uint8_t *ob;
	size_t ob_cap;
	uint64_t bytes;
};

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int zpush(struct zout *z, const void *p, size_t n, ZSTD_EndDirective end)
{
	ZSTD_inBuffer in = { p, n, 0 };
	for (;;) {
		ZSTD_outBuffer out = { z->ob, z->ob_cap, 0 };
		size_t r = ZSTD_compressStream2(z->z, &out, &in, end);
		if (ZSTD_isError(r))
			return -EIO;
		int rc = write_all(z->fd, z->ob, out.pos);
		if (rc)
			return rc;
		z->bytes += out.pos;
		if (end == ZSTD_e_end ? r == 0 : in.pos == in.size)
			return 0;
	}
}

static int zwrite(void *ctx, const void *p, size_t n)
{
	return zpush(ctx, p, n, ZSTD_e_continue);
}

static int put_path(struct tar_w *t, const char *name, const char *path, uint64_t *bytes)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat s;
	int rc = fstat(fd, &s) ? -errno : !S_ISREG(s.st_mode) ? -EINVAL : 0;
	if (!rc)
		rc = tar_w_file(t, name, (uint64_t)s.st_size, s.st_mtim.tv_sec, fd);
	if (!rc)
		*bytes += (uint64_t)s.st_size;
	close(fd);
	return rc;
}

/* REL/HEX/<base> from a path or memory, and its .build-id link. */
static int put_entry(struct tar_w *t, const char *rel, const char *hex, const char *base,
		     const char *path, const uint8_t *mem, size_t n, struct archive_pack_stats *st)
{
	char name[TAR_NAME_MAX], link[TAR_NAME_MAX];
	if ((size_t)snprintf(name, sizeof name, "%s/%s/%s", rel, hex, base) >= sizeof name)
		return -ENAMETOOLONG;
	int rc = path ? put_path(t, name, path, &st->file_bytes) : tar_w_mem(t, name, mem, n, 0);
	if (rc)
		return rc;
	if (!path)
		st->file_bytes += n;
	st->files++;
	if (strcmp(base, "debug") && strlen(hex) > 2) {
		snprintf(name, sizeof name, ".build-id/%.2s/%s", hex, hex + 2);
		snprintf(link, sizeof link, "../../%s/%s", rel, hex);
		rc = tar_w_symlink(t, name, link, 0);
	}
	return rc;
}

static void manifest_line(struct buf *b, const char *what, const char *hex, const char *path)
{
	char line[TAR_NAME_MAX + 64];
	int n = snprintf(line, sizeof line, "%s %s %s\n", what, hex, path);
	if (n > 0 && (size_t)n < sizeof line)
		buf_append(b, line, (size_t)n);
}

struct plan {
	struct buf manifest;
	uint8_t *ksyms;
	size_t ksyms_len;
	char khex[41];
};

static int write_archive(const struct pipeline_config *c, struct collect *col, struct plan *pl,
			 int fd, int level, struct archive_pack_stats *st, struct err *e)
{
	struct zout z = { .fd = fd, .ob_cap = ZSTD_CStreamOutSize() };
	z.z = ZSTD_createCStream();
	if (!z.z)
		return err_set(e, -ENOMEM, "cannot make a zstd stream");
	z.ob = xmalloc(z.ob_cap);
	ZSTD_CCtx_setParameter(z.z, ZSTD_c_compressionLevel, level);
	ZSTD_CCtx_setParameter(z.z, ZSTD_c_checksumFlag, 1);
	struct tar_w t = { .write = zwrite, .ctx = &z };
	const char *what = ARCHIVE_MANIFEST;
	int rc = tar_w_mem(&t, ARCHIVE_MANIFEST, pl->manifest.data, pl->manifest.len, 0);
	if (!rc) {
		uint64_t before = st->file_bytes;
		what = c->input;
		rc = put_path(&t, ARCHIVE_DATA, c->input, &st->file_bytes);
		st->data_bytes = st->file_bytes - before;
		st->file_bytes = before;
	}
	for (size_t i = 0; !rc && i < col->nr; i++) {
		struct want *w = &col->w[i];
		char hex[41];
		elffile_hexid(hex, w->id, w->size);
		bool vdso = !strcmp(w->name, VDSO);
		const char *rel = vdso ? VDSO : w->name + 1;
		if (!w->path && !w->mem)
			continue;
		what = w->path ? w->path : w->name;
		rc = put_entry(&t, rel, hex, vdso ? "vdso" : "elf", w->path, w->mem, w->mem_len, st);
		if (!rc && w->debug) {
			what = w->debug;
			rc = put_entry(&t, rel, hex, "debug", w->debug, NULL, 0, st);
		}
	}
	if (!rc && pl->ksyms) {
		what = "kallsyms";
		rc = put_entry(&t, KALLSYMS, pl->khex, "kallsyms", NULL, pl->ksyms, pl->ksyms_len, st);
	}
	if (!rc)
		rc = tar_w_end(&t);
	if (!rc)
		rc = zpush(&z, NULL, 0, ZSTD_e_end);
	st->out_bytes = z.bytes;
	ZSTD_freeCStream(z.z);
	free(z.ob);
	if (rc)
		return err_set(e, rc, "archiving %s: %s", what, strerror(-rc));
	return 0;
}

int archive_pack(const struct pipeline_config *c, const char *out, int level,
		 archive_missing_fn missing, void *mctx, struct archive_pack_stats *st, struct err *e)
{
	memset(st, 0, sizeof *st);
	struct stat s;
	if (!c->input || !strcmp(c->input, "-") || stat(c->input, &s) || !S_ISREG(s.st_mode))
		return err_set(e, -EINVAL, "the recording to archive must be a file");

	/* which DSOs: the recording read as the reading commands read it */
	struct collect col = { 0 };
	hmap_init(&col.idx);
	struct pipeline_config pc = *c;
	pc.resolve = true;
	pc.max_frames = PIPELINE_FRAMES_ALL;
	pc.no_srclines = true;
	pc.no_inline = true;
	pc.stitch = false;
	pc.frame_lines = 0;
	pc.warn = drop_warning;
	pc.file_warn = NULL;
	pc.blocks = NULL;
	pc.progress = false;
	struct sink sink = { .ctx = &col, .begin = c_begin, .sample = c_sample, .end = c_end };
	int rc = pipeline_run(&pc, &sink, e);
	struct plan pl = { 0 };
	buf_init(&pl.manifest, 64u << 20);
	if (rc)
		goto out;
	if (col.full) {
		rc = err_set(e, -E2BIG, "more than %u DSOs hit", MAX_DSOS);
		goto out;
	}

	/* where their files are */
	struct symbols_config sc = { .sysroot = c->sysroot, .debug_paths = c->debug_paths,
				     .extra_paths = c->extra_paths, .app_path = c->app_path,
				     .buildid_dir = c->buildid_dir, .debuginfod = c->debuginfod };
	struct debugfile df;
	debugfile_init(&df, &sc);
	buf_append(&pl.manifest, ARCHIVE_FIRST_LINE, sizeof ARCHIVE_FIRST_LINE - 1);
	for (size_t i = 0; i < col.nr; i++) {
		struct want *w = &col.w[i];
		if (strcmp(w->name, VDSO) &&
		    (!sys_plain_path(w->name) || strlen(w->name) >= TAR_NAME_MAX - 64))
			continue; /* not a file: anonymous memory, a perf map's code */
		st->dsos++;
		char hex[41];
		elffile_hexid(hex, w->id, w->size);
		if (!w->size)
			file_id(&df, w);
		elffile_hexid(hex, w->id, w->size);
		if (!w->size) {
			st->missing++;
			if (missing)
				missing(mctx, w->name, "", "no build id (none recorded, none in the file)");
		} else {
			find(&df, w, missing, mctx, st);
		}
		if (!w->path && !w->mem)
			manifest_line(&pl.manifest, "missing", w->size ? hex : "-", w->name);
		else if (w->unrecorded)
			manifest_line(&pl.manifest, "buildid", hex, w->name);
	}
	if (col.ksize) {
		elffile_hexid(pl.khex, col.kid, col.ksize);
		const char *why = NULL;
		if (kallsyms(c, &df, col.kid, col.ksize, &pl.ksyms, &pl.ksyms_len, &why)) {
			st->missing++;
			if (missing)
				missing(mctx, KALLSYMS, pl.khex, why);
			manifest_line(&pl.manifest, "missing", pl.khex, KALLSYMS);
		}
	} else if (col.kernel) {
		st->missing++;
		if (missing)
			missing(mctx, KALLSYMS, "", "no build id recorded for the kernel");
		manifest_line(&pl.manifest, "missing", "-", KALLSYMS);
	}
	debugfile_release(&df);

	char tmp[PATH_MAX];
	if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)getpid()) >= sizeof tmp) {
		rc = err_set(e, -ENAMETOOLONG, "%s: name too long", out);
		goto out;
	}
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = err_set(e, -errno, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	rc = write_archive(c, &col, &pl, fd, level, st, e);
	if (close(fd) && !rc)
		rc = err_set(e, -errno, "%s: %s", tmp, strerror(errno));
	if (!rc && rename(tmp, out))
		rc = err_set(e, -errno, "%s: %s", out, strerror(errno));
	if (rc)
		unlink(tmp);
out:
	for (size_t i = 0; i < col.nr; i++) {
		if (col.named)
			free((char *)col.w[i].name);
		free(col.w[i].path);
		free(col.w[i].debug);
		free(col.w[i].mem);
	}
	free(col.w);
	hmap_release(&col.idx);
	buf_release(&pl.manifest);
	free(pl.ksyms);
	return rc;
}
