/* pingpong.c: the off-CPU benchmark's workload (bench/offcpu_bench.sh): two
 * threads pass one byte back and forth over two pipes N times (default
 * 200000), so each round trip is two blocking reads and two context
 * switches per thread. Prints the wall time of the exchange in seconds. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ab[2], ba[2];
static long rounds;

static void *pong(void *arg)
{
	char c;
	(void)arg;
	for (long i = 0; i < rounds; i++)
		if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
			abort();
	return NULL;
}

int main(int argc, char **argv)
{
	rounds = argc > 1 ? atol(argv[1]) : 200000;
	if (pipe(ab) || pipe(ba))
		return 1;
	pthread_t t;
	pthread_create(&t, NULL, pong, NULL);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	char c = 'x';
	for (long i = 0; i < rounds; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			abort();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(t, NULL);
	printf("%.6f\n", (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
