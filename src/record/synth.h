/*
 * synth.h: records for what existed before recording started, read from
 * /proc and /sys, as perf synthesizes them: the kernel map (an MMAP named
 * "[kernel.kallsyms]_text" from _text to _etext with pgoff = _text, pid -1),
 * one MMAP per loaded module, and per process a COMM per thread and an MMAP2
 * per executable mapping. Every record carries the sample_id_all trailer
 * (events.h layout) with time 0 and the given sample id, so it sorts before
 * every sample.
 */
#ifndef SCORCH_RECORD_SYNTH_H
#define SCORCH_RECORD_SYNTH_H

#include "util/buf.h"
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

int synth_kernel(struct buf *out, uint64_t id);
int synth_modules(struct buf *out, uint64_t id);
/* COMM records for every thread of pid (or only tid when tid > 0), and MMAP2
 * records for its executable maps when maps is set (all file maps, data ones
 * marked PERF_RECORD_MISC_MMAP_DATA, with data: DWARF unwinding needs them). A process that vanished
 * meanwhile is not an error. */
int synth_process(struct buf *out, pid_t pid, pid_t tid, bool maps, bool data, uint64_t id);
/* synth_process for every process in /proc. */
int synth_all(struct buf *out, bool data, uint64_t id);
/* Append one COMM record (used for the launched command before exec). */
int synth_comm(struct buf *out, pid_t pid, pid_t tid, const char *comm, uint64_t id);

#endif
