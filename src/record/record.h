/*
 * record.h: the recorder's public API. A struct of options in
 * (record_opts.h; events.h parses event names), a result out; the recorder
 * never touches argv, exit codes or signal handlers: the CLI owns those and
 * passes the flags its handlers set.
 *
 * record_run: open the events (per CPU, per target thread), map one ring per
 * CPU, synthesize what already exists (kernel, modules, running processes),
 * start the workload, then loop: poll, copy every ring's new records into a
 * user buffer (releasing the kernel's space at once), end the pass with
 * FINISHED_ROUND, hand full buffers to the asynchronous writer. At the end:
 * drain, wait for the writer, add build ids and the other features, write
 * the header, then add the files the samples hit to the build-id cache.
 */
#ifndef SCORCH_RECORD_H
#define SCORCH_RECORD_H

#include "record/bidcache.h"
#include "record/record_opts.h"
#include "util/err.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct record_result {
	uint64_t samples;
	uint64_t lost;                  /* samples the kernel reported lost */
	uint64_t bytes;                 /* bytes written to the output(s) */
	uint64_t wakeups;
	unsigned files;                 /* files written (switch-output) */
	char last_file[4096];
	const char *io_used;            /* "io_uring", "posix-aio", "sync" */
	char event[96];                 /* the first event as opened (cycles may have
					 * fallen back to cpu-clock); "" until then */
	bool child_ran;
	int child_status;               /* waitpid status of the launched command */
	bool interrupted;
	uint64_t comp_in, comp_out;     /* -z: bytes before and after */
	struct bidcache_stats cache;    /* what was added to the build-id cache */
	uint64_t cache_ns;              /* time spent adding (and pruning) */
};

void record_opts_init(struct record_opts *o);

/* Run a recording. Returns 0, or a negative code with e filled (the message
 * names the file or event). -EINVAL/-EACCES/-ENOENT mean an impossible
 * request (the CLI exits 2), others are I/O failures. res is filled either way
 * with what was done. */
int record_run(const struct record_opts *o, struct record_result *res, struct err *e);

/* What perf record says after a recording, on f, one "[ scorch record:
 * ... ]" line each: the wakeups and the writer, the size and samples
 * written (and the compression), the samples lost, how the command
 * ended (killed, or a non-zero exit status). Nothing with o->quiet. */
void record_summary(FILE *f, const struct record_opts *o, const struct record_result *res);

#endif
