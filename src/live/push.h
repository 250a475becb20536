/*
 * push.h: sending each interval's profile to a Pyroscope-compatible ingest
 * endpoint: POST URL/ingest?name=APP{labels}&from=S&until=S&format=pprof
 * with the gzip'd pprof as the body (Grafana Pyroscope's HTTP API; Grafana
 * Alloy's pyroscope.receive_http takes the same).
 *
 * The recorder must never wait for the network: push_enqueue only moves a
 * buffer into a bounded queue under a mutex; one sender thread takes them
 * in order and POSTs each, retrying failures (connection refused, timeout,
 * 5xx, 429) with a doubling delay (1 s up to 30 s) until it is sent or given
 * up after max_tries. A full queue drops its oldest profile (counted), so a
 * backend that is down costs at most the queue's memory and the profiles
 * that did not fit. Plain http:// only (put a TLS-terminating proxy or
 * Alloy in front of an https endpoint).
 */
#ifndef SCORCH_PUSH_H
#define SCORCH_PUSH_H

#include "util/buf.h"
#include "util/err.h"
#include <stdbool.h>
#include <stdint.h>

struct push_config {
	const char *url;        /* http://HOST[:PORT][/PREFIX] */
	const char *app;        /* application name (the part before {labels}) */
	const char *labels;     /* "host=NAME" etc., comma-separated, no braces */
	unsigned queue;         /* profiles waiting at most (default 16) */
	unsigned max_tries;     /* attempts per profile (default 10) */
	unsigned timeout_ms;    /* connect / send / receive (default 10000) */
	unsigned max_backoff_ms; /* cap of the doubling retry delay (default 30000) */
	void (*log)(void *ctx, const char *msg);
	void *log_ctx;
};

struct push_stats {
	uint64_t queued, sent, dropped, failed_tries, given_up;
};

struct push;
/* Start the sender. NULL with e filled on a bad URL. */
struct push *push_new(const struct push_config *c, struct err *e);
/* Queue a profile of [from, until) (Unix seconds); takes body's memory
 * (body is left empty). Never blocks on the network. */
void push_enqueue(struct push *p, struct buf *body, int64_t from, int64_t until);
/* Let the sender work on what is queued for at most wait_ms, stop it, free. */
void push_free(struct push *p, unsigned wait_ms, struct push_stats *st);

/* Split an http:// URL (for tests). 0 or -EINVAL. */
int push_parse_url(const char *url, char *host, size_t hn, char *port, size_t pn, char *path,
		   size_t ptn);

#endif
