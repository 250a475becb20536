/*
 * fuzz_fd.h: hand a fuzz input to a reader as a file descriptor, either a
 * memfd (the mapped/pread file path) or a pipe holding the whole input (the
 * streaming path; inputs are at most 1 MiB, the pipe is grown to that).
 * Returns the readable fd (the caller closes it) or -1.
 */
#ifndef SCORCH_FUZZ_FD_H
#define SCORCH_FUZZ_FD_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

static inline int fuzz_fd(const uint8_t *data, size_t size, bool as_pipe)
{
	if (as_pipe) {
		int p[2];
		if (pipe(p))
			return -1;
		fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
		fcntl(p[1], F_SETFL, O_NONBLOCK);
		size_t off = 0;
		while (off < size) {
			ssize_t w = write(p[1], data + off, size - off);
			if (w <= 0)
				break;
			off += (size_t)w;
		}
		close(p[1]);
		return p[0];
	}
	int fd = memfd_create("fuzz", 0);
	if (fd < 0)
		return -1;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

#endif
