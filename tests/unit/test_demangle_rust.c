/* test_demangle_rust.c: Rust v0 demangling (src/analyze/demangle/demangle_rust.c).
 *
 * The symbols are real: rustc 1.95 -C symbol-mangling-version=v0 (opt-level
 * 0 and -O), read back with nm. Expected strings are c++filt's (binutils
 * 2.40) with its "[hex]" crate disambiguators removed, which makes them
 * rustc-demangle's alternate form ({:#}). One difference is deliberate:
 * c++filt prints const generic integers with their type ("3: usize",
 * "true: bool", "'x': char"); the alternate form, which we follow, prints
 * the bare value ("3", "true", "'x'"). For u128 constants wider than 64 bits
 * c++filt 2.40 even prints a stray '_' ("0xff..f_"), rustc-demangle prints
 * "0x" and the hex digits, as we do. */
#include "analyze/demangle/demangle_rust.h"
#include "analyze/demangle/demangle.h"
#include "test.h"

#include <stdint.h>

static void dm(const char *in, const char *want)
{
	char *d = demangle_rust_v0(in);
	if (!want) {
		if (d)
			fprintf(stderr, "%s demangled to %s\n", in, d);
		CHECK(d == NULL);
		return;
	}
	CHECK_STR(d, want);
	free(d);
	/* the same through the generic entry point */
	d = demangle_alloc(in);
	CHECK_STR(d, want);
	free(d);
}

TEST(rust_v0_paths_and_modules)
{
	dm("_RNvCsbVXqutUjNVO_1x4main", "x::main");
	dm("_RNvNtNtCsbVXqutUjNVO_1x5outer5inner4deep", "x::outer::inner::deep");
	dm("_RNvNvNtCsgEmfK2I1SDS_4core4hint16assert_unchecked18precondition_checkCsjfOIrzFoe4X_1y",
	   "core::hint::assert_unchecked::precondition_check");
	/* nested function inside a function */
	dm("_RNvNvCsbVXqutUjNVO_1x4main1e", "x::main::e");
	/* punycode identifier: fn grüße */
	dm("_RNvCsbVXqutUjNVO_1xu9gre_6ka8l", "x::grüße");
}

TEST(rust_v0_generics)
{
	dm("_RINvCsbVXqutUjNVO_1x7generichEB2_", "x::generic::<u8>");
	dm("_RINvCsbVXqutUjNVO_1x7genericTlReEEB2_", "x::generic::<(i32, &str)>");
	dm("_RINvNtCsjrHSEGnQ3l9_3std2rt10lang_startuECsjfOIrzFoe4X_1y",
	   "std::rt::lang_start::<()>");
	dm("_RINvNtCsgEmfK2I1SDS_4core4hint9black_boxoECsjfOIrzFoe4X_1y",
	   "core::hint::black_box::<u128>");
	dm("_RINvCsjfOIrzFoe4X_1y5takesINtNtCsgEmfK2I1SDS_4core6option6OptionRSReEEB2_",
	   "y::takes::<core::option::Option<&[&str]>>");
	dm("_RNcNtINtNtCsgEmfK2I1SDS_4core6result6ResultuINtNtNtB8_3num7nonzero7NonZerojEE3Err0CsjfOIrzFoe4X_1y",
	   "core::result::Result::<(), core::num::nonzero::NonZero<usize>>::Err");
}

