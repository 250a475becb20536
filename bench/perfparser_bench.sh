#!/bin/bash
# perfparser_bench.sh: hotspot's load path, scorch perfparser vs
# hotspot-perfparser, on a DWARF recording of a parallel build.
#
#   bench/perfparser_bench.sh [RECORDING]
#
# Without RECORDING it records `make -j2` of scorch's own library (a copy of
# src/, built at -O1) with `perf record -e cpu-clock -F 1000 --call-graph
# dwarf`, then runs each parser as hotspot does (--input FILE --max-frames
# 1024, stream to a file) RUNS times (default 3) and prints the best wall and
# CPU time of each, their ratios, and the sample counts (which must agree).
# Also times --print-stats. Set KEEP=1 to keep the recording.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
REF=${HOTSPOT_PERFPARSER_REF:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}
PP=${SCORCH_PERFPARSER:-$TOP/build/scorch-perfparser}
DEC=$TOP/tests/tools/perfparser_decode.py
RUNS=${RUNS:-3}
W=$(mktemp -d /tmp/scorch-ppbench.XXXXXX)
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$W"' EXIT

data=${1:-}
if [ -z "$data" ]; then
	mkdir -p "$W/proj"
	cp -r "$TOP/src" "$TOP/Makefile" "$TOP/mk" "$TOP/scripts" "$W/proj/"
	data=$W/build.data
	echo "recording: make -j2 (libscorch.a, -O1) under perf --call-graph dwarf ..."
	perf record -q -e cpu-clock -F 1000 --call-graph dwarf -o "$data" -- \
		make -s -C "$W/proj" -j2 B=build OPT=-O1 build/libscorch.a > /dev/null 2>&1 ||
		{ echo "perf record failed"; exit 1; }
fi
echo "recording: $data ($(du -h "$data" | cut -f1))"

# best CMD...: "WALL CPU" seconds, each the best of RUNS runs (CPU = user +
# sys, which a loaded machine disturbs less than wall time)
best() {
	local bw= bc= w c
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -f "%e %U %S" -o "$W/time" "$@" > /dev/null 2>&1
		w=$(awk '{ print $1 }' "$W/time")
		c=$(awk '{ print $2 + $3 }' "$W/time")
		if [ -z "$bw" ] || [ "$(echo "$w < $bw" | bc -l)" = 1 ]; then bw=$w; fi
		if [ -z "$bc" ] || [ "$(echo "$c < $bc" | bc -l)" = 1 ]; then bc=$c; fi
	done
	echo "$bw $bc"
}
ratio() { echo "scale=1; $1 / $2" | bc -l; }

read -r ws cs < <(best "$PP" --input "$data" --max-frames 1024 --output "$W/ours")
read -r wr cr < <(best "$REF" --input "$data" --max-frames 1024 --output "$W/ref")
ns=$(python3 "$DEC" summary "$W/ours" | sed -n 's/^Sample: //p')
nr=$(python3 "$DEC" summary "$W/ref" | sed -n 's/^Sample: //p')
echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "scorch perfparser:   wall ${ws}s  cpu ${cs}s  ($ns samples, $(du -h "$W/ours" | cut -f1) stream)"
echo "hotspot-perfparser:  wall ${wr}s  cpu ${cr}s  ($nr samples, $(du -h "$W/ref" | cut -f1) stream)"
echo "ratio (hotspot-perfparser / scorch): wall $(ratio "$wr" "$ws")x  cpu $(ratio "$cr" "$cs")x"
read -r ws cs < <(best "$PP" --input "$data" --print-stats)
read -r wr cr < <(best "$REF" --input "$data" --print-stats)
echo "--print-stats: scorch wall ${ws}s cpu ${cs}s, hotspot-perfparser wall ${wr}s cpu ${cr}s, ratio wall $(ratio "$wr" "$ws")x cpu $(ratio "$cr" "$cs")x"
[ "$ns" = "$nr" ] || { echo "sample counts differ"; exit 1; }
