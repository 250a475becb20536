/*
 * writer.c: perf.data writing (see writer.h for the layout). Every value comes
 * from the caller or from /proc and /sys; the encodings follow perf's reader
 * so that perf, hotspot-perfparser and our own reader accept the file.
 */
#include "perf/writer.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define NAME_ALIGN 64

void perf_feats_init(struct perf_feats *f)
{
	memset(f, 0, sizeof(*f));
	for (unsigned i = 0; i < HEADER_LAST_FEATURE; i++)
		buf_init(&f->sec[i], 64u << 20);
}

void perf_feats_release(struct perf_feats *f)
{
	for (unsigned i = 0; i < HEADER_LAST_FEATURE; i++)
		buf_release(&f->sec[i]);
	memset(f->bits, 0, sizeof(f->bits));
}

struct buf *perf_feats_begin(struct perf_feats *f, unsigned bit)
{
	f->bits[bit / 64] |= 1ULL << (bit % 64);
	f->sec[bit].len = 0;
	return &f->sec[bit];
}

void perf_feats_clear(struct perf_feats *f, unsigned bit)
{
	f->bits[bit / 64] &= ~(1ULL << (bit % 64));
	f->sec[bit].len = 0;
}

static int feat_has(const struct perf_feats *f, unsigned bit)
{
	return (f->bits[bit / 64] >> (bit % 64)) & 1;
}

int perf_enc_u32(struct buf *b, uint32_t v)
{
	return buf_append(b, &v, 4);
}

int perf_enc_u64(struct buf *b, uint64_t v)
{
	return buf_append(b, &v, 8);
}

int perf_enc_string(struct buf *b, const char *s)
{
	size_t olen = strlen(s) + 1;
	size_t len = (olen + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	int rc = perf_enc_u32(b, (uint32_t)len);
	if (!rc)
		rc = buf_reserve(b, len);
	if (rc)
		return rc;
	memcpy(b->data + b->len, s, olen);
	memset(b->data + b->len + olen, 0, len - olen);
	b->len += len;
	return 0;
}

/* First line of file path, trailing newline stripped; NULL when unreadable. */
static char *read_line(const char *path, char *out, size_t n)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return NULL;
	char *r = fgets(out, (int)n, fp);
	fclose(fp);
	if (!r)
		return NULL;
	out[strcspn(out, "\n")] = 0;
	return out;
}

/* Value after "key<spaces>: " in /proc/cpuinfo (first CPU). */
static int cpuinfo_value(const char *key, char *out, size_t n)
{
	FILE *fp = fopen("/proc/cpuinfo", "r");
	char line[512];
	int rc = -ENOENT;
	if (!fp)
		return -errno;
	size_t kl = strlen(key);
	while (fgets(line, sizeof(line), fp)) {
		if (strncmp(line, key, kl) || (line[kl] != ' ' && line[kl] != '\t' && line[kl] != ':'))
			continue;
		char *p = strchr(line, ':');
		if (!p)
			continue;
		p++;
		while (*p == ' ')
			p++;
		p[strcspn(p, "\n")] = 0;
		snprintf(out, n, "%s", p);
		rc = 0;
		break;
	}
	fclose(fp);
	return rc;
}

/* Highest present CPU + 1 (perf's nr_cpus_avail). */
static uint32_t cpus_present(void)
{
	char line[256];
	long n = sysconf(_SC_NPROCESSORS_CONF);
	if (read_line("/sys/devices/system/cpu/present", line, sizeof(line))) {
		char *p = strrchr(line, '-');
		p = p ? p + 1 : strrchr(line, ',') ? strrchr(line, ',') + 1 : line;
		long v = strtol(p, NULL, 10);
		if (v + 1 > n)
			n = v + 1;
	}
	return n > 0 ? (uint32_t)n : 1;
}

