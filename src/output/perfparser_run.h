/*
 * perfparser_run.h: one run of `scorch perfparser`, the drop-in for
 * hotspot's hotspot-perfparser, from its option values (as given, strings)
 * to its exit code: the output opened first (as the reference does), the
 * numbers parsed as Qt's toUInt/toInt do, the input from a file, stdin or a
 * TCP connection, then the perfparser stream or --print-stats. Messages go
 * to stderr in the reference's words.
 *
 * Exit codes are hotspot-perfparser's (hotspot names them when it reports a
 * failure): 0 no error, 1 TCP socket error (and, as with Qt's command line
 * parser, an unknown option or a missing value), 2 cannot open, 3 bad magic
 * (unused by the reference: a bad magic is a header error), 4 header error,
 * 5 data error, 6 missing data (no usable architecture), 7 invalid option
 * value.
 */
#ifndef SCORCH_PERFPARSER_RUN_H
#define SCORCH_PERFPARSER_RUN_H

#include "analyze/pipeline_config.h"
#include <stdbool.h>

enum pp_exit {
	PPX_NO_ERROR = 0,
	PPX_TCP_SOCKET_ERROR = 1,
	PPX_CANNOT_OPEN = 2,
	PPX_BAD_MAGIC = 3,
	PPX_HEADER_ERROR = 4,
	PPX_DATA_ERROR = 5,
	PPX_MISSING_DATA = 6,
	PPX_INVALID_OPTION = 7,
};

/* The option values, as on the command line (NULL: not given). */
struct pp_args {
	const char *input, *host, *port, *output, *sysroot, *debug, *extra, *app, *arch, *kallsyms;
	const char *buffer_size, *max_buffer_size, *max_frames, *jobs, *block_records;
	const char *stack_limit;
	bool print_stats, no_stitch;
	const char *self; /* the name in the usage */
};

/* Run with a's values over cfg (initialized, with the caller's settings:
 * build-id cache, debuginfod, tmpdir, exit_after). Returns an enum pp_exit. */
int perfparser_run(const struct pp_args *a, struct pipeline_config *cfg);

#endif
