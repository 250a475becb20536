/* line_tree.c: for tests/e2e/report_lines.sh: work() spends its time on
 * two source lines (A: three dependent divisions, B: one) and the loop's
 * own line, and is called from two lines of run() (the return addresses
 * land on one line, two addresses). Built -O2 -g with frame pointers;
 * done() is a call after the loop so that work() keeps its frame (gcc
 * sets none up in a leaf) and run() stays on the chain. Runs argv[1]
 * rounds. */
#include <stdlib.h>

volatile double sink;

__attribute__((noipa)) double done(double a, double b)
{
	return a + b;
}

__attribute__((noipa)) double work(long n)
{
	double a = 1.0, b = 1.0;
	for (long i = 0; i < n; i++) {
		a = a / 1.0000001 + 1e-9; a = a / 1.0000002 + 1e-9; a = a / 1.0000003 + 1e-9; /* A */
		b = b / 1.0000004 + 1e-9; /* B */
	}
	return done(a, b) * 0.5;
}

__attribute__((noipa)) void run(long rounds)
{
	for (long r = 0; r < rounds; r++) {
		sink = work(100000);
		sink = work(50000);
	}
}

int main(int argc, char **argv)
{
	run(argc > 1 ? atol(argv[1]) : 100);
	return 0;
}
