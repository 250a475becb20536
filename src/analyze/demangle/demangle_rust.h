/* demangle_rust.h: Rust v0 symbol demangling ("_R" names, RFC 2603). */
#ifndef SCORCH_DEMANGLE_RUST_H
#define SCORCH_DEMANGLE_RUST_H

/* Demangles a Rust v0 symbol into rustc-demangle's alternate form ({:#}):
 * no crate disambiguator hashes, no const integer suffixes. A suffix that
 * is not part of the v0 alphabet (".llvm.123", "$...") is dropped.
 * Returns a malloc'd string, or NULL when sym is not a valid v0 symbol.
 * Safe on hostile input: bounded recursion, output and work. */
char *demangle_rust_v0(const char *sym);

#endif
