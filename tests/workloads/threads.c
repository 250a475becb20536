/* threads.c: N worker threads (argv[2], default 2) each running a small
 * call tree for argv[1] ms of CPU. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long ms = 300;

__attribute__((noinline)) unsigned long spin(unsigned long seed)
{
	for (int i = 0; i < 5000; i++)
		seed = seed * 2862933555777941757UL + 3037000493UL;
	return seed;
}

__attribute__((noinline)) unsigned long worker_loop(unsigned long seed)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		seed = spin(seed);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	return seed;
}

static void *worker(void *arg)
{
	return (void *)worker_loop((unsigned long)arg);
}

int main(int argc, char **argv)
{
	if (argc > 1) ms = atol(argv[1]);
	int n = argc > 2 ? atoi(argv[2]) : 2;
	pthread_t t[64];
	if (n > 64) n = 64;
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)(long)(i + 1));
	unsigned long s = worker_loop(99);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("%lu\n", s & 1);
	return 0;
}
