/* dg_leaf.c: the debuginfod test's workload (tests/e2e/resolve_debuginfod.sh).
 * Built with -DDG_SALT='"random"' so its build id is one nobody has cached. */
#include <stdio.h>

#ifndef DG_SALT
#define DG_SALT "unsalted"
#endif

static volatile double x;
const char *dg_salt = DG_SALT;

__attribute__((noinline)) void dg_leaf(int n)
{
	for (int i = 0; i < n; i++)
		x += i * 0.5;
}

int main(void)
{
	for (int k = 0; k < 300; k++)
		dg_leaf(100000);
	printf("%f\n", x);
	return 0;
}
