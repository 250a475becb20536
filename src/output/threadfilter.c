/* threadfilter.c: see threadfilter.h. */
#include "output/threadfilter.h"
#include "util/buf.h"
#include "util/parse.h"
#include "util/xalloc.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct id_list {
	uint32_t **ids;
	size_t *n, cap;
};

static int add_id(void *ctx, uint64_t id)
{
	struct id_list *l = ctx;
	if (ARRAY_GROW(*l->ids, l->cap, *l->n + 1, 1u << 20))
		return -ENOMEM;
	(*l->ids)[(*l->n)++] = (uint32_t)id;
	return 0;
}

int thread_filter_ids(const char *s, uint32_t **ids, size_t *n, const char **bad, size_t *bad_len)
{
	if (!s)
		return 0;
	struct id_list l = { ids, n, *n };
	struct parse_bad b;
	int rc = parse_id_list(s, 0, UINT32_MAX, add_id, &l, &b);
	if (rc == -ENOMEM)
		return rc;
	if (rc) {
		*bad = b.item;
		*bad_len = b.len;
		return -EINVAL;
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
