#!/bin/bash
# reader_bench.sh: how fast does scorch read a big DWARF recording?
#
# Records (once, cached in build/bench/) a parallel build (make -j2 of
# scorch's own sources) with `perf record --call-graph dwarf`, at least
# 150 MB, then times, warm cache, median of RUNS runs each:
#   cat FILE > /dev/null                      (reading the bytes)
#   perf report --stats                       (walks record headers only)
#   hotspot-perfparser --print-stats          (perfparser's statistics pass)
#   scorch stats                              (decodes every record and sample,
#                                              runs the ordering queue)
# and prints each time and its ratio to scorch stats.
# Usage: bench/reader_bench.sh [FILE]   (RUNS=5 by default)
set -u
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
S=${SCORCH:-build/scorch}
HP=/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser
F=${1:-build/bench/build-dwarf.data}
if [ ! -s "$F" ]; then
	mkdir -p build/bench
	rm -rf build/bench/src && mkdir -p build/bench/src
	cp -r src Makefile mk scripts build/bench/src/ 2>/dev/null
	echo "recording a parallel build into $F ..." >&2
	perf record -q -e cpu-clock -F 4000 --call-graph dwarf -o "$F" -- \
		make -s -C build/bench/src -j2 B=/tmp/scorch-bench-build OPT=-O2 /tmp/scorch-bench-build/scorch \
		> /dev/null 2>&1
	rm -rf /tmp/scorch-bench-build
fi
size=$(stat -c %s "$F")
echo "file: $F ($((size / 1048576)) MB)"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
timeit() { # prints the median wall seconds of RUNS runs of "$@"
	for _ in $(seq "$RUNS"); do
		local t0 t1
		t0=$(date +%s.%N)
		"$@" > /dev/null 2>&1
		t1=$(date +%s.%N)
		echo "$t1 - $t0" | bc -l
	done | median
}
cat "$F" > /dev/null
t_cat=$(timeit cat "$F")
t_perf=$(timeit perf report --stats -i "$F")
t_hp=$(timeit "$HP" --input "$F" --print-stats)
t_sc=$(timeit "$S" stats -i "$F")
printf "%-34s %8s %10s\n" tool "seconds" "vs scorch"
for x in "cat:$t_cat" "perf report --stats:$t_perf" "hotspot-perfparser --print-stats:$t_hp" "scorch stats:$t_sc"; do
	n=${x%%:*}; t=${x##*:}
	printf "%-34s %8.3f %9.2fx\n" "$n" "$t" "$(echo "$t / $t_sc" | bc -l)"
done
echo "scorch stats / perf report --stats = $(echo "$t_sc / $t_perf" | bc -l | cut -c1-5)"
echo "scorch stats / cat                 = $(echo "$t_sc / $t_cat" | bc -l | cut -c1-5)"
"$S" stats -i "$F" | grep -E '^(samples|rounds|time violations|max reorder time):'