static int topo_list_add(char ***lists, uint32_t *nr, const char *s)
{
	for (uint32_t i = 0; i < *nr; i++)
		if (!strcmp((*lists)[i], s))
			return 0;
	char **n = realloc(*lists, (*nr + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	*lists = n;
	n[(*nr)++] = xstrdup(s);
	return 0;
}

static void topo_lists_free(char **l, uint32_t nr)
{
	for (uint32_t i = 0; i < nr; i++)
		free(l[i]);
	free(l);
}

static uint32_t topo_id(uint32_t cpu, const char *name)
{
	char path[128], line[64];
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/topology/%s", cpu, name);
	if (!read_line(path, line, sizeof(line)))
		return (uint32_t)-1;
	return (uint32_t)strtol(line, NULL, 10);
}

static int add_cpu_topology(struct perf_feats *f, uint32_t nr_cpus)
{
	static const char *const kinds[3][2] = {
		{ "package_cpus_list", "core_siblings_list" },
		{ "core_cpus_list", "thread_siblings_list" },
		{ "die_cpus_list", NULL },
	};
	char **lists[3] = { NULL, NULL, NULL };
	uint32_t nr[3] = { 0, 0, 0 };
	int rc = 0;
	for (uint32_t cpu = 0; cpu < nr_cpus && !rc; cpu++) {
		for (int k = 0; k < 3 && !rc; k++) {
			char path[160], line[256];
			const char *got = NULL;
			for (int alt = 0; alt < 2 && !got && kinds[k][alt]; alt++) {
				snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/topology/%s",
					 cpu, kinds[k][alt]);
				got = read_line(path, line, sizeof(line));
			}
			if (got)
				rc = topo_list_add(&lists[k], &nr[k], got);
		}
	}
	if (!rc && nr[0] && nr[1]) {
		struct buf *b = perf_feats_begin(f, HEADER_CPU_TOPOLOGY);
		for (int k = 0; k < 2 && !rc; k++) {
			rc = perf_enc_u32(b, nr[k]);
			for (uint32_t i = 0; i < nr[k] && !rc; i++)
				rc = perf_enc_string(b, lists[k][i]);
		}
		for (uint32_t cpu = 0; cpu < nr_cpus && !rc; cpu++) {
			rc = perf_enc_u32(b, topo_id(cpu, "core_id"));
			if (!rc)
				rc = perf_enc_u32(b, topo_id(cpu, "physical_package_id"));
		}
		if (!rc && nr[2]) {
			rc = perf_enc_u32(b, nr[2]);
			for (uint32_t i = 0; i < nr[2] && !rc; i++)
				rc = perf_enc_string(b, lists[2][i]);
			for (uint32_t cpu = 0; cpu < nr_cpus && !rc; cpu++) {
				uint32_t d = topo_id(cpu, "die_id");
				rc = perf_enc_u32(b, d == (uint32_t)-1 ? 0 : d);
			}
		}
	}
	for (int k = 0; k < 3; k++)
		topo_lists_free(lists[k], nr[k]);
	return rc;
}

/* NUMA nodes: u32 nr; per node u32 node, u64 mem_total, u64 mem_free (kB),
 * string cpu list. Left out when /sys has no nodes. */
static int add_numa(struct perf_feats *f)
{
	DIR *d = opendir("/sys/devices/system/node");
	if (!d)
		return 0;
	uint32_t nodes[256], nr = 0;
	struct dirent *de;
	while ((de = readdir(d)) && nr < 256) {
		unsigned n;
		char extra;
		if (sscanf(de->d_name, "node%u%c", &n, &extra) == 1)
			nodes[nr++] = n;
	}
	closedir(d);
	if (!nr)
		return 0;
	for (uint32_t i = 1; i < nr; i++) /* in node order */
		for (uint32_t j = i; j > 0 && nodes[j - 1] > nodes[j]; j--) {
			uint32_t t = nodes[j];
			nodes[j] = nodes[j - 1];
			nodes[j - 1] = t;
		}
	struct buf *b = perf_feats_begin(f, HEADER_NUMA_TOPOLOGY);
	int rc = perf_enc_u32(b, nr);
	for (uint32_t i = 0; i < nr && !rc; i++) {
		char path[128], line[256], cpus[256] = "";
		unsigned long long total = 0, free_kb = 0, v;
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/meminfo", nodes[i]);
		FILE *fp = fopen(path, "r");
		if (fp) {
			while (fgets(line, sizeof(line), fp)) {
				char *m = strstr(line, "MemTotal:");
				if (m && sscanf(m, "MemTotal: %llu", &v) == 1)
					total = v;
				m = strstr(line, "MemFree:");
				if (m && sscanf(m, "MemFree: %llu", &v) == 1)
					free_kb = v;
			}
			fclose(fp);
		}
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/cpulist", nodes[i]);
		read_line(path, cpus, sizeof(cpus));
		if (!(rc = perf_enc_u32(b, nodes[i])) && !(rc = perf_enc_u64(b, total)) &&
		    !(rc = perf_enc_u64(b, free_kb)))
			rc = perf_enc_string(b, cpus);
	}
	return rc;
}

/* PMU mappings: u32 nr; per PMU u32 type, string name. */
static int add_pmu_mappings(struct perf_feats *f)
{
	DIR *d = opendir("/sys/bus/event_source/devices");
	if (!d)
		return 0;
	struct buf tmp;
	buf_init(&tmp, 0);
	uint32_t nr = 0;
	int rc = 0;
	struct dirent *de;
	while (!rc && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[512], line[64];
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", de->d_name);
		if (!read_line(path, line, sizeof(line)))
			continue;
		if (!(rc = perf_enc_u32(&tmp, (uint32_t)strtoul(line, NULL, 10))))
			rc = perf_enc_string(&tmp, de->d_name);
		nr++;
	}
	closedir(d);
	if (!rc && nr) {
		struct buf *b = perf_feats_begin(f, HEADER_PMU_MAPPINGS);
		if (!(rc = perf_enc_u32(b, nr)))
			rc = buf_append(b, tmp.data, tmp.len);
	}
	buf_release(&tmp);
	return rc;
}

int perf_feats_add_host(struct perf_feats *f, const struct perf_host_info *hi)
{
	struct utsname u;
	char line[512];
	int rc = 0;
	if (uname(&u) == 0) {
		rc = perf_enc_string(perf_feats_begin(f, HEADER_HOSTNAME), u.nodename);
		if (!rc)
			rc = perf_enc_string(perf_feats_begin(f, HEADER_OSRELEASE), u.release);
		if (!rc)
			rc = perf_enc_string(perf_feats_begin(f, HEADER_ARCH), u.machine);
		if (rc)
			return rc;
	}
	rc = perf_enc_string(perf_feats_begin(f, HEADER_VERSION), hi->version ? hi->version : "0");
	if (rc)
		return rc;

	uint32_t avail = cpus_present();
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	struct buf *b = perf_feats_begin(f, HEADER_NRCPUS);
	if ((rc = perf_enc_u32(b, avail)) || (rc = perf_enc_u32(b, online > 0 ? (uint32_t)online : 1)))
		return rc;

	if (cpuinfo_value("model name", line, sizeof(line)) == 0) {
		/* squash runs of white space, as perf does for branding strings */
		char *w = line;
		for (char *r = line; *r; r++) {
			if (isspace((unsigned char)*r)) {
				if (w > line && w[-1] == ' ')
					continue;
				*w++ = ' ';
			} else {
				*w++ = *r;
			}
		}
		*w = 0;
		if ((rc = perf_enc_string(perf_feats_begin(f, HEADER_CPUDESC), line)))
			return rc;
	}
	char vendor[128], fam[32], model[32], step[32];
	if (!cpuinfo_value("vendor_id", vendor, sizeof(vendor)) &&
	    !cpuinfo_value("cpu family", fam, sizeof(fam)) &&
	    !cpuinfo_value("model", model, sizeof(model)) &&
	    !cpuinfo_value("stepping", step, sizeof(step))) {
		snprintf(line, sizeof(line), "%s,%s,%s,%s", vendor, fam, model, step);
		if ((rc = perf_enc_string(perf_feats_begin(f, HEADER_CPUID), line)))
			return rc;
	}

	FILE *fp = fopen("/proc/meminfo", "r");
	if (fp) {
		unsigned long long kb = 0;
		while (fgets(line, sizeof(line), fp))
			if (sscanf(line, "MemTotal: %llu", &kb) == 1)
				break;
		fclose(fp);
		if (kb && (rc = perf_enc_u64(perf_feats_begin(f, HEADER_TOTAL_MEM), kb)))
			return rc;
	}

	b = perf_feats_begin(f, HEADER_CMDLINE);
	rc = perf_enc_u32(b, (uint32_t)hi->argc + 1);
	if (!rc)
		rc = perf_enc_string(b, hi->exe ? hi->exe : "scorch");
	for (int i = 0; i < hi->argc && !rc; i++)
		rc = perf_enc_string(b, hi->argv[i]);
	if (rc)
		return rc;

	if ((rc = add_cpu_topology(f, avail)) || (rc = add_numa(f)) || (rc = add_pmu_mappings(f)))
		return rc;

	struct timespec res;
	uint64_t res_ns = 1;
	if (clock_getres(CLOCK_MONOTONIC, &res) == 0 && res.tv_sec == 0 && res.tv_nsec > 0)
		res_ns = (uint64_t)res.tv_nsec;
	return perf_enc_u64(perf_feats_begin(f, HEADER_CLOCKID), res_ns);
}

int perf_feats_add_event_desc(struct perf_feats *f, const struct perf_wattr *a, size_t n)
{
	struct buf *b = perf_feats_begin(f, HEADER_EVENT_DESC);
	int rc = perf_enc_u32(b, (uint32_t)n);
	if (!rc)
		rc = perf_enc_u32(b, (uint32_t)sizeof(struct perf_event_attr));
	for (size_t i = 0; i < n && !rc; i++) {
		rc = buf_append(b, &a[i].attr, sizeof(a[i].attr));
		if (!rc)
			rc = perf_enc_u32(b, (uint32_t)a[i].nr_ids);
		if (!rc)
			rc = perf_enc_string(b, a[i].name ? a[i].name : "");
		if (!rc)
			rc = buf_append(b, a[i].ids, a[i].nr_ids * 8);
	}
	return rc;
}

int perf_feats_add_sample_time(struct perf_feats *f, uint64_t first, uint64_t last)
{
	struct buf *b = perf_feats_begin(f, HEADER_SAMPLE_TIME);
	int rc = perf_enc_u64(b, first);
	return rc ? rc : perf_enc_u64(b, last);
}

/*
 * Build-id entry: struct perf_event_header (type 0 in the feature), s32 pid,
 * u8 build_id[20], u8 size, u8 pad[3], filename NUL-padded to 64 bytes.
 * misc carries PERF_RECORD_MISC_KERNEL/USER and PERF_RECORD_MISC_BUILD_ID_SIZE.
 */
int perf_enc_build_id(struct buf *b, uint32_t type, const struct perf_build_id *bid)
{
	size_t flen = strlen(bid->filename) + 1;
	size_t fpad = (flen + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	size_t size = 8 + 4 + 24 + fpad;
	if (size > 0xffff)
		return -ENAMETOOLONG;
	struct perf_event_header h = { .type = type, .misc = bid->misc | (1 << 15), .size = (uint16_t)size };
	uint8_t id[24] = { 0 };
	memcpy(id, bid->id, bid->size > 20 ? 20 : bid->size);
	id[20] = bid->size;
	int rc = buf_reserve(b, size);
	if (rc)
		return rc;
	buf_append(b, &h, 8);
	buf_append(b, &bid->pid, 4);
	buf_append(b, id, 24);
	memset(b->data + b->len, 0, fpad);
	memcpy(b->data + b->len, bid->filename, flen);
	b->len += fpad;
	return 0;
}

int perf_feats_add_build_ids(struct perf_feats *f, const struct perf_build_id *bids, size_t n)
{
	if (!n) { /* perf leaves the bit out too; hotspot-perfparser warns about empty ones */
		perf_feats_clear(f, HEADER_BUILD_ID);
		return 0;
	}
	struct buf *b = perf_feats_begin(f, HEADER_BUILD_ID);
	for (size_t i = 0; i < n; i++) {
		int rc = perf_enc_build_id(b, 0, &bids[i]);
		if (rc)
			return rc;
	}
	return 0;
}

int perf_feats_add_compressed(struct perf_feats *f, uint32_t level, uint32_t ratio,
			      uint32_t mmap_len)
{
	struct buf *b = perf_feats_begin(f, HEADER_COMPRESSED);
	uint32_t v[5] = { 0, PERF_COMP_ZSTD, level, ratio, mmap_len };
	return buf_append(b, v, sizeof(v));
}

uint64_t perf_file_data_offset(const struct perf_wattr *a, size_t n)
{
	uint64_t off = PERF_FILE_HEADER_SIZE;
	for (size_t i = 0; i < n; i++)
		off += a[i].nr_ids * 8 + sizeof(struct perf_event_attr) + sizeof(struct perf_file_section);
	return off;
}

int perf_pwrite_all(int fd, const void *p, size_t n, uint64_t off)
{
	const uint8_t *c = p;
	while (n) {
		ssize_t w = pwrite(fd, c, n, (off_t)off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (w == 0)
			return -EIO;
		c += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

int perf_file_write_header(int fd, const struct perf_wattr *a, size_t n, uint64_t data_size,
			   const uint64_t *feat_bits)
{
	struct buf b;
	buf_init(&b, 0);
	uint64_t ids_off = PERF_FILE_HEADER_SIZE, nids = 0;
	for (size_t i = 0; i < n; i++)
		nids += a[i].nr_ids;
	uint64_t attrs_off = ids_off + nids * 8;
	uint64_t entry = sizeof(struct perf_event_attr) + sizeof(struct perf_file_section);
	struct perf_file_header h = {
		.magic = PERF_MAGIC2,
		.size = PERF_FILE_HEADER_SIZE,
		.attr_size = entry,
		.attrs = { attrs_off, entry * n },
		.data = { attrs_off + entry * n, data_size },
		.event_types = { 0, 0 },
	};
	if (feat_bits)
		memcpy(h.adds_features, feat_bits, sizeof(h.adds_features));
	int rc = buf_append(&b, &h, sizeof(h));
	for (size_t i = 0; i < n && !rc; i++)
		rc = buf_append(&b, a[i].ids, a[i].nr_ids * 8);
	uint64_t id_off = ids_off;
	for (size_t i = 0; i < n && !rc; i++) {
		struct perf_file_section s = { id_off, a[i].nr_ids * 8 };
		id_off += s.size;
		rc = buf_append(&b, &a[i].attr, sizeof(a[i].attr));
		if (!rc)
			rc = buf_append(&b, &s, sizeof(s));
	}
	if (!rc)
		rc = perf_pwrite_all(fd, b.data, b.len, 0);
	buf_release(&b);
	return rc;
}

int perf_file_write_features(int fd, uint64_t off, const struct perf_feats *f)
{
	struct buf b;
	buf_init(&b, 0);
	unsigned nr = 0;
	for (unsigned i = 0; i < HEADER_LAST_FEATURE; i++)
		nr += feat_has(f, i);
	uint64_t pos = off + nr * sizeof(struct perf_file_section);
	int rc = 0;
	for (unsigned i = 0; i < HEADER_LAST_FEATURE && !rc; i++) {
		if (!feat_has(f, i))
			continue;
		struct perf_file_section s = { pos, f->sec[i].len };
		pos += s.size;
		rc = buf_append(&b, &s, sizeof(s));
	}
	for (unsigned i = 0; i < HEADER_LAST_FEATURE && !rc; i++)
		if (feat_has(f, i))
			rc = buf_append(&b, f->sec[i].data, f->sec[i].len);
	if (!rc)
		rc = perf_pwrite_all(fd, b.data, b.len, off);
	buf_release(&b);
	return rc;
}

int perf_pipe_feature(struct buf *out, const struct perf_feats *f, unsigned bit)
{
	if (bit >= HEADER_LAST_FEATURE || !feat_has(f, bit))
		return 0;
	size_t size = 16 + f->sec[bit].len;
	if (size > 0xffff)
		return -E2BIG;
	struct perf_event_header h = { .type = PERF_RECORD_HEADER_FEATURE, .size = (uint16_t)size };
	uint64_t id = bit;
	int rc = buf_append(out, &h, 8);
	if (!rc)
		rc = buf_append(out, &id, 8);
	if (!rc)
		rc = buf_append(out, f->sec[bit].data, f->sec[bit].len);
	return rc;
}

int perf_pipe_head(struct buf *out, const struct perf_wattr *a, size_t n,
		   const struct perf_feats *f)
{
	struct perf_pipe_file_header ph = { PERF_MAGIC2, sizeof(ph) };
	int rc = buf_append(out, &ph, sizeof(ph));
	for (size_t i = 0; i < n && !rc; i++) {
		size_t size = 8 + sizeof(a[i].attr) + a[i].nr_ids * 8;
		if (size > 0xffff)
			return -E2BIG;
		struct perf_event_header h = { .type = PERF_RECORD_HEADER_ATTR, .size = (uint16_t)size };
		rc = buf_append(out, &h, 8);
		if (!rc)
			rc = buf_append(out, &a[i].attr, sizeof(a[i].attr));
		if (!rc)
			rc = buf_append(out, a[i].ids, a[i].nr_ids * 8);
	}
	for (unsigned bit = 0; bit < HEADER_LAST_FEATURE && !rc; bit++)
		if (bit != HEADER_BUILD_ID && bit != HEADER_SAMPLE_TIME && bit != HEADER_TRACING_DATA)
			rc = perf_pipe_feature(out, f, bit);
	if (!rc && feat_has(f, HEADER_TRACING_DATA)) {
		/* { header (size 16), u32 size, u32 pad } then the tracing data,
		 * padded to 8, outside the record's own size, as perf does */
		const struct buf *td = &f->sec[HEADER_TRACING_DATA];
		size_t aligned = (td->len + 7) & ~(size_t)7;
		struct perf_event_header h = { .type = PERF_RECORD_HEADER_TRACING_DATA, .size = 16 };
		uint32_t sz[2] = { (uint32_t)aligned, 0 };
		rc = buf_append(out, &h, 8);
		if (!rc)
			rc = buf_append(out, sz, 8);
		if (!rc)
			rc = buf_append(out, td->data, td->len);
		if (!rc && aligned > td->len)
			rc = buf_append(out, "\0\0\0\0\0\0\0", aligned - td->len);
	}
	return rc;
}

int perf_pipe_build_ids(struct buf *out, const struct perf_build_id *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int rc = perf_enc_build_id(out, PERF_RECORD_HEADER_BUILD_ID, &b[i]);
		if (rc)
			return rc;
	}
	return 0;
}
