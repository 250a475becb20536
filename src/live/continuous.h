/*
 * continuous.h: `scorch record --continuous DIR --interval SECS`: record
 * without end and write, every interval, the profile of that interval as
 * DIR/<host>-<start>.pb.gz (pprof, gzip'd; start as ISO 8601 UTC, e.g.
 * web1-20261130T101500Z.pb.gz), keeping the newest N files.
 *
 * Each interval is one stream of the recorder (switch-output by time: the
 * running processes are synthesized again at its start) analyzed by its own
 * pipeline, so an interval is exactly what `scorch report` would read from
 * a file recorded over it (--keep-raw writes that file next to the
 * profile, DIR/<host>-<start>.data, in perf's pipe format), and memory is
 * bounded by one interval: the session, the symbol caches and the profile
 * are freed when it ends, whatever ran before. Samples carry host, comm,
 * pid and tid labels; the profile's time and duration are the interval's.
 */
#ifndef SCORCH_CONTINUOUS_H
#define SCORCH_CONTINUOUS_H

#include "live/push.h"
#include "record/record.h"
#include "util/err.h"

struct continuous_config {
	const char *dir;
	uint64_t interval_ms;
	unsigned keep;           /* profiles kept (default 60) */
	bool keep_raw;           /* also the interval's recording (.data) */
	const char *host;        /* NULL: gethostname */
	const char *buildid_dir; /* as struct pipeline_config's */
	bool debuginfod;
	const char *push_url;    /* NULL: no push */
	const char *push_app;    /* application name (default "scorch") */
	unsigned push_queue;     /* see struct push_config */
	unsigned push_tries;
	unsigned push_backoff_ms;
	void (*log)(void *ctx, const char *msg);
	void *log_ctx;
};

struct continuous_result {
	unsigned profiles;       /* files written */
	unsigned removed;        /* old files removed (--keep) */
	struct push_stats push;
};

int continuous_run(const struct record_opts *ro, const struct continuous_config *c,
		   struct record_result *res, struct continuous_result *cres, struct err *e);

/* The line after a continuous run, on f: profiles written, samples, lost
 * ones, and with --push what was pushed, dropped and given up. Nothing
 * with ro->quiet. */
void continuous_summary(FILE *f, const struct record_opts *ro, const struct continuous_config *c,
			const struct record_result *res, const struct continuous_result *cres);

#endif