TEST(rust_v0_impls)
{
	/* inherent impls */
	dm("_RNvMNtCsgEmfK2I1SDS_4core5sliceSm4iterCsbVXqutUjNVO_1x", "<[u32]>::iter");
	dm("_RNvMNtNtCsgEmfK2I1SDS_4core3ptr9const_ptrPu13is_aligned_toCsjfOIrzFoe4X_1y",
	   "<*const ()>::is_aligned_to");
	dm("_RNvMs1_NtCsgEmfK2I1SDS_4core6optionINtB5_6OptionRtE6copiedCsjfOIrzFoe4X_1y",
	   "<core::option::Option<&u16>>::copied");
	dm("_RNvNvMs_NtCslNYArtu3iFV_5alloc3vecINtB6_3VecppE7set_len18precondition_checkCsjfOIrzFoe4X_1y",
	   "<alloc::vec::Vec<_, _>>::set_len::precondition_check");
	/* trait impls */
	dm("_RNvXCsbVXqutUjNVO_1xNtB2_2SqNtB2_5Shape4area", "<x::Sq as x::Shape>::area");
	dm("_RNvXs0_CsbVXqutUjNVO_1xINtB5_1WhENtNtCsgEmfK2I1SDS_4core3fmt7Display3fmt",
	   "<x::W<u8> as core::fmt::Display>::fmt");
	dm("_RNvXs1G_NtCsgEmfK2I1SDS_4core3fmtTlReENtB6_5Debug3fmtCsbVXqutUjNVO_1x",
	   "<(i32, &str) as core::fmt::Debug>::fmt");
	dm("_RNvYjNtNtCsgEmfK2I1SDS_4core3cmp3Ord3minCsjfOIrzFoe4X_1y",
	   "<usize as core::cmp::Ord>::min");
	dm("_RNvYFEuINtNtNtCsgEmfK2I1SDS_4core3ops8function6FnOnceuE9call_onceCsjfOIrzFoe4X_1y",
	   "<fn() as core::ops::function::FnOnce<()>>::call_once");
	/* an impl nested in an impl, and a generic method of a trait impl */
	dm("_RNvXNvXse_NtNtCslNYArtu3iFV_5alloc3vec9into_iterINtB8_8IntoIterppENtNtNtCsgEmfK2I1SDS_4core3ops4drop4Drop4dropINtB2_9DropGuardmNtNtBc_5alloc6GlobalEB12_4dropCsjfOIrzFoe4X_1y",
	   "<<alloc::vec::into_iter::IntoIter<_, _> as core::ops::drop::Drop>::drop::DropGuard<u32, alloc::alloc::Global> as core::ops::drop::Drop>::drop");
	dm("_RINvXs_NvMNtCslNYArtu3iFV_5alloc5sliceSp9to_vec_inmNtB5_10ConvertVec6to_vecNtNtBa_5alloc6GlobalECsjfOIrzFoe4X_1y",
	   "<u32 as <[_]>::to_vec_in::ConvertVec>::to_vec::<alloc::alloc::Global>");
}

TEST(rust_v0_closures_and_shims)
{
	dm("_RNCNvCsjfOIrzFoe4X_1y4main0B3_", "y::main::{closure#0}");
	dm("_RNCNvCsjfOIrzFoe4X_1y4mains0_0B3_", "y::main::{closure#2}");
	dm("_RNCINvNtNtCsjfOIrzFoe4X_1y3geo5plane5applyNCNvB8_4mains0_0E0B8_",
	   "y::geo::plane::apply::<y::main::{closure#2}>::{closure#0}");
	dm("_RNSNvYNCNvCsjfOIrzFoe4X_1y4mains_0INtNtNtCsgEmfK2I1SDS_4core3ops8function6FnOnceThEE9call_once6vtableB8_",
	   "<y::main::{closure#1} as core::ops::function::FnOnce<(u8,)>>::call_once::{shim:vtable#0}");
	dm("_RINvNtNtCsjrHSEGnQ3l9_3std3sys9backtrace28___rust_begin_short_backtraceNCNCNCINvNtNtB6_6thread9lifecycle15spawn_uncheckedNCNvCsbVXqutUjNVO_1x4mains0_0uEs_000uEB1Z_",
	   "std::sys::backtrace::__rust_begin_short_backtrace::<std::thread::lifecycle::spawn_unchecked<x::main::{closure#2}, ()>::{closure#1}::{closure#0}::{closure#0}, ()>");
}

TEST(rust_v0_types)
{
	dm("_RINvCsjfOIrzFoe4X_1y5takesReEB2_", "y::takes::<&str>");
	dm("_RINvCsjfOIrzFoe4X_1y5takesRShEB2_", "y::takes::<&[u8]>");
	dm("_RINvCsjfOIrzFoe4X_1y5takesAlj4_EB2_", "y::takes::<[i32; 4]>");
	dm("_RINvCsjfOIrzFoe4X_1y5takesThscEEB2_", "y::takes::<(u8, i16, char)>");
	dm("_RINvCsjfOIrzFoe4X_1y5takesTfEEB2_", "y::takes::<(f32,)>");
	dm("_RINvCsjfOIrzFoe4X_1y5takesuEB2_", "y::takes::<()>");
	dm("_RINvCsjfOIrzFoe4X_1y5takesQINtNtCslNYArtu3iFV_5alloc3vec3VecmEEB2_",
	   "y::takes::<&mut alloc::vec::Vec<u32>>");
	dm("_RINvCsjfOIrzFoe4X_1y5takesPhEB2_", "y::takes::<*const u8>");
	dm("_RINvCsjfOIrzFoe4X_1y5takesOxEB2_", "y::takes::<*mut i64>");
	dm("_RNvMs3_NtCslNYArtu3iFV_5alloc7raw_vecINtB5_6RawVecTOhFUKCBN_EuENtNtCsjrHSEGnQ3l9_3std5alloc6SystemE8grow_oneB13_",
	   "<alloc::raw_vec::RawVec<(*mut u8, unsafe extern \"C\" fn(*mut u8)), std::alloc::System>>::grow_one");
}

