/*
 * host.h: this machine as perf.data's system features describe it. The
 * recorder probes the host; perf/ only encodes what it is given.
 */
#ifndef SCORCH_RECORD_HOST_H
#define SCORCH_RECORD_HOST_H

#include "perf/encode.h"

/* What the recorder says about itself. */
struct host_info {
	const char *version;        /* "scorch 0.1" style version string */
	const char *exe;            /* path of the recorder binary */
	int argc;                   /* recorder's argv, for cmdline */
	char **argv;
	int clockid;                /* the samples' clock (-k), -1: perf's default */
};

/* hostname, osrelease, version, arch, nrcpus, cpudesc, cpuid, total_mem,
 * cmdline, cpu topology, numa topology, pmu mappings, clockid (the
 * resolution of the samples' clock), and with -k the clock data (that
 * clock and the wall clock read together, as perf writes). Features whose
 * source is missing on this machine are left out. Returns 0 or a negative
 * code. */
int host_add_features(struct perf_feats *f, const struct host_info *hi);

#endif
