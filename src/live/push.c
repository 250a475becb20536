/*
 * push.c: see push.h. One sender thread; the queue is a ring of
 * struct item under one mutex with a condition variable. The HTTP client is
 * the few lines HTTP/1.1 needs for one request per connection: a request
 * line, Host, Content-Type, Content-Length and Connection: close, then the
 * body; the answer's status line decides (2xx sent; 5xx, 408, 429 and
 * network errors retried; other 4xx given up at once: retrying a request
 * the server rejects would only repeat it).
 */
#include "live/push.h"
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

struct item {
	struct buf body;
	int64_t from, until;
	unsigned tries;
};

struct push {
	struct push_config c;
	char host[256], port[16], path[1024];
	char *app_q;             /* name=APP{labels}, URL-encoded */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct item *q;          /* ring of c.queue items */
	size_t head, n;
	bool stop;
	uint64_t deadline_ns;    /* stopping: give up after this */
	struct push_stats st;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void plog(struct push *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void plog(struct push *p, const char *fmt, ...)
{
	if (!p->c.log)
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p->c.log(p->c.log_ctx, msg);
}

int push_parse_url(const char *url, char *host, size_t hn, char *port, size_t pn, char *path,
		   size_t ptn)
{
	if (strncmp(url, "http://", 7))
		return -EINVAL;
	const char *h = url + 7, *slash = strchr(h, '/');
	size_t hl = slash ? (size_t)(slash - h) : strlen(h);
	const char *colon = memchr(h, ':', hl);
	if (h[0] == '[') { /* [v6]:port */
		const char *rb = memchr(h, ']', hl);
		if (!rb)
			return -EINVAL;
		colon = rb + 1 < h + hl && rb[1] == ':' ? rb + 1 : NULL;
		if ((size_t)(rb - h - 1) >= hn)
			return -EINVAL;
		snprintf(host, hn, "%.*s", (int)(rb - h - 1), h + 1);
	} else {
		size_t l = colon ? (size_t)(colon - h) : hl;
		if (!l || l >= hn)
			return -EINVAL;
		snprintf(host, hn, "%.*s", (int)l, h);
	}
	if (colon) {
		size_t l = hl - (size_t)(colon + 1 - h);
		if (!l || l >= pn)
			return -EINVAL;
		snprintf(port, pn, "%.*s", (int)l, colon + 1);
		for (const char *c = port; *c; c++)
			if (*c < '0' || *c > '9')
				return -EINVAL;
	} else {
		snprintf(port, pn, "80");
	}
	const char *pth = slash ? slash : "";
	size_t pl = strlen(pth);
	while (pl && pth[pl - 1] == '/')
		pl--;
	if (pl + 1 >= ptn)
		return -EINVAL;
	snprintf(path, ptn, "%.*s", (int)pl, pth);
	return 0;
}

/* Percent-encode everything but unreserved characters. */
static char *url_encode(const char *s)
{
	size_t n = strlen(s);
	char *o = xcalloc(n * 3 + 1, 1), *w = o;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || c == '.' || c == '~') {
			*w++ = (char)c;
		} else {
			sprintf(w, "%%%02X", c);
			w += 3;
		}
	}
	*w = 0;
	return o;
}

