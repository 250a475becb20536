/* leaf_mid.c: the readers' small workload: main -> mid -> leaf, a loop of
 * floating-point work (about 0.3 s of CPU for the default 300 rounds).
 *   leaf_mid [ROUNDS]     ROUNDS rounds in the main thread (default 300)
 *   leaf_mid threads      300 rounds in each of 3 threads
 *   leaf_mid forkexec     fork, the child execs itself ("child"), both run
 * Built by the tests that use it (tests/e2e/reader_*.sh, valgrind.sh) with
 * their own flags (frame pointers or not). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

static volatile double x;
static int rounds = 300;

__attribute__((noinline)) static void leaf(int n)
{
	for (int i = 0; i < n; i++)
		x += i * 0.5;
}

__attribute__((noinline)) static void mid(int n)
{
	leaf(n);
}

static void *thr(void *a)
{
	(void)a;
	for (int k = 0; k < rounds; k++)
		mid(100000);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "threads")) {
		pthread_t t[3];
		for (int i = 0; i < 3; i++)
			pthread_create(&t[i], NULL, thr, NULL);
		for (int i = 0; i < 3; i++)
			pthread_join(t[i], NULL);
	} else if (argc > 1 && !strcmp(argv[1], "forkexec")) {
		pid_t p = fork();
		if (p == 0) {
			execl(argv[0], argv[0], "child", (char *)NULL);
			_exit(127);
		}
		thr(NULL);
		waitpid(p, NULL, 0);
	} else {
		if (argc > 1 && atoi(argv[1]) > 0)
			rounds = atoi(argv[1]);
		thr(NULL);
	}
	printf("%f\n", x);
	return 0;
}
