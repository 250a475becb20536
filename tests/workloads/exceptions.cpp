// exceptions.cpp: C++ exceptions thrown through a few levels of recursion
// and caught, in a loop, beside some ordinary work: samples land in the
// unwinder of libgcc_s (_Unwind_RaiseException, the personality routine)
// and in libstdc++, whose CFI the profiler's own unwinder then walks.
//   exceptions [ITERATIONS]
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

static volatile unsigned sink;

__attribute__((noinline)) static void thrower(int depth, unsigned seed)
{
	std::vector<unsigned> v(16 + seed % 16, seed);
	if (depth == 0)
		throw std::runtime_error("depth " + std::to_string(v.size()));
	thrower(depth - 1, seed * 1103515245u + 12345u);
	sink += v[seed % v.size()];
}

__attribute__((noinline)) static unsigned work(unsigned seed)
{
	std::map<unsigned, std::string> m;
	for (unsigned i = 0; i < 64; i++)
		m[(seed + i * 2654435761u) % 1000] = std::to_string(i);
	unsigned h = 0;
	for (auto &kv : m)
		h = h * 31 + kv.first + (unsigned)kv.second.size();
	return h;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	unsigned caught = 0;
	for (long i = 0; i < n; i++) {
		try {
			thrower((int)(i % 12), (unsigned)i);
		} catch (const std::exception &e) {
			caught += (unsigned)e.what()[0];
		}
		sink += work((unsigned)i);
	}
	return caught == 0;
}