static int wait_fd(int fd, short ev, unsigned ms)
{
	struct pollfd pf = { .fd = fd, .events = ev };
	for (;;) {
		int r = poll(&pf, 1, (int)ms);
		if (r > 0)
			return 0;
		if (r == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

static int send_all(int fd, const void *p, size_t n, unsigned ms)
{
	const char *c = p;
	while (n) {
		ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				int rc = wait_fd(fd, POLLOUT, ms);
				if (rc)
					return rc;
				continue;
			}
			return -errno;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* One POST. Returns the HTTP status, or a negative errno (network). */
static int post(struct push *p, const struct item *it)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	int rc = getaddrinfo(p->host, p->port, &hints, &ai);
	if (rc)
		return -EHOSTUNREACH;
	int fd = -1;
	rc = -ECONNREFUSED;
	for (struct addrinfo *a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
		if (fd < 0)
			continue;
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
			rc = 0;
			break;
		}
		if (errno == EINPROGRESS && wait_fd(fd, POLLOUT, p->c.timeout_ms) == 0) {
			int err = 0;
			socklen_t l = sizeof(err);
			getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l);
			if (!err) {
				rc = 0;
				break;
			}
			rc = -err;
		} else {
			rc = errno == EINPROGRESS ? -ETIMEDOUT : -errno;
		}
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		return rc;
	char head[2048 + 1024];
	int hl = snprintf(head, sizeof(head),
			  "POST %s/ingest?name=%s&from=%lld&until=%lld&format=pprof&spyName=scorch HTTP/1.1\r\n"
			  "Host: %s:%s\r\nUser-Agent: scorch\r\nContent-Type: binary/octet-stream\r\n"
			  "Content-Length: %zu\r\nConnection: close\r\n\r\n",
			  p->path, p->app_q, (long long)it->from, (long long)it->until, p->host, p->port,
			  it->body.len);
	if (hl < 0 || (size_t)hl >= sizeof(head)) {
		close(fd);
		return -E2BIG;
	}
	rc = send_all(fd, head, (size_t)hl, p->c.timeout_ms);
	if (!rc)
		rc = send_all(fd, it->body.data, it->body.len, p->c.timeout_ms);
	char resp[512];
	size_t got = 0;
	while (!rc && got < sizeof(resp) - 1 && !memchr(resp, '\n', got)) {
		if ((rc = wait_fd(fd, POLLIN, p->c.timeout_ms)))
			break;
		ssize_t r = recv(fd, resp + got, sizeof(resp) - 1 - got, 0);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0) {
			rc = r < 0 ? -errno : -ECONNRESET;
			break;
		}
		got += (size_t)r;
	}
	close(fd);
	if (rc)
		return rc;
	resp[got] = 0;
	int status = 0;
	if (sscanf(resp, "HTTP/%*d.%*d %d", &status) != 1)
		return -EPROTO;
	return status;
}

static void *sender(void *arg)
{
	struct push *p = arg;
	unsigned backoff = 1000;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->n && !p->stop)
			pthread_cond_wait(&p->cv, &p->mu);
		if (!p->n || (p->stop && mono_ns() > p->deadline_ns))
			break;
		/* take the oldest out while it is sent: enqueue may drop others */
		struct item it = p->q[p->head];
		p->head = (p->head + 1) % p->c.queue;
		p->n--;
		pthread_mutex_unlock(&p->mu);
		int st = post(p, &it);
		it.tries++;
		bool ok = st >= 200 && st < 300;
		bool retry = !ok && (st < 0 || st >= 500 || st == 408 || st == 429);
		pthread_mutex_lock(&p->mu);
		if (ok) {
			p->st.sent++;
			backoff = 1000;
			buf_release(&it.body);
			continue;
		}
		p->st.failed_tries++;
		if (!retry || it.tries >= p->c.max_tries) {
			p->st.given_up++;
			plog(p, "push: gave up on the profile of %lld after %u tries (%s%d)",
			     (long long)it.from, it.tries, st < 0 ? "error " : "HTTP ", st < 0 ? -st : st);
			buf_release(&it.body);
			continue;
		}
		/* back at the head of the queue, unless newer ones filled it */
		if (p->n == p->c.queue) {
			p->st.dropped++;
			buf_release(&it.body);
		} else {
			p->head = (p->head + p->c.queue - 1) % p->c.queue;
			p->q[p->head] = it;
			p->n++;
		}
		if (it.tries == 1)
			plog(p, "push: %s%d, retrying", st < 0 ? "error " : "HTTP ", st < 0 ? -st : st);
		/* the whole delay (new profiles signal the condition too), but
		 * not past the deadline once stopping */
		uint64_t t_in = mono_ns(), until = t_in + (uint64_t)backoff * 1000000ULL;
		for (;;) {
			uint64_t now = mono_ns(), end = until;
			/* stopping: retry every half second until the deadline */
			if (p->stop && end > t_in + 500000000ULL)
				end = t_in + 500000000ULL;
			if (p->stop && p->deadline_ns < end)
				end = p->deadline_ns;
			if (now >= end)
				break;
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			uint64_t ns = (uint64_t)ts.tv_nsec + (end - now);
			ts.tv_sec += (time_t)(ns / 1000000000ULL);
			ts.tv_nsec = (long)(ns % 1000000000ULL);
			pthread_cond_timedwait(&p->cv, &p->mu, &ts);
		}
		backoff = backoff * 2 > p->c.max_backoff_ms ? p->c.max_backoff_ms : backoff * 2;
		if (p->stop && mono_ns() > p->deadline_ns)
			break;
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct push *push_new(const struct push_config *c, struct err *e)
{
	struct push *p = xcalloc(1, sizeof(*p));
	p->c = *c;
	if (!p->c.queue)
		p->c.queue = 16;
	if (!p->c.max_tries)
		p->c.max_tries = 10;
	if (!p->c.timeout_ms)
		p->c.timeout_ms = 10000;
	if (!p->c.max_backoff_ms)
		p->c.max_backoff_ms = 30000;
	if (push_parse_url(c->url, p->host, sizeof(p->host), p->port, sizeof(p->port), p->path,
			   sizeof(p->path))) {
		err_set(e, -EINVAL, "--push: '%s' is not an http://HOST[:PORT][/PATH] URL", c->url);
		free(p);
		return NULL;
	}
	char name[1024];
	snprintf(name, sizeof(name), "%s{%s}", c->app ? c->app : "scorch", c->labels ? c->labels : "");
	p->app_q = url_encode(name);
	p->q = xcalloc(p->c.queue, sizeof(*p->q));
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	if (pthread_create(&p->th, NULL, sender, p)) {
		err_set(e, -EAGAIN, "--push: cannot start the sender thread");
		free(p->q);
		free(p->app_q);
		free(p);
		return NULL;
	}
	return p;
}

void push_enqueue(struct push *p, struct buf *body, int64_t from, int64_t until)
{
	pthread_mutex_lock(&p->mu);
	if (p->n == p->c.queue) { /* full: the oldest goes */
		buf_release(&p->q[p->head].body);
		p->head = (p->head + 1) % p->c.queue;
		p->n--;
		p->st.dropped++;
	}
	struct item *it = &p->q[(p->head + p->n) % p->c.queue];
	*it = (struct item){ .body = *body, .from = from, .until = until };
	memset(body, 0, sizeof(*body));
	p->n++;
	p->st.queued++;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

void push_free(struct push *p, unsigned wait_ms, struct push_stats *st)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	p->deadline_ns = mono_ns() + (uint64_t)wait_ms * 1000000ULL;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->th, NULL);
	while (p->n) {
		buf_release(&p->q[p->head].body);
		p->head = (p->head + 1) % p->c.queue;
		p->n--;
		p->st.dropped++;
	}
	if (st)
		*st = p->st;
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p->q);
	free(p->app_q);
	free(p);
}
