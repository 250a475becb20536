/*
 * threadfilter.h: the --pid, --tid and --comm(s) lists the reading
 * commands share (report, flame, export, diff, top's profiles through
 * profile.h; script's own sink): parsed once, then asked per sample.
 */
#ifndef SCORCH_OUTPUT_THREADFILTER_H
#define SCORCH_OUTPUT_THREADFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct thread_filter {
	uint32_t *pids, *tids;   /* empty: every one */
	size_t nr_pids, nr_tids;
	char **comms;
	size_t nr_comms;
};

/* Append the comma-separated decimal ids of s (NULL: none) to *ids.
 * 0; -EINVAL with the first bad item in *bad (*bad_len bytes); -ENOMEM. */
int thread_filter_ids(const char *s, uint32_t **ids, size_t *n, const char **bad, size_t *bad_len);
/* Append the comma-separated command names of s (NULL: none). 0 or -ENOMEM. */
int thread_filter_comms(struct thread_filter *f, const char *s);
/* Whether the lists keep a sample of this thread (comm: its command, as
 * the caller names it). */
bool thread_filter_keeps(const struct thread_filter *f, uint32_t pid, uint32_t tid, const char *comm);
void thread_filter_release(struct thread_filter *f);

#endif
