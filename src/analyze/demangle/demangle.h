/* demangle.h: symbol names demangled as perf prints them. */
#ifndef SCORCH_DEMANGLE_H
#define SCORCH_DEMANGLE_H

/* Demangle name: C++ Itanium without parameters (perf's form, GCC clone
 * suffixes such as ".isra.0" dropped), Rust legacy without the hash, Rust
 * v0 (demangle_rust.h). Returns a malloc'd string, or NULL when name is not
 * mangled or does not demangle. */
char *demangle_alloc(const char *name);

#endif
