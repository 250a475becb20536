/*
 * header.c: the file header (perf_file_header_parse: magic, attrs and ids,
 * the table of feature sections) and the feature sections. Each feature
 * parser reads through a bounds-checked cursor over the section; counts are
 * checked against the bytes left (each element takes at least 4 bytes)
 * before anything is allocated, so a hostile count cannot drive a large
 * allocation.
 */
#include "perf/header.h"
#include "perf/swap.h"
#include "util/buf.h"
#include "util/load.h"
#include "util/xalloc.h"
#include <byteswap.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

struct fc {
	const uint8_t *p, *end, *base;
	uint64_t off;
	struct err *e;
	const char *feat;
};

static uint64_t fc_pos(const struct fc *c)
{
	return c->off + (uint64_t)(c->p - c->base);
}

static int fc_need(struct fc *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n)
		return err_at(c->e, fc_pos(c), "feature %s: needs %llu bytes, %llu left", c->feat,
			      (unsigned long long)n, (unsigned long long)(c->end - c->p));
	return 0;
}

static int fc_u32(struct fc *c, uint32_t *v)
{
	if (fc_need(c, 4))
		return -EINVAL;
	memcpy(v, c->p, 4);
	c->p += 4;
	return 0;
}

static int fc_u64(struct fc *c, uint64_t *v)
{
	if (fc_need(c, 8))
		return -EINVAL;
	memcpy(v, c->p, 8);
	c->p += 8;
	return 0;
}

static int fc_str(struct fc *c, char **out)
{
	uint32_t len;
	if (fc_u32(c, &len) || fc_need(c, len))
		return -EINVAL;
	*out = xstrndup((const char *)c->p, len);
	c->p += len;
	return 0;
}

/* A count of elements of at least min_size bytes each. */
static int fc_count(struct fc *c, uint32_t *n, uint32_t min_size)
{
	if (fc_u32(c, n))
		return -EINVAL;
	if ((uint64_t)*n * min_size > (uint64_t)(c->end - c->p))
		return err_at(c->e, fc_pos(c) - 4, "feature %s: count %u exceeds the section", c->feat, *n);
	return 0;
}

static int fc_strlist(struct fc *c, struct perf_strlist *l)
{
	uint32_t n;
	if (fc_count(c, &n, 4))
		return -EINVAL;
	l->s = xcalloc(n ? n : 1, sizeof(char *));
	for (l->nr = 0; l->nr < n;)
		if (fc_str(c, &l->s[l->nr++]))
			return -EINVAL;
	return 0;
}

static void strlist_free(struct perf_strlist *l)
{
	for (uint32_t i = 0; i < l->nr; i++)
		free(l->s[i]);
	free(l->s);
	memset(l, 0, sizeof(*l));
}

void perf_header_init(struct perf_header *h)
{
	memset(h, 0, sizeof(*h));
}

static int parse_feature(struct perf_header *h, struct perf_evlist *el, unsigned bit,
			 const uint8_t *p, uint64_t size, uint64_t off, struct err *e);

int perf_header_parse_feature(struct perf_header *h, struct perf_evlist *el, unsigned bit,
			      const uint8_t *p, uint64_t size, uint64_t off, struct err *e)
{
	struct err fe = { 0 };
	int rc = parse_feature(h, el, bit, p, size, off, &fe);
	if (rc == 0)
		return 0;
	if (rc == -ENOMEM) {
		*e = fe;
		return rc;
	}
	/* Samples need the attrs and the data section, not the features: a
	 * damaged one is dropped with a warning, as perf does. */
	if (bit < PERF_FEAT_BITS)
		h->features[bit / 64] &= ~(1ull << (bit % 64));
	if (h->nr_warnings < PERF_HEADER_MAX_WARNINGS) {
		char msg[sizeof(fe.msg) + 96];
		if (fe.has_offset)
			snprintf(msg, sizeof msg, "offset %llu: %s; feature ignored",
				 (unsigned long long)fe.offset, fe.msg);
		else
			snprintf(msg, sizeof msg, "%s; feature ignored", fe.msg);
		h->warnings[h->nr_warnings++] = xstrdup(msg);
	}
	return 0;
}