TEST(rust_v0_fn_pointers)
{
	dm("_RINvCsjfOIrzFoe4X_1y5takesFlElEB2_", "y::takes::<fn(i32) -> i32>");
	dm("_RINvCsjfOIrzFoe4X_1y5takesFKCEuEB2_", "y::takes::<extern \"C\" fn()>");
	dm("_RINvCsjfOIrzFoe4X_1y5takesFK8C_unwindEuEB2_",
	   "y::takes::<extern \"C-unwind\" fn()>");
	dm("_RINvCsjfOIrzFoe4X_1y5takesFUnoEbEB2_",
	   "y::takes::<unsafe fn(i128, u128) -> bool>");
	dm("_RINvCsjfOIrzFoe4X_1y5takesFG_RL0_eERL0_eEB2_",
	   "y::takes::<for<'a> fn(&'a str) -> &'a str>");
	dm("_RINvNtNtCsjrHSEGnQ3l9_3std3sys9backtrace28___rust_begin_short_backtraceFEuuECsjfOIrzFoe4X_1y",
	   "std::sys::backtrace::__rust_begin_short_backtrace::<fn(), ()>");
}

TEST(rust_v0_dyn)
{
	dm("_RINvCsjfOIrzFoe4X_1y5takesRDNtB2_5ShapeEL_EB2_", "y::takes::<&dyn y::Shape>");
	dm("_RINvCsjfOIrzFoe4X_1y5takesQDNtNtNtNtCsgEmfK2I1SDS_4core4iter6traits8iterator8Iteratorp4ItemmEL_EB2_",
	   "y::takes::<&mut dyn core::iter::traits::iterator::Iterator<Item = u32>>");
	dm("_RINvCsjfOIrzFoe4X_1y5takesINtNtCslNYArtu3iFV_5alloc5boxed3BoxDINtNtNtCsgEmfK2I1SDS_4core3ops8function2FnThEEp6OutputhNtNtB15_6marker4SendEL_EEB2_",
	   "y::takes::<alloc::boxed::Box<dyn core::ops::function::Fn<(u8,), Output = u8> + core::marker::Send>>");
	dm("_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtCslNYArtu3iFV_5alloc5boxed3BoxDG0_INtNtNtB4_3ops8function2FnTRL1_INtNtCsjrHSEGnQ3l9_3std5panic13PanicHookInfoL0_EEEp6OutputuNtNtB4_6marker4SyncNtB2N_4SendEL_EEB1T_",
	   "core::ptr::drop_in_place::<alloc::boxed::Box<dyn for<'a, 'b> core::ops::function::Fn<(&'a std::panic::PanicHookInfo<'b>,), Output = ()> + core::marker::Sync + core::marker::Send>>");
	dm("_RNvXs_NvXsf_NtNtCslNYArtu3iFV_5alloc5boxed7convertINtBc_3BoxDNtNtCsgEmfK2I1SDS_4core5error5ErrorNtNtB11_6marker4SyncNtB1y_4SendEL_EINtNtB11_7convert4FromNtNtBe_6string6StringE4fromNtB4_11StringErrorNtNtB11_3fmt7Display3fmt",
	   "<<alloc::boxed::Box<dyn core::error::Error + core::marker::Sync + core::marker::Send> as core::convert::From<alloc::string::String>>::from::StringError as core::fmt::Display>::fmt");
}

