/* many_stacks.c: thousands of distinct call stacks (tests/e2e/outputs_browser.sh).
 * 48 functions call each other 6 deep in a pseudo-random order picked from
 * the argument; runs for SECONDS (argv[1], default 1) of CPU time, not wall
 * time, so a loaded machine still gets as many samples. */
#include <stdlib.h>
#include <time.h>

#define N 48

static volatile unsigned long sink;
typedef void fn(unsigned, int);
extern fn *tab[N];

#define F(i)                                                                \
	__attribute__((noinline)) void f##i(unsigned s, int d)                \
	{                                                                     \
		if (!d) {                                                     \
			for (int k = 0; k < 300; k++)                         \
				sink += k;                                    \
			return;                                               \
		}                                                             \
		tab[(s >> 3) % N](s * 1103515245u + i, d - 1);                \
	}
#define F8(a) F(a##0) F(a##1) F(a##2) F(a##3) F(a##4) F(a##5) F(a##6) F(a##7)
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9)
F8(1) F(18) F(19) F8(2) F(28) F(29) F8(3) F(38) F(39) F8(4)

fn *tab[N] = {
	f0,  f1,  f2,  f3,  f4,  f5,  f6,  f7,  f8,  f9,  f10, f11, f12, f13, f14, f15,
	f16, f17, f18, f19, f20, f21, f22, f23, f24, f25, f26, f27, f28, f29, f30, f31,
	f32, f33, f34, f35, f36, f37, f38, f39, f40, f41, f42, f43, f44, f45, f46, f47,
};

static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double n = argc > 1 ? atof(argv[1]) : 1, t0 = cpu_now();
	/* the CPU clock is a system call: read it once per 1024 stacks */
	for (unsigned long k = 0; (k & 1023) || cpu_now() - t0 < n; k++)
		f0((unsigned)k * 2654435761u, 6);
	return 0;
}