void perf_header_release(struct perf_header *h)
{
	for (unsigned i = 0; i < h->nr_warnings; i++)
		free(h->warnings[i]);
	free(h->hostname);
	free(h->osrelease);
	free(h->version);
	free(h->arch);
	free(h->cpudesc);
	free(h->cpuid);
	strlist_free(&h->cmdline);
	strlist_free(&h->cpu_topo.core_siblings);
	strlist_free(&h->cpu_topo.thread_siblings);
	strlist_free(&h->cpu_topo.die_siblings);
	free(h->cpu_topo.core_id);
	free(h->cpu_topo.socket_id);
	free(h->cpu_topo.die_id);
	for (uint32_t i = 0; i < h->nr_numa; i++)
		free(h->numa[i].cpus);
	free(h->numa);
	for (uint32_t i = 0; i < h->nr_pmu; i++)
		free(h->pmu[i].name);
	free(h->pmu);
	for (uint32_t i = 0; i < h->nr_groups; i++)
		free(h->groups[i].name);
	free(h->groups);
	for (uint32_t i = 0; i < h->nr_caches; i++) {
		free(h->caches[i].type);
		free(h->caches[i].size);
		free(h->caches[i].map);
	}
	free(h->caches);
	for (uint32_t i = 0; i < h->nr_build_ids; i++)
		free(h->build_ids[i].filename);
	free(h->build_ids);
	strlist_free(&h->cpu_pmu_caps);
	free(h->tracing_data);
	tracing_release(&h->tracing);
	memset(h, 0, sizeof(*h));
}

int perf_header_parse_build_ids(struct perf_header *h, const uint8_t *p, uint64_t size,
				uint64_t off, struct err *e)
{
	uint64_t pos = 0;
	size_t cap = h->nr_build_ids;
	while (pos + 8 <= size) {
		struct perf_event_header eh;
		memcpy(&eh, p + pos, 8);
		if (eh.size < 8 + 4 + 24 || eh.size > size - pos)
			return err_at(e, off + pos, "build id record of size %u does not fit", eh.size);
		if (h->nr_build_ids >= 1u << 20)
			return err_at(e, off + pos, "more than %u build ids", 1u << 20);
		if (ARRAY_GROW(h->build_ids, cap, h->nr_build_ids + 1, 1u << 20))
			return err_set(e, -ENOMEM, "out of memory");
		struct perf_build_id *b = &h->build_ids[h->nr_build_ids++];
		memset(b, 0, sizeof(*b));
		const uint8_t *r = p + pos;
		memcpy(&b->pid, r + 8, 4);
		b->misc = eh.misc;
		memcpy(b->id, r + 12, 20);
		/* PERF_RECORD_MISC_BUILD_ID_SIZE (1 << 15): size at byte 20 */
		b->size = (eh.misc & (1 << 15)) ? (r[32] > 20 ? 20 : r[32]) : 20;
		b->filename = xstrndup((const char *)r + 36, eh.size - 36);
		pos += eh.size;
	}
	return 0;
}

static int parse_event_desc(struct fc *c, struct perf_evlist *el)
{
	uint32_t nr, asz;
	if (fc_count(c, &nr, 8) || fc_u32(c, &asz))
		return -EINVAL;
	if (asz < PERF_ATTR_SIZE_MIN || asz > 4096)
		return err_at(c->e, fc_pos(c) - 4, "event_desc attr size %u is invalid", asz);
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t nids;
		char *name = NULL;
		if (fc_need(c, asz))
			return -EINVAL;
		c->p += asz;
		if (fc_u32(c, &nids) || fc_str(c, &name))
			return -EINVAL;
		if ((uint64_t)nids * 8 > (uint64_t)(c->end - c->p)) {
			free(name);
			return err_at(c->e, fc_pos(c), "event_desc: %u ids exceed the section", nids);
		}
		c->p += (uint64_t)nids * 8;
		if (i < el->nr && name[0]) {
			free(el->attrs[i].name);
			el->attrs[i].name = name;
			el->attrs[i].name_recorded = true;
		} else {
			free(name);
		}
	}
	return 0;
}

