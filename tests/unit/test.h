/*
 * test.h: a tiny unit test framework. TEST(name) { ... } registers a test at
 * load time; tests/unit/main.c runs each in a forked child with a timeout,
 * prints "PASS name" / "FAIL name" per test and "N passed, N failed".
 */
#ifndef SCORCH_TEST_H
#define SCORCH_TEST_H

#include "util/cachedir.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct test_case {
	const char *name;
	void (*fn)(void);
};
void test_register(const char *name, void (*fn)(void));

#define TEST(name)                                                   \
	static void test_##name(void);                               \
	__attribute__((constructor)) static void reg_##name(void)    \
	{                                                            \
		test_register(#name, test_##name);                   \
	}                                                            \
	static void test_##name(void)

#define CHECK(c)                                                             \
	do {                                                                 \
		if (!(c)) {                                                  \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
				__LINE__, #c);                               \
			exit(1);                                             \
		}                                                            \
	} while (0)
#define CHECK_EQ(a, b)                                                        \
	do {                                                                  \
		long long _a = (long long)(a), _b = (long long)(b);           \
		if (_a != _b) {                                               \
			fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", \
				__FILE__, __LINE__, #a, #b, _a, _b);          \
			exit(1);                                              \
		}                                                             \
	} while (0)
#define CHECK_STR(a, b)                                                       \
	do {                                                                  \
		const char *_a = (a), *_b = (b);                              \
		if (!_a || !_b || strcmp(_a, _b)) {                           \
			fprintf(stderr, "%s:%d: \"%s\" != \"%s\"\n", __FILE__, \
				__LINE__, _a ? _a : "(null)", _b ? _b : "(null)"); \
			exit(1);                                              \
		}                                                             \
	} while (0)

/* Tests of the caches kept across runs (~/.cache/scorch): dir, a template
 * such as "/tmp/scorch-x-XXXXXX", made and used as XDG_CACHE_HOME with the
 * caches on; test_cache_file makes a file of one byte in it (a cache's
 * source, by identity), open read-write; test_cache_end removes it all. */
/* The caches in xdg/scorch (NULL: none), on or off, as cli/env.c sets
 * them from XDG_CACHE_HOME and SCORCH_NO_CACHE. */
static inline void test_cache_config(const char *xdg, bool off)
{
	struct cachedir_config c = *cachedir_config();
	c.xdg_cache_home = xdg;
	c.off = off;
	if (!c.max)
		c.max = CACHEDIR_MAX_DEFAULT;
	cachedir_configure(&c);
}
static inline void test_cache_off(bool off)
{
	test_cache_config(cachedir_config()->xdg_cache_home, off);
}
static inline void test_cache_begin(char *dir)
{
	CHECK(mkdtemp(dir) != NULL);
	test_cache_config(dir, false);
}
static inline int test_cache_file(const char *dir, const char *name)
{
	char path[300];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int fd = open(path, O_RDWR | O_CREAT, 0644);
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, "x", 1), 1);
	return fd;
}
static inline void test_cache_end(const char *dir)
{
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK_EQ(system(cmd), 0);
	test_cache_config(NULL, false);
}

#endif
