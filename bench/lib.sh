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