static int parse_cpu_topo(struct fc *c, struct perf_header *h)
{
	struct perf_cpu_topo *t = &h->cpu_topo;
	if (fc_strlist(c, &t->core_siblings) || fc_strlist(c, &t->thread_siblings))
		return -EINVAL;
	if (c->p == c->end)
		return 0;
	uint32_t n = h->nr_cpus_avail;
	if ((uint64_t)n * 8 > (uint64_t)(c->end - c->p))
		return 0; /* old files: no per-cpu ids */
	t->nr_cpus = n;
	t->core_id = xcalloc(n ? n : 1, 4);
	t->socket_id = xcalloc(n ? n : 1, 4);
	for (uint32_t i = 0; i < n; i++)
		if (fc_u32(c, &t->core_id[i]) || fc_u32(c, &t->socket_id[i]))
			return -EINVAL;
	if (c->p == c->end)
		return 0;
	if (fc_strlist(c, &t->die_siblings))
		return -EINVAL;
	if ((uint64_t)n * 4 > (uint64_t)(c->end - c->p))
		return 0;
	t->die_id = xcalloc(n ? n : 1, 4);
	for (uint32_t i = 0; i < n; i++)
		if (fc_u32(c, &t->die_id[i]))
			return -EINVAL;
	return 0;
}

void perf_header_name_tracepoints(const struct perf_header *h, struct perf_evlist *el)
{
	for (size_t i = 0; i < el->nr; i++) {
		struct perf_attr *pa = &el->attrs[i];
		if (pa->attr.type != PERF_TYPE_TRACEPOINT || strncmp(pa->name, "tracepoint:", 11))
			continue;
		const struct tracing_event *te = tracing_find(&h->tracing, pa->attr.config);
		if (!te)
			continue;
		size_t n = strlen(te->system) + strlen(te->name) + 2;
		char *nm = xcalloc(1, n);
		snprintf(nm, n, "%s:%s", te->system, te->name);
		free(pa->name);
		pa->name = nm;
		pa->name_recorded = true;
	}
}

