/* mixed_main.c: the GCC half of tests/e2e/perfparser_record.sh's mixed
 * binary: main, built by gcc -O2 -g (which writes .debug_aranges for this
 * CU), calls work() from clang_inline.c built by clang (which does not). */
#include <stdio.h>
#include <stdlib.h>

double work(double x);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200000;
	double s = 0;
	for (int i = 0; i < n; i++)
		s += work(i);
	printf("%f\n", s);
	return 0;
}
