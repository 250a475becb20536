/*
 * perf_format.h: the perf.data file format, shared by the recorder and the
 * analyzer.
 *
 * The kernel ABI (struct perf_event_attr, PERF_RECORD_*, PERF_SAMPLE_*) comes
 * from <linux/perf_event.h>; this file adds what perf's user space defines on
 * top: the file header, the sections, the user record types (>= 64) and the
 * header feature bits.
 *
 * File layout (PERFILE2, all offsets absolute):
 *
 *   0    struct perf_file_header   magic "PERFILE2", size (=104), attr_size,
 *                                  attrs, data, event_types sections, features
 *   ...  attrs section: n * { struct perf_event_attr (attr_size - 16 bytes),
 *                             struct perf_file_section ids (u64 array) }
 *   ...  data section: records, each { struct perf_event_header, payload },
 *                      header.size covering both, a multiple of 8
 *   data.offset + data.size: one struct perf_file_section per set feature bit,
 *                      in bit order, pointing at each feature's payload
 *
 * Pipe layout (perf record -o -): struct perf_pipe_file_header { magic, size
 * (=16) } then records only; attrs, event types, tracing data, build ids and
 * features arrive as HEADER_* user records.
 *
 * A file from an opposite-endian machine has the magic byte-swapped; every
 * field is then swapped on read.
 */
#ifndef SCORCH_PERF_FORMAT_H
#define SCORCH_PERF_FORMAT_H

#include <linux/perf_event.h>
#include <stdint.h>

#define PERF_MAGIC2 0x32454c4946524550ULL /* "PERFILE2" little endian */
#define PERF_MAGIC2_SWAPPED 0x50455246494c4532ULL

struct perf_file_section {
	uint64_t offset;
	uint64_t size;
};

#define PERF_FILE_HEADER_SIZE 104
#define PERF_FEAT_BITS 256

struct perf_file_header {
	uint64_t magic;
	uint64_t size;
	uint64_t attr_size;
	struct perf_file_section attrs;
	struct perf_file_section data;
	struct perf_file_section event_types;
	uint64_t adds_features[PERF_FEAT_BITS / 64];
};

struct perf_pipe_file_header {
	uint64_t magic;
	uint64_t size;
};

/* Records perf's user space defines (PERF_RECORD_USER_TYPE_START = 64). */
enum perf_user_record_type {
	PERF_RECORD_USER_TYPE_START = 64,
	PERF_RECORD_HEADER_ATTR = 64,
	PERF_RECORD_HEADER_EVENT_TYPE = 65, /* deprecated */
	PERF_RECORD_HEADER_TRACING_DATA = 66,
	PERF_RECORD_HEADER_BUILD_ID = 67,
	PERF_RECORD_FINISHED_ROUND = 68,
	PERF_RECORD_ID_INDEX = 69,
	PERF_RECORD_AUXTRACE_INFO = 70,
	PERF_RECORD_AUXTRACE = 71,
	PERF_RECORD_AUXTRACE_ERROR = 72,
	PERF_RECORD_THREAD_MAP = 73,
	PERF_RECORD_CPU_MAP = 74,
	PERF_RECORD_STAT_CONFIG = 75,
	PERF_RECORD_STAT = 76,
	PERF_RECORD_STAT_ROUND = 77,
	PERF_RECORD_EVENT_UPDATE = 78,
	PERF_RECORD_TIME_CONV = 79,
	PERF_RECORD_HEADER_FEATURE = 80,
	PERF_RECORD_COMPRESSED = 81,
	PERF_RECORD_FINISHED_INIT = 82,
	PERF_RECORD_SCORCH_MAX = 83,
};

/* Header feature bits (adds_features). */
enum perf_feature {
	HEADER_RESERVED = 0,
	HEADER_TRACING_DATA = 1,
	HEADER_BUILD_ID,
	HEADER_HOSTNAME,
	HEADER_OSRELEASE,
	HEADER_VERSION,
	HEADER_ARCH,
	HEADER_NRCPUS,
	HEADER_CPUDESC,
	HEADER_CPUID,
	HEADER_TOTAL_MEM,
	HEADER_CMDLINE,
	HEADER_EVENT_DESC,
	HEADER_CPU_TOPOLOGY,
	HEADER_NUMA_TOPOLOGY,
	HEADER_BRANCH_STACK,
	HEADER_PMU_MAPPINGS,
	HEADER_GROUP_DESC,
	HEADER_AUXTRACE,
	HEADER_STAT,
	HEADER_CACHE,
	HEADER_SAMPLE_TIME,
	HEADER_MEM_TOPOLOGY,
	HEADER_CLOCKID,
	HEADER_DIR_FORMAT,
	HEADER_BPF_PROG_INFO,
	HEADER_BPF_BTF,
	HEADER_COMPRESSED,
	HEADER_CPU_PMU_CAPS,
	HEADER_CLOCK_DATA,
	HEADER_HYBRID_TOPOLOGY,
	HEADER_PMU_CAPS,
	HEADER_LAST_FEATURE,
};

/* PERF_RECORD_MISC bits perf uses beyond the kernel header's. */
#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID (1 << 14)
#endif
#ifndef PERF_RECORD_MISC_COMM_EXEC
#define PERF_RECORD_MISC_COMM_EXEC (1 << 13)
#endif

/* Callchain context markers (values above PERF_CONTEXT_MAX are markers). */
/* PERF_CONTEXT_HV, _KERNEL, _USER, _GUEST, _GUEST_KERNEL, _GUEST_USER, _MAX
 * come from <linux/perf_event.h>. */

/* Compression type in HEADER_COMPRESSED. */
#define PERF_COMP_NONE 0
#define PERF_COMP_ZSTD 1

/* Minimum attr size perf ever wrote (PERF_ATTR_SIZE_VER0). */
#define PERF_ATTR_SIZE_MIN 64

/* Name of a record type, "UNKNOWN" for others. */
const char *perf_record_name(uint32_t type);
/* Name of a feature bit, NULL for unknown ones. */
const char *perf_feature_name(unsigned bit);

#endif
