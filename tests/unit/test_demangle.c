/* test_demangle.c: C++ and legacy Rust demangling as perf prints them
 * (src/analyze/demangle/demangle.c); Rust v0 is in test_demangle_rust.c. */
#include "analyze/demangle/demangle.h"
#include "test.h"

static void check_demangle(const char *in, const char *want)
{
	char *d = demangle_alloc(in);
	if (!want) {
		if (d)
			fprintf(stderr, "%s demangled to %s\n", in, d);
		CHECK(d == NULL);
		return;
	}
	CHECK_STR(d, want);
	free(d);
}

TEST(demangle_cxx_without_params)
{
	/* perf prints C++ names without parameters and return types */
	check_demangle("_ZN11scorch_test5churnImEET_RSt6vectorIS1_SaIS1_EEi",
		       "scorch_test::churn<unsigned long>");
	check_demangle("_ZNKSt5ctypeIcE8do_widenEc", "std::ctype<char>::do_widen");
	check_demangle("_ZN1AclEv", "A::operator()");
	check_demangle("_ZNK1AcviEv", "A::operator int");
	check_demangle("_ZN12_GLOBAL__N_13fooEv", "(anonymous namespace)::foo");
	/* clone suffixes go, as with perf's demangler (no DMGL_PARAMS) */
	check_demangle("_ZN3foo3barEv.isra.0", "foo::bar");
	check_demangle("main", NULL);
	check_demangle("_Zgarbage", NULL);
	/* "_Z6_Z6 & " demangles to "_Z6 & ": all return type and qualifier,
	 * nothing left after stripping, so the mangled name stays (a fuzzer
	 * finding of CI) */
	check_demangle("_Z6_Z6 & ", NULL);
}

TEST(demangle_cxx_params_not_read)
{
	/* V8 (node 18): __cxa_demangle fails on the parameter list (the return
	 * type "SC_" after the name), which perf's demangler never reads; the
	 * name alone demangles as perf prints it */
	check_demangle("_ZN2v88internal11StringShape33DispatchToSpecificTypeWithoutCastIZNS1_22"
		       "DispatchToSpecificTypeIZNKS0_6String7GetImplEiNS0_16PtrComprCageBaseERKNS0_"
		       "31SharedStringAccessGuardIfNeededEE19StringGetDispatchertJRiRS5_S8_EEET0_S4_"
		       "DpOT1_E17CastingDispatchertJRS4_SA_SB_S8_EEESC_SF_.isra.0",
		       "v8::internal::StringShape::DispatchToSpecificTypeWithoutCast<"
		       "v8::internal::StringShape::DispatchToSpecificType<v8::internal::String::GetImpl("
		       "int, v8::internal::PtrComprCageBase, v8::internal::SharedStringAccessGuardIfNeeded "
		       "const&) const::StringGetDispatcher, unsigned short, int&, "
		       "v8::internal::PtrComprCageBase&, v8::internal::SharedStringAccessGuardIfNeeded "
		       "const&>(v8::internal::String, int&, v8::internal::PtrComprCageBase&, "
		       "v8::internal::SharedStringAccessGuardIfNeeded const&)::CastingDispatcher, "
		       "unsigned short, v8::internal::String&, int&, v8::internal::PtrComprCageBase&, "
		       "v8::internal::SharedStringAccessGuardIfNeeded const&>");
	/* an unscoped template function: its name ends at the argument list */
	check_demangle("_Z1fIiEvT_Q", "f<int>");
	/* a thunk's target is printed with its parameters, as perf does */
	check_demangle("_ZTv0_n24_N2v88internal8OFStreamD1Ev", "virtual thunk to v8::internal::OFStream::~OFStream()");
	check_demangle("_ZThn8_N1B1fEi", "non-virtual thunk to B::f(int)");
	/* the garbage has no name to fall back to */
	check_demangle("_ZQE", NULL);
}

TEST(demangle_rust_legacy)
{
	check_demangle("_ZN4core3ptr13drop_in_place17h0123456789abcdefE", "core::ptr::drop_in_place");
	check_demangle("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h0123456789abcdefE",
		       "std::rt::lang_start::{{closure}}");
}

TEST(demangle_rust_legacy_escapes_and_v0_dispatch)
{
	/* $LT$/$GT$ escapes */
	check_demangle("_ZN4core3fmt5Write9write_fmt17h0123456789abcdefE", "core::fmt::Write::write_fmt");
	check_demangle("_ZN5alloc3vec12Vec$LT$T$GT$4push17h0123456789abcdefE", "alloc::vec::Vec<T>::push");
	/* without a hash it is a C++ name: "$" stays */
	check_demangle("_ZN3foo3barE", "foo::bar");
	/* _R goes to the v0 demangler */
	check_demangle("_RNvCs1234_7mycrate3foo", "mycrate::foo");
	check_demangle("_R", NULL);
	/* a crate root with an empty name demangles to nothing: kept mangled
	 * (a fuzzer finding: demangle_alloc never returns an empty name) */
	check_demangle("_RCsjfOIrzFoe3X_0\x01_Ry", NULL);
	check_demangle("", NULL);
	check_demangle(NULL, NULL);
}
