/*
 * continuous.c: see continuous.h. live_run with the recorder rotating every
 * interval; each stream gets a fresh pprof collector. The profile is encoded
 * in the collector's finish callback (the pipeline's strings are alive
 * there), written to a temporary name and renamed, so a reader of DIR never
 * sees half a file; then the oldest files beyond --keep are removed and the
 * profile is queued for the push sender.
 */
#include "live/continuous.h"
#include "live/live.h"
#include "output/pprof.h"
#include "output/profile.h"
#include "util/sys.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CONT_MAX_FILES 100000

struct cont {
	const struct continuous_config *c;
	struct continuous_result *cres;
	char host[256];
	char labels[300];
	struct push *push;
	/* the current interval */
	bool open;
	struct pprof pp;
	struct profile_sink ps;
	struct sink sink;
	int64_t start_ns;        /* wall clock */
	char name[600];          /* DIR/<host>-<start> */
	struct buf body;         /* the encoded profile */
	int raw_fd;
	char raw_tmp[700];
	struct err *e;
};

static int64_t real_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void clog_(struct cont *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void clog_(struct cont *x, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sys_vlog(x->c->log, x->c->log_ctx, 800, fmt, ap);
	va_end(ap);
}

static int encode(void *ctx, struct profile_sink *s)
{
	struct cont *x = ctx;
	int64_t end = real_ns();
	x->pp.time_nanos = x->start_ns;
	x->pp.duration_nanos = end > x->start_ns ? end - x->start_ns : 1;
	x->body.len = 0;
	return pprof_encode(&x->pp, s, true, &x->body);
}

static int c_open(void *ctx, struct live *l, struct sink **sink)
{
	struct cont *x = ctx;
	x->start_ns = real_ns();
	time_t sec = (time_t)(x->start_ns / 1000000000LL);
	struct tm tm;
	gmtime_r(&sec, &tm);
	char stamp[40];
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(x->name, sizeof(x->name), "%s/%s-%s", x->c->dir, x->host, stamp);
	char probe[700];
	snprintf(probe, sizeof(probe), "%s.pb.gz", x->name);
	if (access(probe, F_OK) == 0) { /* two intervals in one second */
		strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
		snprintf(x->name, sizeof(x->name), "%s/%s-%s.%03dZ", x->c->dir, x->host, stamp,
			 (int)(x->start_ns / 1000000 % 1000));
	}
	pprof_init(&x->pp);
	x->pp.host = x->host;
	x->pp.comment = "scorch record --continuous";
	struct profile_sink_config pc;
	profile_sink_config_init(&pc);
	pprof_sink_config(&x->pp, &pc);
	pc.finish = encode;
	pc.finish_ctx = x;
	int rc = profile_sink_init(&x->ps, &pc, &x->sink);
	if (rc) {
		profile_sink_release(&x->ps);
		pprof_release(&x->pp);
		return rc;
	}
	x->open = true;
	x->raw_fd = -1;
	if (x->c->keep_raw) {
		snprintf(x->raw_tmp, sizeof(x->raw_tmp), "%s.data.tmp", x->name);
		x->raw_fd = open(x->raw_tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (x->raw_fd < 0)
			return err_set(x->e, -errno, "%s: %s", x->raw_tmp, strerror(errno));
	}
	*sink = &x->sink;
	return 0;
}

static int c_raw(void *ctx, const uint8_t *p, size_t n, bool head)
{
	struct cont *x = ctx;
	if (x->raw_fd < 0)
		return 0;
	int rc = sys_write_all(x->raw_fd, p, n, false);
	return rc ? err_set(x->e, rc, "%s: %s", x->raw_tmp, strerror(-rc)) : 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Remove the oldest DIR/<host>-*SUFFIX beyond keep (names sort by time). */
static void prune(struct cont *x, const char *suffix)
{
	DIR *d = opendir(x->c->dir);
	if (!d)
		return;
	char **v = NULL;
	size_t n = 0, cap = 0, hl = strlen(x->host), sl = strlen(suffix);
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l <= hl + 1 + sl || strncmp(de->d_name, x->host, hl) || de->d_name[hl] != '-' ||
		    strcmp(de->d_name + l - sl, suffix))
			continue;
		if (ARRAY_GROW(v, cap, n + 1, CONT_MAX_FILES))
			break;
		v[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (n - i > x->c->keep) {
			char path[1200];
			snprintf(path, sizeof(path), "%s/%s", x->c->dir, v[i]);
			if (unlink(path) == 0 && !strcmp(suffix, ".pb.gz"))
				x->cres->removed++;
		}
		free(v[i]);
	}
	free(v);
}

static int c_close(void *ctx, struct live *l, int rc)
{
	struct cont *x = ctx;
	if (!x->open)
		return 0;
	x->open = false;
	int wrc = 0;
	if (x->raw_fd >= 0) {
		close(x->raw_fd);
		x->raw_fd = -1;
		char path[700];
		snprintf(path, sizeof(path), "%s.data", x->name);
		if (rc == 0 && rename(x->raw_tmp, path) < 0)
			wrc = err_set(x->e, -errno, "%s: %s", path, strerror(errno));
		else if (rc)
			unlink(x->raw_tmp);
	}
	if (rc == 0 && x->body.len && !wrc) {
		char tmp[700], path[700];
		snprintf(tmp, sizeof(tmp), "%s.pb.gz.tmp", x->name);
		snprintf(path, sizeof(path), "%s.pb.gz", x->name);
		int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			wrc = err_set(x->e, -errno, "%s: %s", tmp, strerror(errno));
		} else {
			wrc = sys_write_all(fd, x->body.data, x->body.len, false);
			if (close(fd) < 0 && !wrc)
				wrc = -errno;
			if (!wrc && rename(tmp, path) < 0)
				wrc = -errno;
			if (wrc) {
				unlink(tmp);
				err_set(x->e, wrc, "%s: %s", path, strerror(-wrc));
			}
		}
		if (!wrc) {
			x->cres->profiles++;
			clog_(x, "wrote %s (%llu samples)", path, (unsigned long long)x->ps.prof.samples);
			prune(x, ".pb.gz");
			if (x->c->keep_raw)
				prune(x, ".data");
			if (x->push) {
				/* the queue takes the buffer; a new one for the next */
				push_enqueue(x->push, &x->body, x->start_ns / 1000000000LL,
					     real_ns() / 1000000000LL + 1);
				buf_init(&x->body, (size_t)1 << 30);
			}
		}
	}
	x->body.len = 0;
	profile_sink_release(&x->ps);
	pprof_release(&x->pp);
	return wrc;
}

static void host_name(char *out, size_t n, const char *given)
{
	char h[256] = "localhost";
	if (given)
		snprintf(h, sizeof(h), "%s", given);
	else if (gethostname(h, sizeof(h)) < 0)
		snprintf(h, sizeof(h), "localhost");
	h[sizeof(h) - 1] = 0;
	/* a file name and a label value: keep [A-Za-z0-9._-] */
	size_t j = 0;
	for (size_t i = 0; h[i] && j + 1 < n; i++) {
		char c = h[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			  c == '.' || c == '_' || c == '-';
		out[j++] = ok ? c : '_';
	}
	out[j] = 0;
	if (!j)
		snprintf(out, n, "localhost");
}

int continuous_run(const struct record_opts *ro, const struct continuous_config *c,
		   struct record_result *res, struct continuous_result *cres, struct err *e)
{
	struct cont x = { .c = c, .cres = cres, .raw_fd = -1, .e = e };
	memset(cres, 0, sizeof(*cres));
	buf_init(&x.body, (size_t)1 << 30);
	host_name(x.host, sizeof(x.host), c->host);
	struct stat st;
	if (stat(c->dir, &st) < 0 && mkdir(c->dir, 0755) < 0)
		return err_set(e, -errno, "%s: %s", c->dir, strerror(errno));
	if (stat(c->dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return err_set(e, -ENOTDIR, "%s: not a directory", c->dir);
	if (c->push_url) {
		snprintf(x.labels, sizeof(x.labels), "host=%s", x.host);
		struct push_config pc = { .url = c->push_url, .app = c->push_app, .labels = x.labels,
					  .queue = c->push_queue, .max_tries = c->push_tries,
					  .max_backoff_ms = c->push_backoff_ms, .log = c->log,
					  .log_ctx = c->log_ctx };
		x.push = push_new(&pc, e);
		if (!x.push)
			return -EINVAL;
	}
	struct record_opts o = *ro;
	o.switch_mode = RECORD_SWITCH_TIME;
	o.switch_ms = c->interval_ms;
	o.rt_prio = 0; /* the analysis shares the reader's thread */
	struct pipeline_config pc;
	pipeline_config_init(&pc);
	pc.input = "(continuous)";
	pc.buildid_dir = c->buildid_dir;
	pc.debuginfod = c->debuginfod;
	pc.order.buffer_size = 0;
	pc.warn = NULL;
	struct live_ops ops = { .ctx = &x, .open = c_open, .close = c_close, .raw = c_raw };
	int rc = live_run(&o, &pc, &ops, res, e);
	if (x.raw_fd >= 0) {
		close(x.raw_fd);
		unlink(x.raw_tmp);
	}
	/* what is queued gets a few seconds to go out */
	push_free(x.push, 5000, &cres->push);
	buf_release(&x.body);
	return rc;
}

void continuous_summary(FILE *f, const struct record_opts *ro, const struct continuous_config *c,
			const struct record_result *res, const struct continuous_result *cres)
{
	if (ro->quiet)
		return;
	fprintf(f, "[ scorch record: %u profiles in %s, %llu samples, %llu lost", cres->profiles,
		c->dir, (unsigned long long)res->samples, (unsigned long long)res->lost);
	if (c->push_url)
		fprintf(f, "; pushed %llu, dropped %llu, given up %llu",
			(unsigned long long)cres->push.sent, (unsigned long long)cres->push.dropped,
			(unsigned long long)cres->push.given_up);
	fprintf(f, " ]\n");
}
