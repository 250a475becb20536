/*
 * cmd_archive.c: `scorch archive`: one file holding a recording and every
 * file its samples need (archive/archive.h), for reading it on another
 * machine; and the other half, an archive given to any reading command as
 * its input (cli_archive_input): unpacked into a private directory that
 * lives as long as the command, the recording read from there with that
 * directory as the build-id cache.
 */
#include "archive/archive.h"
#include "archive/pack.h"
#include "cli/analysis_opts.h"
#include "cli/cli.h"
#include "util/cachedir.h"
#include "util/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LEVEL 3

/* ---- reading: an archive as the input ---------------------------------- */

#define MAX_OPEN 4 /* diff reads two */

static struct unpacked {
	char *path;
	bool archive;           /* else a plain recording: not looked at again */
	struct archive_in a;
} unpacked[MAX_OPEN];
static int nr_unpacked;

static void remove_all(void)
{
	for (int i = 0; i < nr_unpacked; i++)
		if (unpacked[i].archive)
			archive_in_remove(&unpacked[i].a);
	nr_unpacked = 0;
}

static void on_signal(int sig)
{
	/* the process ends here: the directories go first */
	remove_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void cleanup_once(void)
{
	static bool done;
	if (done)
		return;
	done = true;
	atexit(remove_all);
	const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old;
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler == SIG_DFL)
			signal(sigs[i], on_signal);
	}
}

void cli_archive_input(struct pipeline_config *c)
{
	const char *path = c->input;
	if (c->input_fd >= 0 || c->input_file || !path || !strcmp(path, "-"))
		return;
	struct unpacked *u = NULL;
	for (int i = 0; i < nr_unpacked && !u; i++)
		if (!strcmp(unpacked[i].path, path))
			u = &unpacked[i];
	if (!u) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		struct stat st;
		if (fd < 0)
			return; /* the reader says why */
		if (nr_unpacked == MAX_OPEN || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
			close(fd);
			return;
		}
		if (archive_sniff(fd) != 1) {
			/* a recording: remembered, so that a command that
			 * asks twice reads its first bytes once */
			close(fd);
			unpacked[nr_unpacked++] = (struct unpacked){ .path = xstrdup(path) };
			return;
		}
		cleanup_once();
		u = &unpacked[nr_unpacked];
		struct err e = { 0 };
		int rc = archive_unpack(fd, c->tmpdir, &u->a, &e);
		close(fd);
		if (rc) {
			/* the run has not begun: nothing to finish but the process */
			cli_print_err(path, &e);
			exit(e.has_offset ? EXIT_BADINPUT : EXIT_FAIL);
		}
		u->path = xstrdup(path);
		u->archive = true;
		nr_unpacked++;
		/* the caches of derived data (cachedir.h) are keyed by file
		 * identity: files unpacked anew on every run would only fill
		 * them with images no later run can use */
		struct cachedir_config cc = *cachedir_config();
		cc.off = true;
		cachedir_configure(&cc);
		if (u->a.nr_missing)
			fprintf(stderr, "scorch: %s: %u file%s not found when the archive was made: %s\n", path,
				u->a.nr_missing, u->a.nr_missing == 1 ? " was" : "s were", u->a.missing);
	}
	if (!u->archive)
		return;
	c->input_file = u->a.data;
	c->buildid_dir = u->a.dir;
	c->build_ids = u->a.build_ids;
	c->nr_build_ids = u->a.nr_build_ids;
}

/* ---- writing ------------------------------------------------------------ */

struct archive_cmd {
	struct cli_analysis a;
	unsigned nr_missing;
};

static void usage(FILE *f, void *ctx)
{
	(void)ctx;
	fprintf(f, "usage: scorch archive [-i perf.data] [-o FILE] [-q]\n"
		   "  one file holding the recording, the ELF and debug files its samples hit\n"
		   "  (by build id) and the kernel's symbols; every reading command takes it\n"
		   "  as -i FILE\n"
		   "  -i, --input FILE        the recording (default perf.data)\n"
		   "  -o, --output FILE       the archive (default: the recording's name + .tar.zst)\n"
		   "  -q, --quiet             no summary line\n"
		   "  --sysroot DIR, --debug PATHS, --extra PATHS, --app DIR, --kallsyms FILE\n"
		   "                          where the files are looked for, as for report\n");
}

static int set(void *ctx, struct opts *p, int id, const char *v)
{
	struct archive_cmd *x = ctx;
	return cli_analysis_set(&x->a, p, id, v);
}

static void missing(void *ctx, const char *path, const char *hex, const char *why)
{
	struct archive_cmd *x = ctx;
	x->nr_missing++;
	fprintf(stderr, "scorch archive: %s%s%s: %s\n", path, *hex ? " " : "", hex, why);
}

int cmd_archive(int argc, char **argv)
{
	struct archive_cmd x = { 0 };
	cli_analysis_init(&x.a, "archive");
	struct opts p = { .cmd = OC_ARCHIVE, .prefix = "scorch archive", .usage = usage, .set = set, .ctx = &x };
	if (!opts_parse(&p, argc, argv))
		return p.status;
	const char *in = x.a.pc.input ? x.a.pc.input : "perf.data";
	x.a.pc.input = in;
	char def[4096];
	const char *out = x.a.outpath;
	if (!out) {
		if ((size_t)snprintf(def, sizeof def, "%s.tar.zst", in) >= sizeof def) {
			fprintf(stderr, "scorch archive: %s: name too long\n", in);
			return EXIT_BADINPUT;
		}
		out = def;
	}
	int fd = open(in, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && archive_sniff(fd) == 1) {
		close(fd);
		fprintf(stderr, "scorch archive: %s is an archive already\n", in);
		return EXIT_BADINPUT;
	}
	if (fd >= 0)
		close(fd);
	struct archive_pack_stats st;
	struct err e = { 0 };
	int rc = archive_pack(&x.a.pc, out, LEVEL, missing, &x, &st, &e);
	if (rc) {
		cli_print_err(e.has_offset || rc == -EINVAL ? in : out, &e);
		return e.has_offset || rc == -EINVAL ? EXIT_BADINPUT : EXIT_FAIL;
	}
	if (!x.a.no_progress)
		fprintf(stderr,
			"[ scorch archive: %s: %u DSOs hit, %u files (%.1f MB) + the recording (%.1f MB) "
			"in %.1f MB%s ]\n",
			out, st.dsos, st.files, (double)st.file_bytes / 1048576.0,
			(double)st.data_bytes / 1048576.0, (double)st.out_bytes / 1048576.0,
			st.missing ? ", some files not found (above)" : "");
	return EXIT_OK;
}