TEST(rust_v0_const_generics)
{
	/* c++filt: "x::cg::<3: usize>" etc.; see the comment at the top */
	dm("_RINvCsbVXqutUjNVO_1x2cgKj3_EB2_", "x::cg::<3>");
	dm("_RINvCsbVXqutUjNVO_1x3cgbKb1_EB2_", "x::cgb::<true>");
	dm("_RINvCsbVXqutUjNVO_1x3cgcKc78_EB2_", "x::cgc::<'x'>");
	dm("_RINvCsbVXqutUjNVO_1x3cgiKln5_EB2_", "x::cgi::<-5>");
	dm("_RINvMs2_NtCsgEmfK2I1SDS_4core3fmtNtB6_9Arguments3newKja_Kj3_ECsbVXqutUjNVO_1x",
	   "<core::fmt::Arguments>::new::<10, 3>");
	dm("_RINvCsjfOIrzFoe4X_1y2cuKyffffffffffffffff_EB2_", "y::cu::<18446744073709551615>");
	dm("_RINvCsjfOIrzFoe4X_1y2ciKxn8000000000000000_EB2_", "y::ci::<-9223372036854775808>");
	dm("_RINvCsjfOIrzFoe4X_1y2cbKoffffffffffffffffffffffffffffffff_EB2_",
	   "y::cb::<0xffffffffffffffffffffffffffffffff>");
	dm("_RNvXs_NtNtCsjfOIrzFoe4X_1y3geo5planeINtB4_2PttKj3_ENtB8_5Shape4areaB8_",
	   "<y::geo::plane::Pt<u16, 3> as y::Shape>::area");
	dm("_RINvMsi_NtCsgvbsrvnw3yD_9hashbrown3rawINtB6_12RawIterRangeTNtNtCslNYArtu3iFV_5alloc6string6StringlEE9next_implKb0_ECsbVXqutUjNVO_1x",
	   "<hashbrown::raw::RawIterRange<(alloc::string::String, i32)>>::next_impl::<false>");
}

TEST(rust_v0_std_and_suffixes)
{
	/* clone suffixes go, as perf drops them */
	dm("_RNCINvNtCsjrHSEGnQ3l9_3std2rt10lang_startuE0CsbVXqutUjNVO_1x.llvm.11553261233845464734",
	   "std::rt::lang_start::<()>::{closure#0}");
	dm("_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeNtNtNtCsjrHSEGnQ3l9_3std2io5error5ErrorECsbVXqutUjNVO_1x.llvm.11553261233845464734",
	   "core::ptr::drop_in_place::<std::io::error::Error>");
	dm("_RNvMs1_NtCsgvbsrvnw3yD_9hashbrown3mapINtB5_7HashMapNtNtCslNYArtu3iFV_5alloc6string6StringlNtNtNtCsjrHSEGnQ3l9_3std4hash6random11RandomStateE6insertCsbVXqutUjNVO_1x",
	   "<hashbrown::map::HashMap<alloc::string::String, i32, std::hash::random::RandomState>>::insert");
	dm("_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtNtB4_3mem10drop_guard9DropGuardQINtNtBL_12maybe_uninit11MaybeUninitNtNtNtNtNtNtNtCslhJMPQjvccJ_4libc4unix10linux_like5linux3gnu3b646x86_6414pthread_attr_tENCNvMs0_NtNtNtCsjrHSEGnQ3l9_3std3sys6thread4unixNtB3o_6Thread3new0EEB3u_",
	   "core::ptr::drop_in_place::<core::mem::drop_guard::DropGuard<&mut core::mem::maybe_uninit::MaybeUninit<libc::unix::linux_like::linux::gnu::b64::x86_64::pthread_attr_t>, <std::sys::thread::unix::Thread>::new::{closure#0}>>");
	dm("_RNvXsZ_NtCsjrHSEGnQ3l9_3std7processuNtB5_11Termination6reportCsjfOIrzFoe4X_1y",
	   "<() as std::process::Termination>::report");
}

static void base62(char *p, uint64_t v)
{
	/* v0 base-62-number for v */
	static const char dg[] =
		"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char t[16];
	int n = 0;
	if (v == 0) {
		strcpy(p, "_");
		return;
	}
	v--;
	do {
		t[n++] = dg[v % 62];
		v /= 62;
	} while (v);
	while (n)
		*p++ = t[--n];
	strcpy(p, "_");
}

static void dm_any(const char *in)
{
	/* must not crash; NULL or a string */
	free(demangle_rust_v0(in));
}

