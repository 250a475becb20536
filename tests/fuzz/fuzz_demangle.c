/*
 * fuzz_demangle.c: libFuzzer harness for symbol demangling, whose input
 * (symbol names of any ELF file a profile maps) is untrusted. The first
 * byte picks the entry point: even, the Rust v0 demangler alone
 * (demangle_rust_v0); odd, demangle_alloc (C++ Itanium through
 * __cxa_demangle and our parameter stripping, legacy Rust hash and $..$
 * escapes, v0). The rest, up to a NUL or 64 KiB, is the name.
 */
#include "analyze/demangle/demangle.h"
#include "analyze/demangle/demangle_rust.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 65537)
		return 0;
	char *name = strndup((const char *)data + 1, size - 1);
	if (!name)
		return 0;
	char *d = data[0] & 1 ? demangle_alloc(name) : demangle_rust_v0(name);
	if (d && !d[0] && data[0] & 1)
		abort(); /* demangle_alloc never returns an empty name */
	free(d);
	free(name);
	return 0;
}
