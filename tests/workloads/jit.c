/* jit.c: generates machine code at run time (anonymous executable memory)
 * and describes it in /tmp/perf-PID.map, as JITs do for perf. Runs the
 * generated loop for argv[1] ms of CPU. The map file is left for the
 * analysis; the test removes it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* mov %rdi,%rax; 1: dec %rax; jnz 1b; ret */
static const uint8_t code[] = { 0x48, 0x89, 0xf8, 0x48, 0xff, 0xc8, 0x75, 0xfb, 0xc3 };

__attribute__((noinline)) static void run_jit(void (*fn)(long), long ms)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		fn(200000);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

int main(int argc, char **argv)
{
	uint8_t *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	memset(p, 0xcc, 4096);
	memcpy(p + 64, code, sizeof code);
	char path[64];
	snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %zx jit_spin_loop\n", (unsigned long)(uintptr_t)(p + 64), sizeof code);
	fclose(f);
	run_jit((void (*)(long))(void *)(p + 64), argc > 1 ? atol(argv[1]) : 300);
	return 0;
}
