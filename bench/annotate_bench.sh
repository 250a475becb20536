#!/bin/bash
# annotate_bench.sh: scorch annotate next to perf annotate --stdio on the
# same symbols, in one run: the top N symbols (default 10) of a recording
# by scorch annotate's order (user-space symbols perf can annotate: the
# kernel's need a vmlinux perf may not have).
#   bench/annotate_bench.sh [FILE] [N]   default FILE: record a parallel
#                                        build of this tree (bench/lib.sh)
#   env: PERF_TIMEOUT (seconds one perf annotate may take, default 120)
# perf annotate takes one symbol a run (it reads the whole recording and
# disassembles with objdump for each); scorch annotates all N in one run.
# Prints both times and the ratio, then one line for bench/run-all.sh:
#   result: SCORCH_WALL SCORCH_CPU PERF_WALL PERF_CPU SYMBOLS CUT
# (seconds; CUT: perf runs stopped at PERF_TIMEOUT, which make perf's
# times and the ratio a lower bound).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
. bench/lib.sh
S=${SCORCH:-$TOP/build/scorch}
f=${1:-build/bench/build.data}
n=${2:-10}
limit=${PERF_TIMEOUT:-120}
bench_build_recording "$f"
W=$(mktemp -d /tmp/scorch-abench.XXXXXX)
trap 'rm -rf "$W"' EXIT
echo "file: $f ($(du -h "$f" | cut -f1), $("$S" stats -i "$f" | sed -n 's/^samples: //p') samples)"
"$S" annotate -i "$f" --percent-limit 0 -q > "$W/all" 2> /dev/null
# NAME<TAB>DSO of the first N disassembled user-space symbols
python3 tests/tools/annotate_check.py syms "$W/all" "$n" | cut -f1,2 > "$W/syms"
echo "symbols: $(cut -f1 "$W/syms" | tr '\n' ' ')"
mapfile -t names < <(cut -f1 "$W/syms")
# timed CMD...: "wall cpu" seconds (bash's time; children included)
timed() {
	local t
	t=$( { TIMEFORMAT='%3R %3U %3S'; time "$@" > /dev/null 2>&1; } 2>&1 | tail -1)
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' <<< "$t"
}
perf_all() {
	local name dso
	while IFS=$'\t' read -r name dso; do
		timeout "$limit" perf annotate -i "$f" --stdio -d "$(basename "$dso")" "$name" > /dev/null 2>&1
		[ $? = 124 ] && echo cut >> "$W/cut"
	done < "$W/syms"
}
read -r sw sc < <(timed "$S" annotate -i "$f" -q "${names[@]}")
: > "$W/cut"
read -r pw pc < <(timed perf_all)
cut=$(wc -l < "$W/cut")
printf '%-40s %9.3f s wall %9.3f s CPU\n' "scorch annotate (${#names[@]} symbols)" "$sw" "$sc"
printf '%-40s %9.3f s wall %9.3f s CPU%s\n' "perf annotate --stdio (one run each)" "$pw" "$pc" \
	"$([ "$cut" -gt 0 ] && echo " ($cut of ${#names[@]} stopped at ${limit} s)")"
printf '%-40s %9.2f wall %9.2f CPU\n' "perf / scorch" "$(echo "$pw / ($sw + 0.001)" | bc -l)" \
	"$(echo "$pc / ($sc + 0.001)" | bc -l)"
echo "result: $sw $sc $pw $pc ${#names[@]} $cut"
