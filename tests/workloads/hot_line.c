/* hot_line.c: for tests/e2e/flame_lines.sh and live_top.sh: divide()
 * spends its time on one source line (marked HOT: a chain of dependent
 * divisions, beside which the loop's own instructions are few), called
 * from caller(), which has little code of its own. Runs argv[1] seconds
 * of CPU. */
#include <stdlib.h>
#include <time.h>

volatile double sink;

__attribute__((noipa)) double divide(long n)
{
	double d = 1.0;
	for (long i = 0; i < n; i++) {
		d = d / 1.0000001 + 1e-9; d = d / 1.0000002 + 1e-9; d = d / 1.0000003 + 1e-9; d = d / 1.0000004 + 1e-9; /* HOT */
	}
	return d;
}

__attribute__((noipa)) void caller(double secs)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		sink = divide(200000);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) < secs);
}

int main(int argc, char **argv)
{
	caller(argc > 1 ? atof(argv[1]) : 0.5);
	return 0;
}
