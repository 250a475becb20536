/*
 * cmd_buildid_cache.c: `scorch buildid-cache`: the build-id cache that
 * `scorch record` (and perf record) fill, listed (-l) or pruned to its size
 * limit (--prune[=SIZE]); record/bidcache.h has the layout. Where the cache
 * is ($HOME/.debug) and its limit (SCORCH_BUILDID_CACHE_MAX) are read here,
 * for record too.
 */
#include "cli/cli.h"
#include "cli/opts.h"
#include "record/bidcache.h"
#include "util/parse.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX (4ULL << 30)

bool cli_buildid_cache_dir(char *out, size_t cap)
{
	const char *home = getenv("HOME");
	if (!home || home[0] != '/')
		return false;
	size_t k = (size_t)snprintf(out, cap, "%s/.debug", strcmp(home, "/") ? home : "");
	return k < cap;
}

uint64_t cli_buildid_cache_max(void)
{
	const char *v = getenv("SCORCH_BUILDID_CACHE_MAX");
	uint64_t x;
	if (v && *v && !parse_size(v, &x))
		return x;
	return DEFAULT_MAX;
}

struct bc_args {
	bool list, prune;
	uint64_t max;
};

static void usage(FILE *f, void *ctx)
{
	fprintf(f, "usage: scorch buildid-cache [-l] [--prune[=SIZE]]\n"
		   "  -l, --list             the cached files: BUILD-ID PATH\n"
		   "      --prune[=SIZE]     delete the entries used longest ago until the cache\n"
		   "                         holds at most SIZE (default SCORCH_BUILDID_CACHE_MAX, 4G)\n");
}

static int set(void *ctx, struct opts *p, int id, const char *v)
{
	struct bc_args *a = ctx;
	switch (id) {
	case O_LIST:
		a->list = true;
		return 0;
	case O_PRUNE:
		a->prune = true;
		if (v && parse_size(v, &a->max)) {
			fprintf(stderr, "scorch buildid-cache: --prune: bad size '%s'\n", v);
			return EXIT_BADINPUT;
		}
		return 0;
	}
	return OPTS_UNKNOWN;
}

int cmd_buildid_cache(int argc, char **argv)
{
	struct bc_args a = { .max = cli_buildid_cache_max() };
	struct opts p = { .cmd = OC_BUILDID_CACHE, .prefix = "scorch buildid-cache", .usage = usage,
			  .set = set, .ctx = &a };
	if (!opts_parse(&p, argc, argv))
		return p.status;
	char dir[4096];
	if (!cli_buildid_cache_dir(dir, sizeof dir)) {
		fprintf(stderr, "scorch buildid-cache: HOME is not set to an absolute path\n");
		return EXIT_BADINPUT;
	}
	if (!a.list && !a.prune) {
		usage(stderr, NULL);
		return EXIT_BADINPUT;
	}
	if (a.prune) {
		struct bidcache_stats st = { 0 };
		int rc = bidcache_prune(dir, a.max ? a.max : UINT64_MAX, &st);
		if (rc) {
			fprintf(stderr, "scorch buildid-cache: %s: %s\n", dir, strerror(-rc));
			return EXIT_FAIL;
		}
		fprintf(stderr, "[ scorch buildid-cache: %s: %u entries removed, %.1f MB kept ]\n", dir,
			st.removed, (double)st.total / (1024.0 * 1024.0));
	}
	if (a.list && bidcache_list(dir, stdout)) {
		fprintf(stderr, "scorch buildid-cache: %s: cannot read\n", dir);
		return EXIT_FAIL;
	}
	return fflush(stdout) ? EXIT_FAIL : EXIT_OK;
}
