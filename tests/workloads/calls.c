/* calls.c: a small C call tree (built with and without frame pointers, and
 * stripped with a separate debug file). Runs for about DURATION_MS (argv[1],
 * default 400) of CPU time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

volatile unsigned long sink;

static inline unsigned long mix(unsigned long x)
{
	x ^= x >> 13;
	x *= 0x9e3779b97f4a7c15UL;
	return x ^ (x >> 29);
}

__attribute__((noinline)) unsigned long leaf_mul(unsigned long n)
{
	unsigned long acc = 1;
	for (unsigned long i = 1; i < n; i++)
		acc = mix(acc * i + 7);
	return acc;
}

__attribute__((noinline)) unsigned long leaf_copy(unsigned long n)
{
	static char a[65536], b[65536];
	for (unsigned long i = 0; i < n; i++) {
		memset(a, (int)i, sizeof a);
		memcpy(b, a, sizeof b);
	}
	return (unsigned long)b[100];
}

__attribute__((noinline)) unsigned long compute_a(unsigned long n)
{
	return leaf_mul(n) + leaf_mul(n / 2);
}

__attribute__((noinline)) unsigned long compute_b(unsigned long n)
{
	return leaf_copy(n / 200 + 1) + leaf_mul(n / 4);
}

__attribute__((noinline)) void run(long ms)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		sink += compute_a(20000);
		sink += compute_b(20000);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

int main(int argc, char **argv)
{
	run(argc > 1 ? atol(argv[1]) : 400);
	printf("%lu\n", sink & 1);
	return 0;
}
