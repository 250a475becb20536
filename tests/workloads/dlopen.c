/* dlopen.c: loads argv[1] (libplugin.so) with dlopen and calls into it for
 * argv[2] ms of CPU. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) unsigned long call_plugin(unsigned long (*fn)(unsigned long), long ms)
{
	struct timespec t0, t;
	unsigned long s = 0;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		s += fn(s);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	return s;
}

int main(int argc, char **argv)
{
	void *h = dlopen(argc > 1 ? argv[1] : "./libplugin.so", RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	unsigned long (*fn)(unsigned long) = (unsigned long (*)(unsigned long))dlsym(h, "plugin_work");
	if (!fn)
		return 1;
	printf("%lu\n", call_plugin(fn, argc > 2 ? atol(argv[2]) : 300) & 1);
	dlclose(h);
	return 0;
}
