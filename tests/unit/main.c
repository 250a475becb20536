/* main.c: runs every registered unit test in a child with a 60 s timeout.
 * Usage: unit-tests [substring]  (only tests whose name contains it). */
#include "test.h"
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static struct test_case cases[1024];
static int ncases;

void test_register(const char *name, void (*fn)(void))
{
	if (ncases < 1024)
		cases[ncases++] = (struct test_case){ name, fn };
}

int main(int argc, char **argv)
{
	int pass = 0, fail = 0;
	for (int i = 0; i < ncases; i++) {
		if (argc > 1 && !strstr(cases[i].name, argv[1]))
			continue;
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			alarm(60);
			cases[i].fn();
			fflush(stdout);
			_exit(0);
		}
		int st = 0;
		waitpid(pid, &st, 0);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			printf("PASS unit/%s\n", cases[i].name);
			pass++;
		} else {
			printf("FAIL unit/%s (%s %d)\n", cases[i].name,
			       WIFSIGNALED(st) ? "signal" : "exit",
			       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
			fail++;
		}
	}
	printf("%d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}
