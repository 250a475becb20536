/*
 * fuzz_archive.c: libFuzzer harness for the archive reader (archive.h: a
 * file handed to every reading command as -i: untrusted). The first byte
 * is a mode: 0, the rest is a tar, compressed here (so the tar reader and
 * the member checks are reached, not only zstd's); 1, the rest is the
 * archive file as is. Each input is unpacked into a directory of its own
 * under one base; then: a refused input leaves nothing behind, an
 * accepted one has its recording in the directory, and every link in the
 * directory stays inside it.
 */
#include "archive/archive.h"
#include "fuzz_fd.h"
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>

static char base[PATH_MAX];
static size_t dir_len;

static int link_inside(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)f;
	if (flag != FTW_SL && flag != FTW_SLN)
		return 0;
	char real[PATH_MAX];
	/* a dangling link is harmless; one that resolves must stay inside */
	if (realpath(p, real) && strncmp(real, base, strlen(base)))
		abort();
	return 0;
}

static int entries(const char *d)
{
	DIR *x = opendir(d);
	int n = 0;
	if (!x)
		abort();
	for (struct dirent *e; (e = readdir(x));)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(x);
	return n;
}

static void remove_base(void)
{
	rmdir(base);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!base[0]) {
		const char *t = access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm";
		snprintf(base, sizeof base, "%s/fuzz-archive.XXXXXX", t);
		if (!mkdtemp(base))
			abort();
		char real[PATH_MAX];
		if (!realpath(base, real))
			abort();
		snprintf(base, sizeof base, "%s", real);
		dir_len = strlen(base);
		atexit(remove_base);
	}
	if (size < 1)
		return 0;
	uint8_t *buf = NULL;
	const uint8_t *p = data + 1;
	size_t n = size - 1;
	if (data[0] == 0) {
		size_t cap = ZSTD_compressBound(n);
		buf = malloc(cap);
		if (!buf)
			return 0;
		size_t r = ZSTD_compress(buf, cap, p, n, 1);
		if (ZSTD_isError(r)) {
			free(buf);
			return 0;
		}
		p = buf;
		n = r;
	}
	int fd = fuzz_fd(p, n, false);
	free(buf);
	if (fd < 0)
		return 0;
	struct archive_in a;
	struct err e = { 0 };
	if (archive_sniff(fd) != 1) {
		close(fd);
		return 0;
	}
	int rc = archive_unpack(fd, base, &a, &e);
	close(fd);
	if (rc) {
		if (!e.set || entries(base))
			abort(); /* a refusal says why and leaves nothing */
		return 0;
	}
	struct stat st;
	if (strncmp(a.dir, base, dir_len) || stat(a.data, &st) || !S_ISREG(st.st_mode))
		abort();
	nftw(a.dir, link_inside, 16, FTW_PHYS);
	archive_in_remove(&a);
	if (entries(base))
		abort();
	return 0;
}
