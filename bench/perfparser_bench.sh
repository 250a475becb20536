#!/bin/bash
# perfparser_bench.sh: hotspot's load path, scorch perfparser vs
# hotspot-perfparser, on a DWARF recording of a parallel build.
#
#   bench/perfparser_bench.sh [RECORDING]
#
# Without RECORDING it records `make -j2` of scorch's own library (a copy of
# src/, built at -O1) with `perf record -e cpu-clock -F 1000 --call-graph
# dwarf`, then runs each parser as hotspot does (--input FILE --max-frames
# 1024, stream to /dev/null) RUNS times (default 3) and prints the best wall
# time of each, their ratio, and the sample counts (which must agree).
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
	cp -r "$TOP/src" "$TOP/Makefile" "$W/proj/"
	data=$W/build.data
	echo "recording: make -j2 (libscorch.a, -O1) under perf --call-graph dwarf ..."
	perf record -q -e cpu-clock -F 1000 --call-graph dwarf -o "$data" -- \
		make -s -C "$W/proj" -j2 B=build OPT=-O1 build/libscorch.a > /dev/null 2>&1 ||
		{ echo "perf record failed"; exit 1; }
fi
echo "recording: $data ($(du -h "$data" | cut -f1))"

best() { # best CMD...: best wall seconds of RUNS runs
	local b= t s e
	for _ in $(seq "$RUNS"); do
		s=$(date +%s.%N)
		"$@" > /dev/null 2>&1
		e=$(date +%s.%N)
		t=$(echo "$e - $s" | bc -l)
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
	done
	printf '%.3f' "$b"
}

ts=$(best "$PP" --input "$data" --max-frames 1024 --output "$W/ours")
tr=$(best "$REF" --input "$data" --max-frames 1024 --output "$W/ref")
ns=$(python3 "$DEC" summary "$W/ours" | sed -n 's/^Sample: //p')
nr=$(python3 "$DEC" summary "$W/ref" | sed -n 's/^Sample: //p')
echo "scorch perfparser:   ${ts}s  ($ns samples, $(du -h "$W/ours" | cut -f1) stream)"
echo "hotspot-perfparser:  ${tr}s  ($nr samples, $(du -h "$W/ref" | cut -f1) stream)"
echo "ratio (hotspot-perfparser / scorch): $(echo "scale=1; $tr / $ts" | bc -l)x"
ss=$(best "$PP" --input "$data" --print-stats)
sr=$(best "$REF" --input "$data" --print-stats)
echo "--print-stats: scorch ${ss}s, hotspot-perfparser ${sr}s, ratio $(echo "scale=1; $sr / $ss" | bc -l)x"
[ "$ns" = "$nr" ] || { echo "sample counts differ"; exit 1; }
