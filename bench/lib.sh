# lib.sh: shared by the bench scripts (sourced from the repository root).

# bench_build_recording FILE: when FILE is missing, record a parallel build
# of this tree into it (perf record -e cpu-clock -F 4000 --call-graph dwarf
# of `make -j2` of a copy of src/, built into a scratch dir).
bench_build_recording() {
	local f=$1
	[ -s "$f" ] && return 0
	mkdir -p build/bench
	rm -rf build/bench/src && mkdir -p build/bench/src
	cp -r src Makefile mk scripts build/bench/src/ 2>/dev/null
	echo "recording a parallel build into $f ..." >&2
	perf record -q -e cpu-clock -F 4000 --call-graph dwarf -o "$f" -- \
		make -s -C build/bench/src -j2 B=/tmp/scorch-bench-build OPT=-O2 /tmp/scorch-bench-build/scorch \
		> /dev/null 2>&1
	rm -rf /tmp/scorch-bench-build
}

# bench_peer_tools NAME: for the benches that time scorch against
# hotspot-perfparser under /usr/bin/time (NAME: the bench, for its
# messages). SC: scorch (SCORCH, else TOP/build/scorch), which must be
# built; REF: hotspot-perfparser (HOTSPOT_PERFPARSER_REF, else Debian's
# path), run REF_RUNS times (default 1; 0 when it is not installed).
bench_peer_tools() {
	SC=${SCORCH:-$TOP/build/scorch}
	REF=${HOTSPOT_PERFPARSER_REF:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}
	REF_RUNS=${REF_RUNS:-1}
	[ -x "$SC" ] || { echo "$1: $SC is not built (run make first)" >&2; exit 1; }
	[ -x "$REF" ] || REF_RUNS=0
	command -v /usr/bin/time > /dev/null || { echo "$1: needs /usr/bin/time (package time)" >&2; exit 1; }
}
