/* main.c: runs every registered unit test in a child with a 60 s timeout.
 * Usage: unit-tests [substring]  (only tests whose name contains it).
 * The caches scorch keeps on disk (util/cachedir.h) go to a directory of
 * the run's own, removed at the end: tests make kallsyms and debug files
 * in temporary places, whose cached forms would otherwise pile up in the
 * user's ~/.cache/scorch. */
#include "test.h"
#include "util/xalloc.h"
#include <ftw.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* every registered case, grown as the constructors register them: no cap */
static struct test_case *cases;
static int ncases, cap;

void test_register(const char *name, void (*fn)(void))
{
	if (ncases == cap) {
		cap = cap ? 2 * cap : 256;
		cases = xrealloc(cases, (size_t)cap * sizeof(*cases));
	}
	cases[ncases++] = (struct test_case){ name, fn };
}

int main(int argc, char **argv)
{
	int pass = 0, fail = 0;
	char cache[] = "/tmp/scorch-unit-cache-XXXXXX";
	bool own_cache = mkdtemp(cache) != NULL;
	if (own_cache)
		test_cache_config(cache, false);
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
	if (own_cache)
		nftw(cache, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(cases);
	printf("%d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}
