/* clang_inline.c: built by clang -O2 -g (no .debug_aranges: clang writes
 * none), for tests/e2e/perfparser_record.sh: an always-inlined loop inside
 * a function that main calls. The mixed binary of that test is built from
 * two halves of it: work() by clang (-DCLANG_INLINE_NO_MAIN) and main by
 * gcc (-DCLANG_INLINE_ONLY_MAIN), so .debug_aranges lists the GCC CU and not
 * the clang one. */
#include <stdio.h>
#include <stdlib.h>

#ifndef CLANG_INLINE_ONLY_MAIN
static inline __attribute__((always_inline)) double inner(double x)
{
	for (int i = 0; i < 1000; i++)
		x = x * 1.0000001 + 0.5;
	return x;
}

__attribute__((noinline)) double work(double x)
{
	return inner(x) + inner(x + 1);
}
#else
double work(double x);
#endif

#ifndef CLANG_INLINE_NO_MAIN
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200000;
	double s = 0;
	for (int i = 0; i < n; i++)
		s += work(i);
	printf("%f\n", s);
	return 0;
}
#endif
