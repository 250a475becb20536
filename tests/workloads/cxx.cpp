// cxx.cpp: C++ templates, std containers, lambdas and threads.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace scorch_test {

template <typename T> struct Accumulator {
	std::map<T, T> m;
	__attribute__((noinline)) void add(T k, T v) { m[k % 1024] += v; }
	__attribute__((noinline)) T total() const
	{
		T t{};
		for (auto &kv : m)
			t += kv.second;
		return t;
	}
};

template <typename T> __attribute__((noinline)) T churn(std::vector<T> &v, int rounds)
{
	Accumulator<T> acc;
	for (int r = 0; r < rounds; r++) {
		for (size_t i = 0; i < v.size(); i++) {
			v[i] = v[i] * 31 + (T)r;
			acc.add(v[i], (T)i);
		}
	}
	return acc.total();
}

__attribute__((noinline)) size_t strings(int n)
{
	std::unordered_map<std::string, int> h;
	for (int i = 0; i < n; i++)
		h[std::to_string(i % 5000)] += i;
	return h.size();
}

} // namespace scorch_test

static long budget_ms = 400;

static long cpu_ms()
{
	timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

// Runs for budget_ms of this thread's CPU time (stable sample counts on a
// busy machine).
static void work(int id)
{
	long t0 = cpu_ms();
	std::vector<unsigned long> v(4096, (unsigned long)id);
	unsigned long s = 0;
	while (cpu_ms() - t0 < budget_ms) {
		s += scorch_test::churn(v, 2);
		s += scorch_test::strings(20000);
	}
	if (s == 42)
		std::puts("!");
}

int main(int argc, char **argv)
{
	if (argc > 1)
		budget_ms = std::atol(argv[1]);
	int n = argc > 2 ? std::atoi(argv[2]) : 2;
	std::vector<std::thread> ts;
	for (int i = 0; i < n; i++)
		ts.emplace_back([i] { work(i); });
	for (auto &t : ts)
		t.join();
	return 0;
}
