/*
 * perfparser_sink.h: the pipeline sink of `scorch perfparser`. It turns the
 * records and resolved samples of a recording into perfparser stream events
 * (perfparser.h), in the order and shape hotspot-perfparser sends them:
 * attributes and features first (for pipe input at the first data record),
 * task events and samples, progress, and the errors hotspot lists (MMAP
 * records out of time order, files the resolver reports missing).
 */
#ifndef SCORCH_OUTPUT_PERFPARSER_SINK_H
#define SCORCH_OUTPUT_PERFPARSER_SINK_H

#include "analyze/pipeline.h"
#include "output/perfparser.h"

/*
 * Fill sink to write into pp (not owned; flush and free it after
 * pipeline_run). arch: the fallback architecture (--arch) for the features
 * event. Sets c->file_warn so the resolver reports the files it cannot find
 * to the sink: run the pipeline with this c. The sink's context is freed by
 * its end callback.
 */
void perfparser_sink_init(struct perfparser *pp, const char *arch, struct pipeline_config *c,
			  struct sink *sink);

#endif
