/* demo.c: the program `make demo` profiles: a recognisable call tree
 * (main -> parse_input / build_index / answer_queries -> ...) with clear
 * proportions: roughly 20% parse, 50% index (sort + hash), 30% queries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 200000
static unsigned keys[N];
static unsigned table[1 << 18];

__attribute__((noinline)) static unsigned next_token(unsigned *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 7;
}

__attribute__((noinline)) static void parse_input(unsigned seed)
{
	for (int i = 0; i < N; i++) {
		unsigned k = 0;
		for (int j = 0; j < 64; j++)
			k ^= next_token(&seed);
		keys[i] = k;
	}
}

static int cmp(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

__attribute__((noinline)) static void sort_keys(void)
{
	qsort(keys, N, sizeof keys[0], cmp);
}

__attribute__((noinline)) static void hash_keys(void)
{
	for (int r = 0; r < 48; r++)
		for (int i = 0; i < N; i++)
			table[(keys[i] * 2654435761u) >> 14] += (unsigned)i;
}

__attribute__((noinline)) static void build_index(void)
{
	sort_keys();
	hash_keys();
}

__attribute__((noinline)) static unsigned lookup(unsigned k)
{
	unsigned lo = 0, hi = N;
	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		if (keys[mid] < k) lo = mid + 1; else hi = mid;
	}
	return lo;
}

__attribute__((noinline)) static unsigned long answer_queries(unsigned seed)
{
	unsigned long s = 0;
	for (int i = 0; i < N; i++)
		s += lookup(next_token(&seed));
	return s;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10;
	unsigned long s = 0;
	for (int r = 0; r < rounds; r++) {
		parse_input((unsigned)r);
		build_index();
		s += answer_queries((unsigned)r);
	}
	printf("%lu\n", s & 1);
	return 0;
}
