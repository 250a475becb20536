/* env.c: see env.h. */
#include "cli/env.h"
#include "util/annotate.h"
#include "util/cachedir.h"
#include "util/hugeheap.h"
#include "util/parse.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct cli_env env = { .huge_heap = true, .progress_delay = -1 };

/* set to anything but "" and "0" */
static bool on(const char *name)
{
	const char *v = getenv(name);
	return v && *v && strcmp(v, "0");
}

/* Whether a leak checker runs: then a run that the process exits after
 * frees what it made anyway (pipeline_config.exit_after). */
static bool leak_checked(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return true;
#else
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
	return true;
#endif
#endif
#ifdef RUNNING_ON_VALGRIND
	if (RUNNING_ON_VALGRIND)
		return true;
#endif
	const char *pre = getenv("LD_PRELOAD");
	return pre && strstr(pre, "vgpreload");
#endif
}

void cli_env_init(bool heap)
{
	const char *v = getenv("SCORCH_HUGE_HEAP");
	env.huge_heap = !(v && !strcmp(v, "0"));
	env.teardown = on("SCORCH_TEARDOWN") || leak_checked();
	v = getenv("DEBUGINFOD_URLS");
	env.debuginfod = v && *v;
	v = getenv("TMPDIR");
	env.tmpdir = v && *v ? v : NULL;
	const char *home = getenv("HOME");
	snprintf(env.buildid_dir, sizeof env.buildid_dir, "%s/.debug", home ? home : "/root");
	if ((v = getenv("SCORCH_PROGRESS_DELAY")))
		env.progress_delay = atof(v);
	v = getenv("SCORCH_PERFPARSER_JOBS");
	env.perfparser_jobs = v && *v ? v : NULL;

	struct cachedir_config cc = { .off = on("SCORCH_NO_CACHE"), .xdg_cache_home = getenv("XDG_CACHE_HOME"),
				      .home = home, .max = CACHEDIR_MAX_DEFAULT };
	uint64_t max;
	if ((v = getenv("SCORCH_CACHE_MAX")) && !parse_size(v, &max))
		cc.max = max;
	cachedir_configure(&cc);
	if (heap && env.huge_heap)
		hugeheap_init();
}

const struct cli_env *cli_env(void)
{
	return &env;
}

void cli_env_apply(struct pipeline_config *c)
{
	c->buildid_dir = env.buildid_dir;
	c->debuginfod = env.debuginfod;
	c->tmpdir = env.tmpdir;
	if (env.teardown)
		c->exit_after = false;
}
