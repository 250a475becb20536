/*
 * host.c: the recording machine's description for perf.data's system
 * features (see host.h), read from uname, /proc and /sys: hostname,
 * osrelease, arch, CPU counts, CPU description and id (/proc/cpuinfo), total
 * memory (/proc/meminfo), the recorder's command line, CPU topology (core and
 * thread siblings, die/core/socket ids), NUMA nodes, PMU type mappings and
 * the clock resolution. Encoded with perf/encode.h's helpers, as perf does.
 */
#include "record/host.h"
#include "util/xalloc.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

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
	char **n = xrealloc(*lists, (*nr + 1) * sizeof(*n));
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

int host_add_features(struct perf_feats *f, const struct host_info *hi)
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
	clockid_t clk = hi->clockid >= 0 ? (clockid_t)hi->clockid : CLOCK_MONOTONIC;
	if (clock_getres(clk, &res) == 0 && res.tv_sec == 0 && res.tv_nsec > 0)
		res_ns = (uint64_t)res.tv_nsec;
	if ((rc = perf_enc_u64(perf_feats_begin(f, HEADER_CLOCKID), res_ns)))
		return rc;
	if (hi->clockid < 0)
		return 0;
	/* perf's clock data: version 1, the clockid, the wall clock and that
	 * clock read back to back */
	struct timespec wall, ref;
	if (clock_gettime(CLOCK_REALTIME, &wall) || clock_gettime(clk, &ref))
		return 0;
	b = perf_feats_begin(f, HEADER_CLOCK_DATA);
	if (!(rc = perf_enc_u32(b, 1)) && !(rc = perf_enc_u32(b, (uint32_t)hi->clockid)) &&
	    !(rc = perf_enc_u64(b, (uint64_t)wall.tv_sec * 1000000000ULL + (uint64_t)wall.tv_nsec)))
		rc = perf_enc_u64(b, (uint64_t)ref.tv_sec * 1000000000ULL + (uint64_t)ref.tv_nsec);
	return rc;
}