TEST(rust_v0_malformed)
{
	dm("_R", NULL);
	dm("_RN", NULL);
	dm("_RNvC", NULL);
	dm("_RNvCs_", NULL);
	dm("_RNvC9abc", NULL);         /* identifier longer than the input */
	dm("_RNvCsbVXqutUjNVO_1x4mai", NULL); /* truncated */
	dm("_RINvCsbVXqutUjNVO_1x7generichE", "x::generic::<u8>");
	dm("_RINvCsbVXqutUjNVO_1x7generich", NULL); /* no E */
	dm("_RB_", NULL);              /* backref to itself */
	dm("_RNvB_3foo", NULL);        /* backref forwards / to itself */
	dm("_RNvBZZZZZZZZZZZZZZZZ_3foo", NULL); /* huge backref */
	dm("_RNvCsZZZZZZZZZZZZZZZZZZZZZ_1a1b", NULL); /* base-62 overflow */
	dm("_RNvC99999999999999999999999a1b", NULL); /* huge length */
	dm("_R0NvC1a1b", NULL);        /* encoding version: unsupported */
	dm("_RINvC1a1bFG99999999999999999_EuE", NULL); /* huge binder */
	dm("_RINvC1a1bRL9_eE", NULL);  /* unbound lifetime */
	dm("_RINvC1a1bKcffffffff_E", NULL); /* not a char */
	dm("_RINvC1a1bKhn1_E", NULL);  /* negative unsigned */
	dm("_RINvC1a1bKe616263_E", NULL); /* str constants: not decoded */
	dm("_RNvC1a1b!!", "a::b");     /* vendor suffix */
	dm("_RXvC1a1b", NULL);
	dm("_ZN3foo3barE", NULL);      /* not v0 */
	CHECK(demangle_rust_v0(NULL) == NULL);
	CHECK(demangle_rust_v0("") == NULL);
	CHECK(demangle_rust_v0("_") == NULL);
	/* every truncation of a real symbol */
	const char *real = "_RNvXs_NvXsf_NtNtCslNYArtu3iFV_5alloc5boxed7convertINtBc_3BoxDNtNtCsgEmfK2I1SDS_4core5error5ErrorNtNtB11_6marker4SyncNtB1y_4SendEL_EINtNtB11_7convert4FromNtNtBe_6string6StringE4fromNtB4_11StringErrorNtNtB11_3fmt7Display3fmt";
	size_t n = strlen(real);
	for (size_t i = 0; i < n; i++) {
		char *t = strndup(real, i);
		dm_any(t);
		free(t);
	}
	/* every one-byte substitution of it */
	char *t = strdup(real);
	for (size_t i = 2; i < n; i++) {
		for (int c = '0'; c <= 'z'; c++) {
			char o = t[i];
			t[i] = (char)c;
			dm_any(t);
			t[i] = o;
		}
	}
	free(t);
}

TEST(rust_v0_hostile_limits)
{
	char *buf = malloc(1 << 16);
	CHECK(buf);
	/* deep nesting: generic args inside generic args, 500 deep */
	strcpy(buf, "_R");
	for (int i = 0; i < 500; i++)
		strcat(buf, "INvC1a1b");
	strcat(buf, "u");
	for (int i = 0; i < 500; i++)
		strcat(buf, "E");
	dm(buf, NULL);
	/* 1000 nested references */
	strcpy(buf, "_RINvC1a1b");
	for (int i = 0; i < 1000; i++)
		strcat(buf, "R");
	strcat(buf, "uE");
	dm(buf, NULL);
	/* modest nesting still works */
	dm("_RINvC1a1bRRRRuE", "a::b::<&&&&()>");
	/* backrefs that double the output at each level: 2^50 if unbounded;
	 * the output cap ends it */
	strcpy(buf, "_RINvC1a1bThhE");
	size_t prev = strlen("INvC1a1b"); /* offset of the first tuple */
	for (int i = 0; i < 50; i++) {
		size_t here = strlen(buf) - 2;
		char num[24];
		strcat(buf, "TB");
		base62(num, prev);
		strcat(buf, num);
		strcat(buf, "B");
		strcat(buf, num);
		strcat(buf, "E");
		prev = here;
	}
	strcat(buf, "E");
	dm(buf, NULL);
	/* a short doubling chain demangles */
	dm("_RINvC1a1bThhETB7_B7_EE", "a::b::<(u8, u8), ((u8, u8), (u8, u8))>");
	free(buf);
}
