/* outtest.c: the outputs tests' program with a known call tree
 * (tests/tools/outputs_workload.sh): main -> outer -> hot_a (~2/3) and hot_b
 * (~1/3) on the main thread, and a thread named "worker" running
 * worker_main -> hot_c for half as long. Runs SECONDS (argv[1], default 1)
 * of each thread's CPU time, not wall time, so a loaded machine still
 * records as many samples. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

__attribute__((noinline)) void hot_a(void)
{
	for (int i = 0; i < 400000; i++)
		sink += i * 7;
}

__attribute__((noinline)) void hot_b(void)
{
	for (int i = 0; i < 200000; i++)
		sink += i * 3;
}

__attribute__((noinline)) void hot_c(void)
{
	for (int i = 0; i < 200000; i++)
		sink ^= i;
}

__attribute__((noinline)) void outer(void)
{
	hot_a();
	hot_b();
}

static double secs;

static void *worker_main(void *a)
{
	pthread_setname_np(pthread_self(), "worker");
	double t0 = cpu_now();
	while (cpu_now() - t0 < secs / 2)
		hot_c();
	return a;
}

int main(int argc, char **argv)
{
	secs = argc > 1 ? atof(argv[1]) : 1.0;
	pthread_t th;
	pthread_create(&th, 0, worker_main, 0);
	double t0 = cpu_now();
	while (cpu_now() - t0 < secs)
		outer();
	pthread_join(th, 0);
	return 0;
}
