/*
 * cmd_hotspot.c: `scorch hotspot [FILE] [ARGS]`: starts the hotspot GUI with
 * HOTSPOT_PERFPARSER naming the scorch-perfparser next to this scorch: in
 * the build tree build/scorch-perfparser, once installed
 * PREFIX/libexec/scorch/scorch-perfparser (found from /proc/self/exe, so a
 * relocated PREFIX works). $HOTSPOT names another hotspot program.
 */
#include "cli/cli.h"
#include "util/parse.h"
#include "util/xalloc.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The scorch-perfparser belonging to this executable into out, or -ENOENT. */
static int find_perfparser(char *out, size_t size)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -errno;
	self[n] = 0;
	char *slash = strrchr(self, '/');
	if (!slash)
		return -ENOENT;
	*slash = 0;
	/* the directory resolved, the link itself not (its name is what makes
	 * scorch behave as perfparser) */
	static const char *const dirs[] = { ".", "../libexec/scorch" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char path[PATH_MAX + 32], dir[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s", self, dirs[i]);
		if (!realpath(path, dir))
			continue;
		if ((size_t)snprintf(out, size, "%s/scorch-perfparser", dir) >= size)
			continue;
		if (access(out, X_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

int cmd_hotspot(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: scorch hotspot [-j N] [FILE] [HOTSPOT-OPTIONS...]\n"
		       "  -j, --jobs N           the parser unwinds and symbolizes on N threads\n"
		       "                         (scorch perfparser -j N; default 1)\n"
		       "  FILE                   perf.data file to open (default perf.data)\n");
		return EXIT_OK;
	}
	/* -j N: for the parser hotspot starts, through the environment */
	if (argc > 1 && (!strncmp(argv[1], "-j", 2) || !strncmp(argv[1], "--jobs", 6))) {
		const char *v = NULL;
		int used = 1;
		if (!strcmp(argv[1], "-j") || !strcmp(argv[1], "--jobs")) {
			v = argc > 2 ? argv[2] : NULL;
			used = 2;
		} else if (!strncmp(argv[1], "--jobs=", 7)) {
			v = argv[1] + 7;
		} else if (argv[1][1] == 'j') {
			v = argv[1] + 2;
		}
		uint64_t n;
		if (!v || parse_u64(v, PARSE_NUL, 0, 4096, &n) || n < 1) {
			fprintf(stderr, "scorch: hotspot: -j wants a number of threads from 1 to 4096, not '%s'\n",
				v ? v : "");
			return EXIT_BADINPUT; /* 2: bad options */
		}
		setenv("SCORCH_PERFPARSER_JOBS", v, 1);
		argc -= used;
		argv += used;
	}
	char pp[PATH_MAX];
	if (find_perfparser(pp, sizeof(pp))) {
		fprintf(stderr, "scorch: hotspot: no scorch-perfparser next to this scorch "
				"(build/ or PREFIX/libexec/scorch)\n");
		return EXIT_FAIL;
	}
	const char *file = "perf.data";
	int rest = 1;
	if (argc > 1 && argv[1][0] != '-') {
		file = argv[1];
		rest = 2;
	} else if (access(file, F_OK)) {
		file = NULL; /* hotspot's start screen */
	}
	char **args = xcalloc((size_t)argc + 2, sizeof(*args));
	const char *hotspot = getenv("HOTSPOT");
	if (!hotspot || !*hotspot)
		hotspot = "hotspot";
	int n = 0;
	args[n++] = (char *)hotspot;
	for (int i = rest; i < argc; i++)
		args[n++] = argv[i];
	if (file)
		args[n++] = (char *)file;
	args[n] = NULL;
	setenv("HOTSPOT_PERFPARSER", pp, 1);
	execvp(hotspot, args);
	fprintf(stderr, "scorch: hotspot: cannot run '%s': %s%s\n", hotspot, strerror(errno),
		errno == ENOENT ? " (install the hotspot package)" : "");
	free(args);
	return EXIT_FAIL;
}
