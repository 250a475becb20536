/*
 * env.h: the environment settings scorch(1) lists under ENVIRONMENT, read
 * once here (cli_env_init, first thing in main) and handed on: the cache
 * configuration to util/cachedir.h, the heap to util/hugeheap.h, the rest
 * into each run's struct pipeline_config (cli_env_apply). Nothing below
 * src/cli reads the environment.
 */
#ifndef SCORCH_CLI_ENV_H
#define SCORCH_CLI_ENV_H

#include "analyze/pipeline.h"
#include <stdbool.h>

struct cli_env {
	bool huge_heap;          /* SCORCH_HUGE_HEAP is not 0 */
	bool teardown;           /* SCORCH_TEARDOWN=1, or a leak checker runs */
	bool debuginfod;         /* DEBUGINFOD_URLS is set */
	const char *tmpdir;      /* TMPDIR (NULL: /tmp) */
	char buildid_dir[4096];  /* $HOME/.debug (perf's build-id cache) */
	double progress_delay;   /* SCORCH_PROGRESS_DELAY (-1: the default) */
	const char *perfparser_jobs; /* SCORCH_PERFPARSER_JOBS (NULL: unset) */
};

/* Read the environment; the caches configured. heap: the command is an
 * analysis one (the huge-page heap set up unless SCORCH_HUGE_HEAP=0). */
void cli_env_init(bool heap);
const struct cli_env *cli_env(void);
/* What the environment says about an analysis run: build-id cache,
 * debuginfod, temporary files; exit_after off where everything must be
 * freed (SCORCH_TEARDOWN=1, a leak checker). */
void cli_env_apply(struct pipeline_config *c);

#endif
