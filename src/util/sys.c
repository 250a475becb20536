/* sys.c: see sys.h. */
#include "util/sys.h"
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

uint64_t sys_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int sys_write_all(int fd, const void *p, size_t n, bool wait_ready)
{
	const uint8_t *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (wait_ready && errno == EAGAIN) {
				struct pollfd pf = { .fd = fd, .events = POLLOUT };
				poll(&pf, 1, 100);
				continue;
			}
			return -errno;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

bool sys_plain_path(const char *p)
{
	if (p[0] != '/')
		return false;
	for (const char *s = p; *s;) {
		s++;
		size_t l = strcspn(s, "/");
		if (!l || (l == 1 && s[0] == '.') || (l == 2 && s[0] == '.' && s[1] == '.'))
			return false;
		s += l;
	}
	return true;
}

void sys_vlog(void (*log)(void *ctx, const char *msg), void *ctx, size_t cap, const char *fmt,
	      va_list ap)
{
	if (!log)
		return;
	char msg[1024];
	if (cap > sizeof(msg))
		cap = sizeof(msg);
	vsnprintf(msg, cap, fmt, ap);
	log(ctx, msg);
}
