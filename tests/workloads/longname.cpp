// longname.cpp: a hot function whose C++ name, as perf and scorch print it
// (no parameter list), is over 300 characters: a member of a class
// template instantiated with long type names. Runs for argv[1] ms of CPU.
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace scorch_longname_test_namespace {
struct FirstTemplateArgumentWithAQuiteLongDescriptiveName {};
struct SecondTemplateArgumentWithAQuiteLongDescriptiveName {};
struct ThirdTemplateArgumentWithAQuiteLongDescriptiveName {};

template <typename A, typename B, typename C> struct LongNamedOuterTemplate {
	__attribute__((noinline)) static unsigned long spin_in_a_function_with_a_long_name(unsigned long n)
	{
		unsigned long acc = n;
		for (int i = 0; i < 100000; i++)
			acc = acc * 6364136223846793005UL + 1442695040888963407UL;
		return acc;
	}
};
} // namespace scorch_longname_test_namespace

using namespace scorch_longname_test_namespace;
typedef LongNamedOuterTemplate<FirstTemplateArgumentWithAQuiteLongDescriptiveName,
			       SecondTemplateArgumentWithAQuiteLongDescriptiveName,
			       ThirdTemplateArgumentWithAQuiteLongDescriptiveName>
	Outer;

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 300;
	struct timespec t0, t;
	unsigned long sink = 0;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		sink += Outer::spin_in_a_function_with_a_long_name(sink);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	printf("%lu\n", sink & 1);
	return 0;
}