static int parse_feature(struct perf_header *h, struct perf_evlist *el, unsigned bit,
			 const uint8_t *p, uint64_t size, uint64_t off, struct err *e)
{
	const char *name = perf_feature_name(bit);
	struct fc c = { .p = p, .end = p + size, .base = p, .off = off, .e = e, .feat = name ? name : "?" };
	if (bit < PERF_FEAT_BITS)
		h->features[bit / 64] |= 1ull << (bit % 64);
	switch (bit) {
	case HEADER_HOSTNAME: free(h->hostname); return fc_str(&c, &h->hostname);
	case HEADER_OSRELEASE: free(h->osrelease); return fc_str(&c, &h->osrelease);
	case HEADER_VERSION: free(h->version); return fc_str(&c, &h->version);
	case HEADER_ARCH: free(h->arch); return fc_str(&c, &h->arch);
	case HEADER_CPUDESC: free(h->cpudesc); return fc_str(&c, &h->cpudesc);
	case HEADER_CPUID: free(h->cpuid); return fc_str(&c, &h->cpuid);
	case HEADER_NRCPUS:
		return fc_u32(&c, &h->nr_cpus_avail) || fc_u32(&c, &h->nr_cpus_online) ? -EINVAL : 0;
	case HEADER_TOTAL_MEM:
		return fc_u64(&c, &h->total_mem);
	case HEADER_CMDLINE:
		strlist_free(&h->cmdline);
		return fc_strlist(&c, &h->cmdline);
	case HEADER_EVENT_DESC:
		return parse_event_desc(&c, el);
	case HEADER_CPU_TOPOLOGY:
		return parse_cpu_topo(&c, h);
	case HEADER_NUMA_TOPOLOGY: {
		uint32_t n;
		if (h->numa || fc_count(&c, &n, 24))
			return h->numa ? 0 : -EINVAL;
		h->numa = xcalloc(n ? n : 1, sizeof(*h->numa));
		/* count an element before filling it: a failure midway frees it */
		for (h->nr_numa = 0; h->nr_numa < n;) {
			struct perf_numa_node *nn = &h->numa[h->nr_numa++];
			if (fc_u32(&c, &nn->node) || fc_u64(&c, &nn->mem_total) || fc_u64(&c, &nn->mem_free) ||
			    fc_str(&c, &nn->cpus))
				return -EINVAL;
		}
		return 0;
	}
	case HEADER_PMU_MAPPINGS: {
		uint32_t n;
		if (h->pmu || fc_count(&c, &n, 8))
			return h->pmu ? 0 : -EINVAL;
		h->pmu = xcalloc(n ? n : 1, sizeof(*h->pmu));
		for (h->nr_pmu = 0; h->nr_pmu < n;) {
			struct perf_pmu_mapping *m = &h->pmu[h->nr_pmu++];
			if (fc_u32(&c, &m->type) || fc_str(&c, &m->name))
				return -EINVAL;
		}
		return 0;
	}
	case HEADER_GROUP_DESC: {
		uint32_t n;
		if (h->groups || fc_count(&c, &n, 12))
			return h->groups ? 0 : -EINVAL;
		h->groups = xcalloc(n ? n : 1, sizeof(*h->groups));
		for (h->nr_groups = 0; h->nr_groups < n;) {
			struct perf_group_desc *g = &h->groups[h->nr_groups++];
			if (fc_str(&c, &g->name) || fc_u32(&c, &g->leader_idx) || fc_u32(&c, &g->nr_members))
				return -EINVAL;
		}
		return 0;
	}
	case HEADER_CACHE: {
		uint32_t ver, n;
		if (h->caches || fc_u32(&c, &ver) || fc_count(&c, &n, 28))
			return h->caches ? 0 : -EINVAL;
		h->caches = xcalloc(n ? n : 1, sizeof(*h->caches));
		for (h->nr_caches = 0; h->nr_caches < n;) {
			struct perf_cache_level *l = &h->caches[h->nr_caches++];
			if (fc_u32(&c, &l->level) || fc_u32(&c, &l->line_size) || fc_u32(&c, &l->sets) ||
			    fc_u32(&c, &l->ways) || fc_str(&c, &l->type) || fc_str(&c, &l->size) ||
			    fc_str(&c, &l->map))
				return -EINVAL;
		}
		return 0;
	}
	case HEADER_CLOCKID:
		return fc_u64(&c, &h->clockid_res_ns);
	case HEADER_CLOCK_DATA: {
		uint32_t ver;
		if (fc_u32(&c, &ver) || fc_u32(&c, &h->clock_data_clockid) || fc_u64(&c, &h->clock_wall_ns) ||
		    fc_u64(&c, &h->clock_clk_ns))
			return -EINVAL;
		h->has_clock_data = true;
		return 0;
	}
	case HEADER_SAMPLE_TIME:
		return fc_u64(&c, &h->sample_time_first) || fc_u64(&c, &h->sample_time_last) ? -EINVAL : 0;
	case HEADER_COMPRESSED:
		return fc_u32(&c, &h->comp_ver) || fc_u32(&c, &h->comp_type) || fc_u32(&c, &h->comp_level) ||
		       fc_u32(&c, &h->comp_ratio) || fc_u32(&c, &h->comp_mmap_len) ? -EINVAL : 0;
	case HEADER_DIR_FORMAT:
		return fc_u64(&c, &h->dir_format_version);
	case HEADER_BUILD_ID:
		return perf_header_parse_build_ids(h, p, size, off, e);
	case HEADER_CPU_PMU_CAPS:
		if (h->cpu_pmu_caps.s)
			return 0;
		return fc_strlist(&c, &h->cpu_pmu_caps);
	case HEADER_TRACING_DATA:
		if (!h->tracing_data && size && size < (1u << 30)) {
			h->tracing_data = xmalloc_input(size, (size_t)1 << 30);
			if (!h->tracing_data)
				return err_set(e, -ENOMEM, "out of memory for tracing data");
			memcpy(h->tracing_data, p, size);
			h->tracing_data_size = size;
			struct err te = { 0 };
			/* a malformed tracing section does not make the file
			 * unreadable: the formats read before the damage name
			 * their tracepoints, the others stay "tracepoint:ID" */
			tracing_parse(h->tracing_data, size, &h->tracing, &te);
			perf_header_name_tracepoints(h, el);
		}
		return 0;
	default:
		/* branch_stack has no payload; auxtrace, stat, mem_topology, bpf_*,
		 * hybrid_topology, pmu_caps and unknown bits: kept as present, skipped. */
		return 0;
	}
}

/* ---- the file header: magic, attrs and ids, the feature table ---- */

