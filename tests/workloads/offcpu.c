/* offcpu.c: workload for the off-CPU tests: three threads with known waits.
 *   sleeper: sleeps 3 x 100 ms (nanosleep) in sleeper()
 *   waiter:  blocks on a pipe read in waiter() until main writes, 300 ms later
 *   spinner: spins 300 ms (wall clock) in spinner()
 * Each thread measures its own time in its function and prints it as
 * "NAME MS" (one line each, to argv[1] or stdout), so a test compares the
 * profiler's numbers with what the thread itself saw (the machine may be
 * loaded: a wake-up can come late, and that is off-CPU time too).
 * The waits are system calls made right in sleeper() and waiter() (inline
 * syscall instructions, no libc wrapper), so a frame-pointer stack of the
 * switch-out has the waiting function as its user leaf. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int pfd[2];
static double took[3];

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static void sleeper(void)
{
	struct timespec d = { 0, 100 * 1000 * 1000 };
	for (int i = 0; i < 3; i++) {
		long r;
		__asm__ volatile("syscall" : "=a"(r) : "a"((long)SYS_nanosleep), "D"(&d), "S"(0L)
				 : "rcx", "r11", "memory");
		(void)r;
	}
}

__attribute__((noinline)) static void waiter(void)
{
	char c;
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "a"((long)SYS_read), "D"((long)pfd[0]), "S"(&c), "d"(1L)
			 : "rcx", "r11", "memory");
	if (r != 1)
		abort();
}

static volatile unsigned long spins;

/* The clock read with an inline syscall too: wherever the spinner is
 * sampled or preempted, its user leaf is spinner() itself (a libc or vDSO
 * leaf without frame pointers would hide spinner from a -g stack). */
__attribute__((noinline)) static void spinner(void)
{
	struct timespec ts;
	long r;
	double end = 0;
	for (;;) {
		__asm__ volatile("syscall" : "=a"(r) : "a"((long)SYS_clock_gettime),
				 "D"((long)CLOCK_MONOTONIC), "S"(&ts) : "rcx", "r11", "memory");
		double t = ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
		if (!end)
			end = t + 300;
		else if (t >= end)
			break;
		for (int i = 0; i < 20000; i++)
			spins++;
	}
}

static void *run(void *arg)
{
	long k = (long)arg;
	static const char *const names[] = { "sleeper", "waiter", "spinner" };
	pthread_setname_np(pthread_self(), names[k]);
	double t0 = now_ms();
	if (k == 0)
		sleeper();
	else if (k == 1)
		waiter();
	else
		spinner();
	took[k] = now_ms() - t0;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[3];
	if (pipe(pfd))
		return 1;
	for (long k = 0; k < 3; k++)
		pthread_create(&t[k], NULL, run, (void *)k);
	struct timespec d = { 0, 300 * 1000 * 1000 };
	nanosleep(&d, NULL);
	if (write(pfd[1], "x", 1) != 1)
		return 1;
	for (int k = 0; k < 3; k++)
		pthread_join(t[k], NULL);
	FILE *f = argc > 1 ? fopen(argv[1], "w") : stdout;
	if (!f)
		return 1;
	fprintf(f, "sleeper %.3f\nwaiter %.3f\nspinner %.3f\n", took[0], took[1], took[2]);
	return fclose(f) ? 1 : 0;
}
