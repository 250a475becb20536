/*
 * record_spin.c: CPU-bound workload for the recorder's tests and bench.
 * usage: record_spin SECONDS [THREADS] [fork|crash|exit3]
 * Burns CPU in a small call tree (spin_outer -> spin_mid -> spin_leaf) on
 * THREADS threads for SECONDS; "fork" also runs a child process doing the
 * same, "crash" ends with SIGSEGV, "exit3" exits with status 3.
 * With RECORD_SPIN_REPORT=FILE it writes its CPU seconds to FILE at the end.
 * With RECORD_SPIN_READY=FILE it writes its pid to FILE once all its threads
 * (and the child) run: the tests' readiness signal (written to FILE.tmp,
 * then renamed, so FILE is whole once it is there).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds = 1.0;
static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static unsigned long spin_leaf(unsigned long x)
{
	for (int i = 0; i < 1000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

__attribute__((noinline)) static unsigned long spin_mid(unsigned long x)
{
	return spin_leaf(x) ^ spin_leaf(x + 1);
}

__attribute__((noinline)) static void *spin_outer(void *arg)
{
	double end = now() + seconds;
	unsigned long x = (unsigned long)arg;
	while (now() < end)
		for (int i = 0; i < 100; i++)
			x = spin_mid(x);
	sink = x;
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		seconds = atof(argv[1]);
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	const char *mode = argc > 3 ? argv[3] : "";
	pid_t child = -1;
	if (!strcmp(mode, "fork")) {
		child = fork();
		if (child == 0) {
			spin_outer((void *)7);
			_exit(0);
		}
	}
	pthread_t t[64];
	if (threads > 64)
		threads = 64;
	for (int i = 1; i < threads; i++)
		pthread_create(&t[i], NULL, spin_outer, (void *)(long)i);
	const char *ready = getenv("RECORD_SPIN_READY");
	if (ready) {
		char tmp[4096];
		snprintf(tmp, sizeof(tmp), "%s.tmp", ready);
		FILE *f = fopen(tmp, "w");
		if (f) {
			fprintf(f, "%d\n", (int)getpid());
			if (fclose(f) == 0)
				rename(tmp, ready);
		}
	}
	spin_outer(NULL);
	for (int i = 1; i < threads; i++)
		pthread_join(t[i], NULL);
	if (child > 0)
		waitpid(child, NULL, 0);
	if (getenv("RECORD_SPIN_REPORT")) {
		/* CPU seconds of this process and its waited-for children, for
		 * bench/record_bench.sh (samples per CPU-second) */
		struct rusage self, kids;
		getrusage(RUSAGE_SELF, &self);
		getrusage(RUSAGE_CHILDREN, &kids);
		double cpu = self.ru_utime.tv_sec + self.ru_utime.tv_usec / 1e6 + self.ru_stime.tv_sec +
			     self.ru_stime.tv_usec / 1e6 + kids.ru_utime.tv_sec +
			     kids.ru_utime.tv_usec / 1e6 + kids.ru_stime.tv_sec + kids.ru_stime.tv_usec / 1e6;
		FILE *f = fopen(getenv("RECORD_SPIN_REPORT"), "w");
		if (f) {
			fprintf(f, "%.6f\n", cpu);
			fclose(f);
		}
	}
	if (!strcmp(mode, "crash"))
		*(volatile int *)0 = 1;
	if (!strcmp(mode, "exit3"))
		return 3;
	return 0;
}