int perf_file_header_parse(struct perf_header *h, struct perf_evlist *el, const uint8_t *m, size_t len,
			   struct err *e)
{
	if (len < 16)
		return err_at(e, 0, "file too small for a perf.data header (%zu bytes)", len);
	uint64_t magic = load_u64(m), hsize = load_u64(m + 8);
	if (magic == PERF_MAGIC2_SWAPPED) {
		h->swap = el->swap = true;
		hsize = bswap_64(hsize);
	} else if (magic != PERF_MAGIC2) {
		return err_at(e, 0, "bad magic: not a perf.data file (PERFILE2)");
	}
	if (hsize == sizeof(struct perf_pipe_file_header)) {
		h->pipe = true;
		return 0;
	}
	if (hsize < PERF_FILE_HEADER_SIZE || len < PERF_FILE_HEADER_SIZE)
		return err_at(e, 8, "header size %llu is not %d", (unsigned long long)hsize, PERF_FILE_HEADER_SIZE);
	struct perf_file_header fh;
	memcpy(&fh, m, sizeof(fh));
	if (h->swap)
		perf_u64s_swap((uint64_t *)&fh, sizeof(fh) / 8);
	memcpy(h->features, fh.adds_features, sizeof(fh.adds_features));
	h->attr_size = fh.attr_size;
	uint64_t flen = len;
	if (fh.data.offset > flen || fh.data.offset < hsize)
		return err_at(e, 40, "data section offset %llu is outside the file (%llu bytes)",
			      (unsigned long long)fh.data.offset, (unsigned long long)flen);
	uint64_t dsize = fh.data.size;
	/* A file whose recording was cut short has data.size 0 or too large:
	 * read what is there (perf and perfparser do the same). */
	if (dsize == 0 || dsize > flen - fh.data.offset)
		dsize = flen - fh.data.offset;
	h->data_offset = fh.data.offset;
	h->data_size = dsize;

	/* attrs */
	if (fh.attr_size < PERF_ATTR_SIZE_MIN + 16 || fh.attr_size > 4096)
		return err_at(e, 16, "attr size %llu is invalid", (unsigned long long)fh.attr_size);
	if (fh.attrs.offset > flen || fh.attrs.size > flen - fh.attrs.offset)
		return err_at(e, 24, "attrs section (offset %llu, size %llu) is outside the file",
			      (unsigned long long)fh.attrs.offset, (unsigned long long)fh.attrs.size);
	uint64_t nattr = fh.attrs.size / fh.attr_size;
	if (nattr == 0)
		return err_at(e, 24, "file has no event attrs");
	for (uint64_t i = 0; i < nattr; i++) {
		uint64_t ao = fh.attrs.offset + i * fh.attr_size;
		uint32_t asz = (uint32_t)(fh.attr_size - 16);
		uint8_t abuf[4096];
		memcpy(abuf, m + ao, asz);
		struct perf_file_section ids;
		memcpy(&ids, m + ao + asz, 16);
		if (h->swap) {
			perf_attr_swap(abuf, asz);
			perf_u64s_swap((uint64_t *)&ids, 2);
		}
		if (ids.offset > flen || ids.size > flen - ids.offset)
			return err_at(e, ao + asz, "attr %llu ids (offset %llu, size %llu) are outside the file",
				      (unsigned long long)i, (unsigned long long)ids.offset,
				      (unsigned long long)ids.size);
		size_t nids = ids.size / 8;
		uint64_t *idv = NULL;
		if (nids) {
			idv = xmalloc(nids * 8);
			memcpy(idv, m + ids.offset, nids * 8);
			if (h->swap)
				perf_u64s_swap(idv, nids);
		}
		int rc = perf_evlist_add(el, abuf, asz, idv, nids, ao, e);
		free(idv);
		if (rc)
			return rc;
	}
	perf_evlist_finalize(el);

	/* features: one section per set bit, after the data section */
	uint64_t fo = fh.data.offset + fh.data.size;
	h->feat_offset = fo;
	if (h->swap)
		return 0; /* feature payloads of opposite-endian files are not decoded */
	unsigned nfeat = 0;
	for (unsigned b = 0; b < PERF_FEAT_BITS; b++)
		if (perf_header_has(h, b))
			nfeat++;
	/* A file cut short (a killed recording) loses its features, not its
	 * data: features that are not all there are skipped. */
	if (nfeat && (fo > flen || (uint64_t)nfeat * 16 > flen - fo)) {
		h->features_skipped = nfeat;
		return 0;
	}
	unsigned k = 0;
	for (unsigned b = 0; b < PERF_FEAT_BITS; b++) {
		if (!perf_header_has(h, b))
			continue;
		struct perf_file_section s;
		memcpy(&s, m + fo + 16 * k, 16);
		k++;
		if (s.offset > flen || s.size > flen - s.offset) {
			h->features_skipped++;
			continue;
		}
		int rc = perf_header_parse_feature(h, el, b, m + s.offset, s.size, s.offset, e);
		if (rc)
			return rc;
	}
	return 0;
}
