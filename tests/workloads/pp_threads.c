/* pp_threads.c: workload for the perfparser tests: two threads burning CPU
 * in a call chain with an always-inlined function (inline frames), a
 * non-inlined leaf, and a libm call (a shared library frame). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

__attribute__((noinline)) static double leaf(int i)
{
	return sqrt((double)i) * 0.5;
}

static inline __attribute__((always_inline)) double inlined_sum(int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += leaf(i) / (i + 1.0);
	return s;
}

__attribute__((noinline)) static double middle(int n)
{
	return inlined_sum(n) + cos((double)n);
}

static void *worker(void *arg)
{
	int rounds = *(int *)arg;
	for (int k = 0; k < rounds; k++)
		sink += middle(200000);
	return NULL;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;
	pthread_t t;
	pthread_create(&t, NULL, worker, &rounds);
	worker(&rounds);
	pthread_join(t, NULL);
	printf("%f\n", sink);
	return 0;
}
