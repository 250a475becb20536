/*
 * diff_work.c: the workload the diff tests record twice: main calls four
 * leaf functions round after round, each doing a fixed amount of work, so
 * each gets a known share of the time. Built with -DGROW=2 the function
 * grow() does twice the work of the baseline build (-DGROW=1): its self
 * share goes from 1/4 to 2/5, the others' from 1/4 to 1/5. With
 * -DCLONE_NAMES its symbol is "grow.constprop.0".
 * Usage: diff_work [ROUNDS]
 */
#include <stdlib.h>

#ifndef GROW
#define GROW 1
#endif

static volatile unsigned long sink;

#define WORK(n)                                                  \
	do {                                                     \
		unsigned long x = sink;                          \
		for (unsigned long i = 0; i < (n); i++)          \
			x = x * 6364136223846793005ul + i;       \
		sink = x;                                        \
	} while (0)

#define UNIT 200000ul

#ifdef CLONE_NAMES
/* the symbol as GCC names a specialized copy, so a comparison must fold
 * the suffix to match it with the other build's grow */
void grow(void) __asm__("grow.constprop.0");
#endif

__attribute__((noinline, noclone)) void steady_a(void) { WORK(UNIT); }
__attribute__((noinline, noclone)) void steady_b(void) { WORK(UNIT); }
__attribute__((noinline, noclone)) void steady_c(void) { WORK(UNIT); }
__attribute__((noinline, noclone)) void grow(void) { WORK(UNIT * GROW); }

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 2000;
	for (long r = 0; r < rounds; r++) {
		steady_a();
		steady_b();
		steady_c();
		grow();
	}
	return 0;
}
