#!/bin/bash
# small_bench.sh: small recordings of big binaries, where start-up work
# (symbol tables, kallsyms, DWARF of the DSOs) outweighs the samples.
#
#   bench/small_bench.sh [CC1_RECORDING PY_RECORDING]
#
# Without arguments it makes its two recordings with
# `perf record -F 500 --call-graph dwarf`: one `gcc -O2 -c` of a generated
# ~1,800-line C file (cc1: a large stripped binary, symbolized from
# .dynsym/.symtab and unwound with .eh_frame) and a few hundred ms of
# python3. For each recording it runs `scorch script`, `scorch perfparser`,
# hotspot-perfparser (--input F --output /dev/null) and `cat F`
# alternately RUNS times (default 5) and prints the wall-time medians, the
# ratios hotspot-perfparser/scorch and scorch/cat, the machine's load, and
# the callgrind instruction totals of `scorch script` (stable under load;
# CALLGRIND=0 skips them), with the cache of decompressed debug files warm
# (the timed runs fill it) and off. Set KEEP=1 to keep the recordings.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
SC=${SCORCH:-$TOP/build/scorch}
REF=${HOTSPOT_PERFPARSER_REF:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}
RUNS=${RUNS:-5}
[ -x "$SC" ] || { echo "small_bench: $SC is not built (run make first)" >&2; exit 1; }
W=$(mktemp -d /tmp/scorch-smallbench.XXXXXX)
[ "${KEEP:-0}" = 1 ] && echo "keeping $W" || trap 'rm -rf "$W"' EXIT

if [ $# -ge 2 ]; then
	cc1=$1 py=$2
else
	python3 - "$W/big.c" <<'PY'
import sys
out = ["#include <stdio.h>", "#include <string.h>"]
for i in range(180):
    out += [f"static int f{i}(int *a, int n) {{", "  int s = 0;",
            "  for (int i = 0; i < n; i++) {",
            f"    s += a[i] * {i + 1} + (a[i] >> 2);",
            "    if (s > 1000) s -= a[i % 7];", "  }", f"  return s + {i};", "}", ""]
out.append("int main(void) { int a[100]; memset(a, 0, sizeof a); int s = 0;")
out += [f"  s += f{i}(a, 100);" for i in range(180)]
out.append('  printf("%d\\n", s); return 0; }')
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
	cc1=$W/cc1.data py=$W/py.data
	echo "recording: gcc -O2 -c big.c ($(wc -l < "$W/big.c") lines) ..."
	perf record -q -F 500 --call-graph dwarf -o "$cc1" -- \
		gcc -O2 -c "$W/big.c" -o "$W/big.o" > /dev/null 2>&1 || { echo "perf record (gcc) failed"; exit 1; }
	echo "recording: python3 (json loop) ..."
	perf record -q -F 500 --call-graph dwarf -o "$py" -- python3 -c '
import json
s = 0
for i in range(300000): s += len(json.dumps({"a": i, "b": [i, i * 2]}))
print(s)' > /dev/null 2>&1 || { echo "perf record (python3) failed"; exit 1; }
fi

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
wall() { # wall seconds of one run of CMD... (bash's clock: no date
	# process around it, which added ~14 ms to every figure, cat's too)
	local t0 t1
	t0=$EPOCHREALTIME
	"$@" > /dev/null 2>&1
	t1=$EPOCHREALTIME
	echo "$t1 - $t0" | bc -l
}
ratio() { echo "scale=1; $1 / $2" | bc -l; }

echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for data in "$cc1" "$py"; do
	: > "$W/t.script"; : > "$W/t.pp"; : > "$W/t.ref"; : > "$W/t.cat"
	for _ in $(seq "$RUNS"); do
		wall "$SC" script -i "$data" >> "$W/t.script"
		wall "$SC" perfparser --input "$data" --output /dev/null >> "$W/t.pp"
		wall "$REF" --input "$data" --output /dev/null >> "$W/t.ref"
		wall cat "$data" >> "$W/t.cat"
	done
	s=$(median < "$W/t.script") p=$(median < "$W/t.pp") r=$(median < "$W/t.ref") c=$(median < "$W/t.cat")
	echo "$(basename "$data") ($(du -h "$data" | cut -f1)), medians of $RUNS alternating runs:"
	printf '  scorch script %.3fs  scorch perfparser %.3fs  hotspot-perfparser %.3fs  cat %.4fs\n' "$s" "$p" "$r" "$c"
	echo "  hotspot-perfparser / scorch: script $(ratio "$r" "$s")x  perfparser $(ratio "$r" "$p")x"
	echo "  scorch / cat: script $(ratio "$s" "$c")x  perfparser $(ratio "$p" "$c")x"
	if [ "${CALLGRIND:-1}" = 1 ] && command -v valgrind > /dev/null; then
		valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" "$SC" script -i "$data" \
			> /dev/null 2> "$W/cg.log"
		warm=$(sed -n 's/.*Collected : //p' "$W/cg.log")
		SCORCH_NO_CACHE=1 valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" "$SC" script \
			-i "$data" > /dev/null 2> "$W/cg.log"
		echo "  callgrind: scorch script $warm instructions (SCORCH_NO_CACHE=1: $(sed -n 's/.*Collected : //p' "$W/cg.log"))"
	fi
done
echo "machine after: load $(cut -d' ' -f1-3 /proc/loadavg)"
