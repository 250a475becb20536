/* deep_read.c: for tests/e2e/script_parity.sh: a recursion argv[2] deep
 * (default 200, deeper than perf script's 127 frames) that reads
 * /dev/zero at its bottom for argv[1] seconds, so most samples are in the
 * kernel under a user stack longer than the frame limit. Build with frame
 * pointers and -fno-optimize-sibling-calls. */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static char buf[1 << 20];
volatile unsigned long sink;

__attribute__((noinline)) void bottom(int fd, double secs)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		sink += (unsigned long)read(fd, buf, sizeof(buf));
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) < secs);
}

__attribute__((noinline)) void descend(int depth, int fd, double secs)
{
	if (depth == 0)
		bottom(fd, secs);
	else
		descend(depth - 1, fd, secs);
	sink++;
}

int main(int argc, char **argv)
{
	int fd = open("/dev/zero", O_RDONLY);
	if (fd < 0)
		return 1;
	descend(argc > 2 ? atoi(argv[2]) : 200, fd, argc > 1 ? atof(argv[1]) : 0.3);
	return 0;
}
