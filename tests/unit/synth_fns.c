/* synth_fns.c: the functions the synthetic stacks of tests/unit/synth.h
 * point into (never inlined: each is a symbol of the unit-test binary). */
#include <stddef.h>

unsigned long synth_leaf(unsigned long n);
unsigned long synth_mid(unsigned long n);
unsigned long synth_top(unsigned long n);

volatile unsigned long synth_sink;

__attribute__((noinline)) unsigned long synth_leaf(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		synth_sink += i;
	return synth_sink;
}

__attribute__((noinline)) unsigned long synth_mid(unsigned long n)
{
	return synth_leaf(n) + 1;
}

__attribute__((noinline)) unsigned long synth_top(unsigned long n)
{
	return synth_mid(n) + 1;
}
