/*
 * wake_cost.c: what one timed wakeup costs this machine, for the recorder's
 * stress setting (docs/record.md): with `-m 8` and 16 KiB stack copies a
 * ring holds one sample, so a recorder that sleeps must wake once per
 * sample (20,000 a second at -F 20000) and within one period (50 us).
 *
 *   wake_cost PERIOD_US [SECONDS] [rt]
 *
 * Sleeps to absolute deadlines PERIOD_US apart (clock_nanosleep,
 * TIMER_ABSTIME, timer slack 1 ns; SCHED_FIFO 1 with "rt"), and prints the
 * wakeups, the CPU time they cost (getrusage: user + system) per wakeup,
 * and how late they came (< 5, 10, 20, 50 us, later). By hand:
 *   cc -O2 -o /tmp/wake_cost bench/wake_cost.c && /tmp/wake_cost 45 2 rt
 *
 * The bound it gives: a recorder that keeps a fraction k of 20,000
 * samples a second by sleeping spends at least k * 20,000 * (CPU a
 * wakeup) seconds a second, and misses every sample whose wakeup comes
 * later than 50 us.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>

static long long ns_of(struct timespec t)
{
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static struct timespec ts_of(long long ns)
{
	struct timespec t = { ns / 1000000000LL, ns % 1000000000LL };
	return t;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: wake_cost PERIOD_US [SECONDS] [rt]\n");
		return 2;
	}
	long long period = atoll(argv[1]) * 1000LL;
	double secs = argc > 2 ? atof(argv[2]) : 2.0;
	int rt = argc > 3 && !strcmp(argv[3], "rt");
	if (period <= 0 || secs <= 0)
		return 2;
	prctl(PR_SET_TIMERSLACK, 1UL);
	if (rt) {
		struct sched_param sp = { .sched_priority = 1 };
		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			perror("wake_cost: SCHED_FIFO");
	}
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	long long start = ns_of(now), next = start, end = start + (long long)(secs * 1e9);
	long long wakes = 0, late[5] = { 0 };
	static const long long edge[4] = { 5000, 10000, 20000, 50000 };
	for (;;) {
		next += period;
		struct timespec dl = ts_of(next);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &dl, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		long long l = ns_of(now) - next;
		int b = 0;
		while (b < 4 && l >= edge[b])
			b++;
		late[b]++;
		wakes++;
		if (l > period)
			next = ns_of(now); /* fell behind: the next deadline from now */
		if (ns_of(now) >= end)
			break;
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double cpu = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		     (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	printf("period %lld us%s: %lld wakeups in %.1f s, CPU %.3f s (%.1f us a wakeup, %.0f%% of a CPU); "
	       "late <5 us %lld, <10 %lld, <20 %lld, <50 %lld, later %lld\n",
	       period / 1000, rt ? " (SCHED_FIFO)" : "", wakes, secs, cpu, cpu / (double)wakes * 1e6,
	       cpu / secs * 100, late[0], late[1], late[2], late[3], late[4]);
	return 0;
}
