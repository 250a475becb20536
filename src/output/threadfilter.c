/* threadfilter.c: see threadfilter.h. */
#include "output/threadfilter.h"
#include "util/buf.h"
#include "util/xalloc.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int thread_filter_ids(const char *s, uint32_t **ids, size_t *n, const char **bad, size_t *bad_len)
{
	if (!s)
		return 0;
	size_t cap = *n;
	const char *q = s;
	while (*q) {
		char *end;
		errno = 0;
		unsigned long v = strtoul(q, &end, 10);
		if (end == q || errno || v > UINT32_MAX || (*end && *end != ',')) {
			const char *e = strchr(q, ',');
			*bad = q;
			*bad_len = e ? (size_t)(e - q) : strlen(q);
			return -EINVAL;
		}
		if (ARRAY_GROW(*ids, cap, *n + 1, 1u << 20))
			return -ENOMEM;
		(*ids)[(*n)++] = (uint32_t)v;
		q = *end ? end + 1 : end;
	}
	return 0;
}

int thread_filter_comms(struct thread_filter *f, const char *s)
{
	if (!s)
		return 0;
	size_t cap = f->nr_comms;
	const char *q = s;
	while (*q) {
		const char *e = strchr(q, ',');
		size_t len = e ? (size_t)(e - q) : strlen(q);
		if (ARRAY_GROW(f->comms, cap, f->nr_comms + 1, 1u << 20))
			return -ENOMEM;
		f->comms[f->nr_comms++] = xstrndup(q, len);
		q += len;
		if (*q)
			q++;
	}
	return 0;
}

static bool in_u32(const uint32_t *l, size_t n, uint32_t v)
{
	for (size_t i = 0; i < n; i++)
		if (l[i] == v)
			return true;
	return false;
}

bool thread_filter_keeps(const struct thread_filter *f, uint32_t pid, uint32_t tid, const char *comm)
{
	if (f->nr_pids && !in_u32(f->pids, f->nr_pids, pid))
		return false;
	if (f->nr_tids && !in_u32(f->tids, f->nr_tids, tid))
		return false;
	if (f->nr_comms) {
		for (size_t i = 0; i < f->nr_comms; i++)
			if (!strcmp(f->comms[i], comm))
				return true;
		return false;
	}
	return true;
}

void thread_filter_release(struct thread_filter *f)
{
	for (size_t i = 0; i < f->nr_comms; i++)
		free(f->comms[i]);
	free(f->comms);
	free(f->pids);
	free(f->tids);
	memset(f, 0, sizeof(*f));
}
