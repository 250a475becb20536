/* progress.c: see progress.h. */
#include "output/progress.h"
#include "analyze/input.h"
#include <inttypes.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_init(struct progress *pr, FILE *out, const char *label, int width)
{
	memset(pr, 0, sizeof(*pr));
	pr->out = out;
	pr->label = label ? label : "reading";
	pr->width = width >= 40 ? width : 80;
	pr->start = now();
	pr->delay = 1.0;
}

static void human_bytes(char *buf, size_t n, uint64_t v)
{
	if (v >= (1ull << 30))
		snprintf(buf, n, "%.1f GiB", (double)v / (1ull << 30));
	else if (v >= (1ull << 20))
		snprintf(buf, n, "%.1f MiB", (double)v / (1ull << 20));
	else
		snprintf(buf, n, "%.0f KiB", (double)v / 1024);
}

void progress_format(char *buf, size_t n, const char *label, uint64_t pos, uint64_t size,
		     double elapsed, int width)
{
	char done[32], all[32];
	human_bytes(done, sizeof(done), pos);
	if (!size) {
		snprintf(buf, n, "%s: %s read, %.0f s", label, done, elapsed);
		return;
	}
	if (pos > size)
		pos = size;
	human_bytes(all, sizeof(all), size);
	double frac = (double)pos / (double)size;
	char tail[96];
	snprintf(tail, sizeof(tail), " %3.0f%% %s/%s %.0fs", frac * 100, done, all, elapsed);
	int bar = width - 1 - (int)strlen(label) - 3 - (int)strlen(tail);
	if (bar > 50)
		bar = 50;
	if (bar < 10)
		bar = 10;
	int fill = (int)(frac * bar + 0.5);
	int o = snprintf(buf, n, "%s [", label);
	for (int i = 0; i < bar && o + 2 < (int)n; i++)
		buf[o++] = i < fill ? '#' : '.';
	if (o < (int)n)
		snprintf(buf + o, n - o, "]%s", tail);
}

void progress_update(struct progress *pr, uint64_t pos, uint64_t size)
{
	if (!pr->out)
		return;
	double t = now();
	if (t - pr->start < pr->delay || (pr->drawn && t - pr->last < 0.1))
		return;
	char line[256];
	progress_format(line, sizeof(line), pr->label, pos, size, t - pr->start, pr->width);
	fprintf(pr->out, "\r%s\033[K", line);
	fflush(pr->out);
	pr->drawn = true;
	pr->last = t;
}

void progress_clear(struct progress *pr)
{
	if (pr->out && pr->drawn) {
		fputs("\r\033[K", pr->out);
		fflush(pr->out);
	}
	pr->drawn = false;
}

static int p_begin(void *ctx, struct pipeline *p)
{
	struct progress *pr = ctx;
	return pr->inner.begin ? pr->inner.begin(pr->inner.ctx, p) : 0;
}

static int p_event(void *ctx, struct pipeline *p, const struct perf_event *ev)
{
	struct progress *pr = ctx;
	if (pr->out && (++pr->records & 255) == 0) {
		struct input *in = pipeline_input(p);
		if (in)
			progress_update(pr, input_pos(in), input_size(in));
	}
	return pr->inner.event ? pr->inner.event(pr->inner.ctx, p, ev) : 0;
}

static int p_sample(void *ctx, struct pipeline *p, const struct resolved_sample *rs)
{
	struct progress *pr = ctx;
	return pr->inner.sample(pr->inner.ctx, p, rs);
}

static int p_end(void *ctx, struct pipeline *p, int rc)
{
	struct progress *pr = ctx;
	progress_clear(pr);
	return pr->inner.end ? pr->inner.end(pr->inner.ctx, p, rc) : rc;
}

void progress_wrap(struct progress *pr, const struct sink *inner, struct sink *outer)
{
	pr->inner = *inner;
	memset(outer, 0, sizeof(*outer));
	outer->ctx = pr;
	outer->begin = p_begin;
	outer->event = p_event; /* always: it is where progress is measured */
	outer->sample = inner->sample ? p_sample : NULL;
	outer->end = p_end;
	outer->any_order = inner->any_order; /* progress reads records in any order */
}
