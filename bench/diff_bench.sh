#!/bin/bash
# diff_bench.sh: how long `scorch diff BASE NEW` takes next to the two
# `scorch report` runs it replaces and next to `perf diff` (the peer) on
# the same pair of DWARF recordings (>= 150 MB each by default: the diff
# workload's two builds, build/workloads/diff/{base,new}/diff_work,
# recorded with --call-graph dwarf). The machine is shared and noisy, so
# the commands run in alternation, RUNS rounds, and the medians are compared.
#   bench/diff_bench.sh [BASE NEW]
#   env: BENCH_RUNS (5), BENCH_ROUNDS (workload rounds, 5500), BENCH_HZ (2999),
#        BENCH_NO_PERF=1 (skip perf diff), BENCH_DIR (keep the recordings there)
# Prints the file sizes, the median seconds of each command and the ratios
#   diff / (report BASE + report NEW)   (<= 1: diff costs no more)
#   diff / perf diff
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
S=${SCORCH:-$TOP/build/scorch}
RUNS=${BENCH_RUNS:-5}
if [ -n "${BENCH_DIR:-}" ]; then
	W=$BENCH_DIR
	mkdir -p "$W"
else
	W=$(mktemp -d /tmp/scorch-dbench.XXXXXX)
	trap 'rm -rf "$W"' EXIT
fi
if [ $# -ge 2 ]; then
	B=$1 N=$2
else
	B=$W/base.data N=$W/new.data
	for side in base new; do
		f=$W/$side.data
		[ -s "$f" ] && continue
		wl=$TOP/build/workloads/diff/$side/diff_work
		[ -x "$wl" ] || { echo "diff_bench: build the workloads first (make)" >&2; exit 1; }
		echo "recording $side: diff_work ${BENCH_ROUNDS:-5500} rounds, --call-graph dwarf -F ${BENCH_HZ:-2999}" >&2
		perf record -q -e cpu-clock -F "${BENCH_HZ:-2999}" --call-graph dwarf -o "$f" -- \
			"$wl" "${BENCH_ROUNDS:-5500}" > /dev/null 2>&1
	done
fi
for f in "$B" "$N"; do
	echo "file: $f ($(du -m "$f" | cut -f1) MB, $("$S" stats -i "$f" | sed -n 's/^samples: //p') samples)"
done
ms() { # ms CMD...: wall milliseconds of CMD
	local s e
	s=$(date +%s%N)
	"$@" > /dev/null 2>&1
	e=$(date +%s%N)
	echo $(( (e - s) / 1000000 ))
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
: > "$W/t.diff"; : > "$W/t.reports"; : > "$W/t.perf"
for i in $(seq "$RUNS"); do
	# alternate which goes first, so drifting load falls on both
	if [ $((i % 2)) = 1 ]; then
		ms "$S" diff "$B" "$N" >> "$W/t.diff"
		echo $(( $(ms "$S" report -i "$B") + $(ms "$S" report -i "$N") )) >> "$W/t.reports"
	else
		echo $(( $(ms "$S" report -i "$B") + $(ms "$S" report -i "$N") )) >> "$W/t.reports"
		ms "$S" diff "$B" "$N" >> "$W/t.diff"
	fi
	[ -z "${BENCH_NO_PERF:-}" ] && ms perf diff "$B" "$N" >> "$W/t.perf"
done
d=$(median < "$W/t.diff") r=$(median < "$W/t.reports")
printf '%-36s %8.3f s  (runs: %s)\n' "scorch diff BASE NEW" "$(echo "$d / 1000" | bc -l)" "$(tr '\n' ' ' < "$W/t.diff")"
printf '%-36s %8.3f s  (runs: %s)\n' "scorch report BASE + report NEW" "$(echo "$r / 1000" | bc -l)" "$(tr '\n' ' ' < "$W/t.reports")"
printf 'ratio diff / (report + report): %.2f\n' "$(echo "$d / $r" | bc -l)"
if [ -z "${BENCH_NO_PERF:-}" ]; then
	p=$(median < "$W/t.perf")
	printf '%-36s %8.3f s  (runs: %s)\n' "perf diff BASE NEW" "$(echo "$p / 1000" | bc -l)" "$(tr '\n' ' ' < "$W/t.perf")"
	printf 'ratio diff / perf diff: %.2f\n' "$(echo "$d / $p" | bc -l)"
fi
