/* names.c: printable names of record types and feature bits. */
#include "perf/perf_format.h"
#include <stddef.h>

const char *perf_record_name(uint32_t type)
{
	static const char *const k[] = {
		[PERF_RECORD_MMAP] = "MMAP",
		[PERF_RECORD_LOST] = "LOST",
		[PERF_RECORD_COMM] = "COMM",
		[PERF_RECORD_EXIT] = "EXIT",
		[PERF_RECORD_THROTTLE] = "THROTTLE",
		[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
		[PERF_RECORD_FORK] = "FORK",
		[PERF_RECORD_READ] = "READ",
		[PERF_RECORD_SAMPLE] = "SAMPLE",
		[PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_AUX] = "AUX",
		[PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
		[PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
		[PERF_RECORD_NAMESPACES] = "NAMESPACES",
		[PERF_RECORD_KSYMBOL] = "KSYMBOL",
		[PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
		[PERF_RECORD_CGROUP] = "CGROUP",
		[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
		[PERF_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
	};
	static const char *const u[] = {
		"HEADER_ATTR", "HEADER_EVENT_TYPE", "HEADER_TRACING_DATA", "HEADER_BUILD_ID",
		"FINISHED_ROUND", "ID_INDEX", "AUXTRACE_INFO", "AUXTRACE", "AUXTRACE_ERROR",
		"THREAD_MAP", "CPU_MAP", "STAT_CONFIG", "STAT", "STAT_ROUND", "EVENT_UPDATE",
		"TIME_CONV", "HEADER_FEATURE", "COMPRESSED", "FINISHED_INIT",
	};
	if (type < sizeof(k) / sizeof(k[0]) && k[type])
		return k[type];
	if (type >= 64 && type - 64 < sizeof(u) / sizeof(u[0]))
		return u[type - 64];
	return "UNKNOWN";
}

const char *perf_feature_name(unsigned bit)
{
	static const char *const f[] = {
		[HEADER_TRACING_DATA] = "tracing_data", [HEADER_BUILD_ID] = "build_id",
		[HEADER_HOSTNAME] = "hostname", [HEADER_OSRELEASE] = "osrelease",
		[HEADER_VERSION] = "version", [HEADER_ARCH] = "arch",
		[HEADER_NRCPUS] = "nrcpus", [HEADER_CPUDESC] = "cpudesc",
		[HEADER_CPUID] = "cpuid", [HEADER_TOTAL_MEM] = "total_mem",
		[HEADER_CMDLINE] = "cmdline", [HEADER_EVENT_DESC] = "event_desc",
		[HEADER_CPU_TOPOLOGY] = "cpu_topology", [HEADER_NUMA_TOPOLOGY] = "numa_topology",
		[HEADER_BRANCH_STACK] = "branch_stack", [HEADER_PMU_MAPPINGS] = "pmu_mappings",
		[HEADER_GROUP_DESC] = "group_desc", [HEADER_AUXTRACE] = "auxtrace",
		[HEADER_STAT] = "stat", [HEADER_CACHE] = "cache",
		[HEADER_SAMPLE_TIME] = "sample_time", [HEADER_MEM_TOPOLOGY] = "mem_topology",
		[HEADER_CLOCKID] = "clockid", [HEADER_DIR_FORMAT] = "dir_format",
		[HEADER_BPF_PROG_INFO] = "bpf_prog_info", [HEADER_BPF_BTF] = "bpf_btf",
		[HEADER_COMPRESSED] = "compressed", [HEADER_CPU_PMU_CAPS] = "cpu_pmu_caps",
		[HEADER_CLOCK_DATA] = "clock_data", [HEADER_HYBRID_TOPOLOGY] = "hybrid_topology",
		[HEADER_PMU_CAPS] = "pmu_caps",
	};
	if (bit < sizeof(f) / sizeof(f[0]))
		return f[bit];
	return NULL;
}
