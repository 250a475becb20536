/* annotate_hot.c: for tests/e2e/annotate.sh: a shift-xor loop with an
 * always-inlined helper (mix) and a division loop, each hot on known
 * lines. Built twice: -O1 -fno-inline with frame pointers, and -O2 -g
 * (mix inlined into hot_loop). */
#include <stdio.h>
#include <stdlib.h>
#ifdef REBUILT
const char rebuilt[] = "another build"; /* another build id */
#endif
static inline __attribute__((always_inline)) unsigned mix(unsigned x)
{
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}
__attribute__((noinline)) unsigned hot_loop(unsigned n)
{
	unsigned s = 1;
	for (unsigned i = 0; i < n; i++)
		s = mix(s) + i;
	return s;
}
__attribute__((noinline)) double warm(int n)
{
	double d = 0;
	for (int i = 1; i < n; i++)
		d += 1.0 / i;
	return d;
}
int main(int argc, char **argv)
{
	unsigned r = 0; double d = 0;
	for (int k = 0; k < 40; k++) { r += hot_loop(2000000 + k); d += warm(1000000 + k); }
	printf("%u %f\n", r, d);
	return 0;
}
