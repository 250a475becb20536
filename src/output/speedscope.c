/*
 * speedscope.c: see speedscope.h. The per-sample hook appends (leaf node,
 * weight) to its thread's run list, merging with the previous run when the
 * stack is the same, so time order is kept at the cost of 12 bytes per
 * change of stack. Writing expands each run's leaf to its stack by walking
 * parents (the tree holds every stack once).
 */
#include "output/speedscope.h"
#include "output/flame.h"
#include "util/buf.h"
#include "util/xalloc.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void speedscope_init(struct speedscope *sp)
{
	memset(sp, 0, sizeof(*sp));
	hmap_init(&sp->by_tid);
}

void speedscope_release(struct speedscope *sp)
{
	for (size_t i = 0; i < sp->nr; i++)
		free(sp->threads[i].runs);
	free(sp->threads);
	hmap_release(&sp->by_tid);
}

static void on_sample(void *ctx, uint32_t leaf, const struct resolved_sample *rs)
{
	struct speedscope *sp = ctx;
	if (!sp->ns_known && (rs->time_ns || rs->off_cpu)) {
		sp->ns = true; /* --off-cpu, --wall: weights are time */
		sp->ns_known = true;
	}
	if (!sp->ns_known) {
		const struct perf_attr *a = rs->attr;
		sp->ns = a && a->attr.type == PERF_TYPE_SOFTWARE &&
			 (a->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
			  a->attr.config == PERF_COUNT_SW_TASK_CLOCK);
		sp->ns_known = true;
	}
	uint64_t key = (uint64_t)rs->pid << 32 | rs->tid;
	uintptr_t got = (uintptr_t)hmap_get(&sp->by_tid, key);
	struct speedscope_thread *t;
	if (got) {
		t = &sp->threads[got - 1];
	} else {
		if (ARRAY_GROW(sp->threads, sp->cap, sp->nr + 1, 1u << 24))
			return;
		t = &sp->threads[sp->nr++];
		memset(t, 0, sizeof(*t));
		t->pid = rs->pid;
		t->tid = rs->tid;
		hmap_put(&sp->by_tid, key, (void *)(uintptr_t)sp->nr);
	}
	if (rs->comm && rs->comm[0])
		t->comm = rs->comm;
	uint64_t w = 1;
	if (rs->time_ns || rs->off_cpu) {
		w = rs->time_ns;
	} else if (sp->ns) {
		w = rs->ev ? rs->ev->s.period : 0;
		if (!w && rs->attr && !rs->attr->attr.freq)
			w = rs->attr->attr.sample_period;
		if (!w)
			w = 1;
	}
	t->total += w;
	if (t->nr && t->runs[t->nr - 1].leaf == leaf) {
		t->runs[t->nr - 1].weight += w;
		return;
	}
	if (ARRAY_GROW(t->runs, t->cap, t->nr + 1, (size_t)1 << 32))
		return;
	t->runs[t->nr++] = (struct speedscope_run){ leaf, w };
}

void speedscope_sink_config(struct speedscope *sp, struct profile_sink_config *c)
{
	/* stacks start at the outermost function: threads are profiles */
	c->root = PROFILE_ROOT_NONE;
	c->inline_frames = true;
	c->by_addr = false;
	c->unknown_by_addr = false;
	c->on_sample = on_sample;
	c->on_sample_ctx = sp;
	c->time_order = true; /* its runs are in time order */
}

static int cmp_thread(const void *a, const void *b, void *arg)
{
	const struct speedscope *sort_sp = arg;
	const struct speedscope_thread *x = &sort_sp->threads[*(const uint32_t *)a];
	const struct speedscope_thread *y = &sort_sp->threads[*(const uint32_t *)b];
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

int speedscope_write(struct speedscope *sp, const struct profile_sink *s, FILE *out)
{
	const struct profile *p = &s->prof;
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n", out);
	fputs("\"exporter\":\"scorch 0.1\",\"name\":", out);
	json_put_str(out, sp->name ? sp->name : "scorch profile");
	fputs(",\"activeProfileIndex\":0,\n\"shared\":{\"frames\":[\n", out);
	for (size_t i = 0; i < p->nr_frames; i++) {
		const struct pframe *f = &p->frames[i];
		if (i)
			fputs(",\n", out);
		fputs("{\"name\":", out);
		json_put_str(out, f->name);
		if (f->file || f->dso) {
			fputs(",\"file\":", out);
			json_put_str(out, f->file ? f->file : f->dso);
		}
		if (f->file && f->line)
			fprintf(out, ",\"line\":%u", f->line);
		putc('}', out);
	}
	fputs("]},\n\"profiles\":[", out);
	uint32_t *order = xcalloc(sp->nr ? sp->nr : 1, sizeof(uint32_t));
	for (size_t i = 0; i < sp->nr; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, sp->nr, sizeof(uint32_t), cmp_thread, sp);
	uint32_t *stack = NULL;
	size_t cap = 0;
	for (size_t ti = 0; ti < sp->nr; ti++) {
		const struct speedscope_thread *t = &sp->threads[order[ti]];
		fputs(ti ? ",\n{" : "\n{", out);
		char name[300];
		snprintf(name, sizeof(name), "%s (pid %u, tid %u)", t->comm ? t->comm : "?", t->pid, t->tid);
		fputs("\"type\":\"sampled\",\"name\":", out);
		json_put_str(out, name);
		fprintf(out, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64 ",\n\"samples\":[",
			sp->ns ? "nanoseconds" : "none", t->total);
		for (size_t r = 0; r < t->nr; r++) {
			size_t n = 0;
			for (uint32_t a = t->runs[r].leaf; a && a != PROFILE_NONE; a = p->nodes[a].parent) {
				if (ARRAY_GROW(stack, cap, n + 1, PROFILE_MAX_NODES))
					xalloc_die();
				stack[n++] = p->nodes[a].frame;
			}
			fputs(r ? ",[" : "[", out);
			for (size_t k = n; k-- > 0;)
				fprintf(out, k + 1 == n ? "%u" : ",%u", stack[k]);
			putc(']', out);
			if (r % 16 == 15)
				putc('\n', out);
		}
		fputs("],\n\"weights\":[", out);
		for (size_t r = 0; r < t->nr; r++)
			fprintf(out, r ? ",%" PRIu64 : "%" PRIu64, t->runs[r].weight);
		fputs("]}", out);
	}
	fputs("]}\n", out);
	free(stack);
	free(order);
	return ferror(out) ? -EIO : 0;
}
