/* recurse.c: deep recursion (depth argv[2], default 300), so stacks are
 * longer than the copied user stack and longer than --max-frames. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

__attribute__((noinline)) unsigned long work(unsigned long n)
{
	unsigned long acc = n;
	for (int i = 0; i < 2000; i++)
		acc = acc * 6364136223846793005UL + 1442695040888963407UL;
	return acc;
}

__attribute__((noinline)) unsigned long descend(int depth, unsigned long x)
{
	if (depth == 0)
		return work(x);
	unsigned long r = descend(depth - 1, x + 1);
	sink += r;
	return r ^ (unsigned long)depth;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 400;
	int depth = argc > 2 ? atoi(argv[2]) : 300;
	struct timespec t0, t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		sink += descend(depth, 1);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	printf("%lu\n", sink & 1);
	return 0;
}
