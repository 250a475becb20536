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
. bench/lib.sh
bench_build_recording "$F"
size=$(stat -c %s "$F")
echo "file: $F ($((size / 1048576)) MB)"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# timeit CMD...: "WALL CPU" medians (seconds) over RUNS runs; CPU = user+sys,
# which a loaded machine disturbs less than wall time
timeit() {
	local i
	for i in $(seq "$RUNS"); do
		/usr/bin/time -f "%e %U %S" -o "$W/t" "$@" > /dev/null 2>&1
		tail -1 "$W/t"
	done > "$W/all"
	echo "$(awk '{print $1}' "$W/all" | median) $(awk '{print $2 + $3}' "$W/all" | median)"
}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cat "$F" > /dev/null
r_cat=$(timeit cat "$F")
r_perf=$(timeit perf report --stats -i "$F")
r_hp=$(timeit "$HP" --input "$F" --print-stats)
r_sc=$(timeit "$S" stats -i "$F")
printf "%-34s %8s %8s %14s\n" tool "wall s" "cpu s" "cpu vs scorch"
sc_cpu=${r_sc#* }
for x in "cat:$r_cat" "perf report --stats:$r_perf" "hotspot-perfparser --print-stats:$r_hp" "scorch stats:$r_sc"; do
	n=${x%%:*}; r=${x##*:}; w=${r% *}; c=${r#* }
	printf "%-34s %8.3f %8.3f %13.2fx\n" "$n" "$w" "$c" "$(echo "$c / $sc_cpu" | bc -l)"
done
ratio() { echo "$1 / $2" | bc -l | awk '{printf "%.2f", $1}'; }
echo "scorch stats / perf report --stats: wall $(ratio "${r_sc% *}" "${r_perf% *}"), cpu $(ratio "$sc_cpu" "${r_perf#* }")"
echo "scorch stats / cat:                 wall $(ratio "${r_sc% *}" "${r_cat% *}"), cpu $(ratio "$sc_cpu" "${r_cat#* }")"
"$S" stats -i "$F" | grep -E '^(samples|rounds|time violations|max reorder time):'
