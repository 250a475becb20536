/* tcp.c: see tcp.h. */
#include "util/tcp.h"
#include "util/xalloc.h"
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int tcp_connect(const char *host, const char *port, int retries,
		void (*fail)(void *ctx, const char *msg), void *ctx)
{
	size_t cap = strlen(host) + strlen(port) + 256;
	char *msg = xmalloc(cap);
	for (int tries = 0; tries <= retries; tries++) {
		struct addrinfo hints, *res = NULL;
		memset(&hints, 0, sizeof(hints));
		hints.ai_family = AF_UNSPEC;
		hints.ai_socktype = SOCK_STREAM;
		int rc = getaddrinfo(host, port, &hints, &res);
		if (rc == 0) {
			for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
				int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
				if (fd < 0)
					continue;
				if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
					freeaddrinfo(res);
					free(msg);
					return fd;
				}
				close(fd);
			}
			freeaddrinfo(res);
			snprintf(msg, cap, "cannot connect to %s:%s: %s", host, port, strerror(errno));
		} else {
			snprintf(msg, cap, "%s: %s", host, gai_strerror(rc));
		}
		if (fail)
			fail(ctx, msg);
		if (tries == retries)
			break;
		long ms = 1L << (tries + 1);
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
	free(msg);
	return -1;
}
