#!/bin/bash
# outputs_bench.sh: how long the summarizing outputs take next to
# `scorch script` (which resolves every sample and prints it) and
# `perf report`, on the same perf.data. The outputs aggregate while the
# samples stream by, so each should take about what script takes.
#   bench/outputs_bench.sh [FILE]   default: record a parallel build of
#                                   scorch itself with DWARF call graphs
# Prints one line per command: seconds, and the ratio to scorch script.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
S=${SCORCH:-$TOP/build/scorch}
W=$(mktemp -d /tmp/scorch-obench.XXXXXX)
trap 'rm -rf "$W"' EXIT
f=${1:-}
if [ -z "$f" ]; then
	f=$W/build.data
	echo "recording: make -j$(nproc) of scorch with --call-graph dwarf -F ${BENCH_HZ:-250}" >&2
	perf record -q -e cpu-clock -F "${BENCH_HZ:-250}" --call-graph dwarf -o "$f" -- \
		make -s -C "$TOP" -j"$(nproc)" B="$W/b" "$W/b/libscorch.a" > /dev/null 2>&1
fi
echo "file: $f ($(du -h "$f" | cut -f1), $("$S" stats -i "$f" | sed -n 's/^samples: //p') samples)"
t() { # t NAME CMD...: wall seconds of CMD (best of ${BENCH_RUNS:-2})
	local best=999999 i s e
	for i in $(seq "${BENCH_RUNS:-2}"); do
		s=$(date +%s%N); "$@" > /dev/null 2>&1; e=$(date +%s%N)
		[ $(( (e - s) / 1000000 )) -lt $best ] && best=$(( (e - s) / 1000000 ))
	done
	echo "$best"
}
base=$(t script "$S" script -i "$f")
printf '%-34s %8.3f s  %5s\n' "scorch script" "$(echo "$base / 1000" | bc -l)" "1.00"
row() {
	local name=$1; shift
	local ms; ms=$(t "$name" "$@")
	printf '%-34s %8.3f s  %5.2f\n' "$name" "$(echo "$ms / 1000" | bc -l)" "$(echo "$ms / ($base + 0.001)" | bc -l)"
}
row "scorch report" "$S" report -i "$f"
row "scorch report --no-children" "$S" report --no-children -i "$f"
row "scorch flame (html)" "$S" flame -i "$f" -o "$W/f.html"
row "scorch flame (svg)" "$S" flame -i "$f" -o "$W/f.svg"
row "scorch export -f folded" "$S" export -f folded -i "$f" -o "$W/x.folded"
row "scorch export -f pprof" "$S" export -f pprof -i "$f" -o "$W/x.pb.gz"
row "scorch export -f speedscope" "$S" export -f speedscope -i "$f" -o "$W/x.json"
if [ -z "${BENCH_NO_PERF:-}" ]; then
	row "perf report --stdio" perf report --stdio -i "$f"
	row "perf script" perf script -i "$f"
fi
