/*
 * script.c: perf script's default format (see script.h).
 *
 * perf 6.1 prints the comm right-aligned in 16 columns, except when call
 * chains are printed, where it prints it unpadded; the tid in 5 columns; the
 * cpu as [%03d] only when samples carry it; the time as %5lu.%06lu; the
 * period in 10 columns when samples carry it; then "event: ".
 */
#include "output/script.h"
#include "util/buf.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct script {
	FILE *out;
	struct script_opts o;
	char line[8192];
	int name_width; /* perf pads event names to the longest one; -1 unset */
};

static int clampk(int k, size_t n)
{
	return k < 0 ? 0 : (size_t)k >= n ? (int)n - 1 : k;
}

int script_format_header(char *buf, size_t n, const struct resolved_sample *rs,
			 const struct perf_attr *pa, bool callchain_mode, int name_width)
{
	const struct perf_sample *s = &rs->ev->s;
	char commbuf[32];
	const char *comm = rs->comm;
	if (!comm && s->tid == 0)
		comm = "swapper"; /* perf names the idle task */
	if (!comm) {
		snprintf(commbuf, sizeof(commbuf), ":%d", (int)s->tid);
		comm = commbuf;
	}
	int k = clampk(callchain_mode ? snprintf(buf, n, "%s ", comm) : snprintf(buf, n, "%16s ", comm), n);
	uint64_t st = pa ? pa->attr.sample_type : 0;
	k = clampk(k + snprintf(buf + k, n - k, "%5d ", (int)s->tid), n);
	if (st & PERF_SAMPLE_CPU)
		k = clampk(k + snprintf(buf + k, n - k, "[%03u] ", s->cpu), n);
	if (st & PERF_SAMPLE_TIME)
		k = clampk(k + snprintf(buf + k, n - k, "%5" PRIu64 ".%06" PRIu64 ": ",
			      (uint64_t)(s->time / 1000000000u), (uint64_t)((s->time % 1000000000u) / 1000)), n);
	if (pa && pa->attr.type != PERF_TYPE_TRACEPOINT) /* perf prints it, fixed or not */
		k = clampk(k + snprintf(buf + k, n - k, "%10" PRIu64 " ", s->period), n);
	k = clampk(k + snprintf(buf + k, n - k, "%*s: ", name_width, pa && pa->name ? pa->name : "unknown"), n);
	return k;
}

static uint64_t frame_addr(const struct frame *f)
{
	/* perf prints user frames of a call chain DSO-relative, kernel ones absolute */
	if (f->map && f->kind == FRAME_USER)
		return f->rel;
	return f->ip;
}

int script_format_frame(char *buf, size_t n, const struct frame *f)
{
	const char *dso = f->dso ? f->dso : "[unknown]";
	/* perf prints an inline frame as "sym+off (inlined)", without the DSO */
	if (f->sym && f->inlined)
		return snprintf(buf, n, "%16" PRIx64 " %s+0x%" PRIx64 " (inlined)", frame_addr(f),
				f->sym, f->sym_off);
	if (f->sym)
		return snprintf(buf, n, "%16" PRIx64 " %s+0x%" PRIx64 " (%s)", frame_addr(f), f->sym,
				f->sym_off, dso);
	return snprintf(buf, n, "%16" PRIx64 " [unknown] (%s)", frame_addr(f), dso);
}

static int script_sample(void *ctx, struct pipeline *p, const struct resolved_sample *rs)
{
	struct script *sc = ctx;
	const struct perf_attr *pa = rs->attr;
	bool cc = pa && (pa->attr.sample_type & PERF_SAMPLE_CALLCHAIN);
	if (sc->o.raw) {
		const struct perf_sample *s = &rs->ev->s;
		uint64_t ip0 = s->ip;
		for (uint64_t i = 0; i < s->callchain_nr; i++)
			if (s->callchain[i] < PERF_CONTEXT_MAX) {
				ip0 = s->callchain[i];
				break;
			}
		fprintf(sc->out, "%s\t%d\t%d\t%llu\t%llu\t%llx\t%u\t%s\t%llx\n",
			rs->comm ? rs->comm : (s->tid ? "" : "swapper"), (int)s->pid, (int)s->tid,
			(unsigned long long)s->time, (unsigned long long)s->period,
			(unsigned long long)s->ip, s->cpu, pa && pa->name ? pa->name : "", (unsigned long long)ip0);
		return 0;
	}
	if (sc->name_width < 0) {
		struct perf_evlist *el = input_evlist(pipeline_input(p));
		sc->name_width = 0;
		for (size_t i = 0; i < el->nr; i++)
			if (el->attrs[i].name && (int)strlen(el->attrs[i].name) > sc->name_width)
				sc->name_width = (int)strlen(el->attrs[i].name);
	}
	script_format_header(sc->line, sizeof(sc->line), rs, pa, cc, sc->name_width);
	fputs(sc->line, sc->out);
	if (sc->o.headers_only) {
		fputc('\n', sc->out);
		return 0;
	}
	if (cc) {
		fputc('\n', sc->out);
		for (uint32_t i = 0; i < rs->nr_frames; i++) {
			if (rs->frames[i].inlined && !sc->o.show_inline)
				continue;
			script_format_frame(sc->line, sizeof(sc->line), &rs->frames[i]);
			fprintf(sc->out, "\t%s\n", sc->line);
		}
		fputc('\n', sc->out);
	} else if (rs->nr_frames) {
		const struct frame *f = &rs->frames[0];
		const char *dso = f->dso ? f->dso : "[unknown]";
		if (f->sym)
			fprintf(sc->out, " %16" PRIx64 " %s+0x%" PRIx64 " (%s)\n", f->ip, f->sym, f->sym_off, dso);
		else
			fprintf(sc->out, " %16" PRIx64 " [unknown] (%s)\n", f->ip, dso);
	} else {
		fputc('\n', sc->out);
	}
	return ferror(sc->out) ? -5 : 0;
}

static int script_end(void *ctx, struct pipeline *p, int rc)
{
	struct script *sc = ctx;
	int r = fflush(sc->out) ? -5 : 0;
	free(sc);
	return r;
}

int script_sink_init(struct sink *sink, FILE *out, const struct script_opts *o)
{
	struct script *sc = xcalloc(1, sizeof(*sc));
	sc->out = out;
	sc->name_width = -1;
	if (o)
		sc->o = *o;
	memset(sink, 0, sizeof(*sink));
	sink->ctx = sc;
	sink->sample = script_sample;
	sink->end = script_end;
	return 0;
}
