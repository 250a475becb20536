#!/bin/bash
# resolve_bench.sh: unwinding + symbolization speed on a DWARF recording of
# a parallel build, beside perf script, perf report and hotspot-perfparser.
#
#   bench/resolve_bench.sh [--quick] [--callgrind] [--data FILE]
#
# Without --data it records `make -j2` of this project's sources (a copy)
# with `perf record --call-graph dwarf -F 2200` into build/bench/build.data
# (about 150 MB, 18k samples). Every tool reads the same file, warm cache.
# Prints wall seconds, CPU seconds (user+sys: the machine may be shared) and
# peak RSS per tool, then the ratios. --quick skips perf script and perf
# report (minutes on this file). --callgrind also counts instructions with
# callgrind on a small recording (a parallel build of the test workloads)
# for scorch and hotspot-perfparser.
set -u
cd "$(dirname "$0")/.." || exit 1
TOP=$PWD
SCORCH=${SCORCH:-$TOP/build/scorch}
HP=${HOTSPOT_PERFPARSER:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}
quick=0 cg=0 data=""
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--callgrind) cg=1 ;;
	--data) data=$2; shift ;;
	*) echo "usage: $0 [--quick] [--callgrind] [--data FILE]" >&2; exit 2 ;;
	esac
	shift
done
[ -x "$SCORCH" ] || make -s || exit 1
mkdir -p build/bench
record_build() { # OUT FREQ TARGETS...: perf record a make -j2 of a copy of the sources
	local out=$1 freq=$2; shift 2
	local src
	src=$(mktemp -d /tmp/scorch-bench.XXXXXX)
	git -C "$TOP" archive HEAD | tar x -C "$src"
	perf record -q -F "$freq" -e cpu-clock --call-graph dwarf -o "$out" -- make -C "$src" -s -j2 "$@" >/dev/null 2>&1
	rm -rf "$src"
}
if [ -z "$data" ]; then
	data=build/bench/build.data
	if [ ! -s "$data" ]; then
		echo "recording a parallel build into $data ..."
		record_build "$data" 2200 build/libscorch.a build/scorch build/unit-tests
	fi
fi
size=$(stat -c %s "$data")
echo "input: $data, $((size / 1000000)) MB, $("$SCORCH" stats -i "$data" | awk '/^samples:/{print $2}') samples"
cat "$data" > /dev/null

declare -A WALL CPU RSS
measure() { # NAME CMD...
	local name=$1; shift
	/usr/bin/time -o build/bench/time.out -f "%e %U %S %M" "$@" > /dev/null 2>/dev/null
	read -r w u s m < build/bench/time.out
	WALL[$name]=$w
	CPU[$name]=$(echo "$u + $s" | bc)
	RSS[$name]=$m
	printf "%-28s wall %7.2f s  cpu %7.2f s  peak RSS %7d KB\n" "$name" "$w" "${CPU[$name]}" "$m"
}
measure "scorch script" "$SCORCH" script -i "$data"
measure "scorch stats --unwind" "$SCORCH" stats --unwind -i "$data"
measure "scorch script --no-inline" "$SCORCH" script --no-inline -i "$data"
[ -x "$HP" ] && measure "hotspot-perfparser" "$HP" --input "$data" --output /dev/null
if [ $quick = 0 ]; then
	measure "perf script" perf script -i "$data"
	measure "perf report" perf report --stdio -i "$data"
fi
ratio() { # A B: A/B
	echo "scale=1; ${1} / ${2}" | bc 2>/dev/null
}
echo "ratios (cpu; wall in parentheses):"
for peer in "hotspot-perfparser" "perf script" "perf report"; do
	[ -n "${CPU[$peer]:-}" ] || continue
	for me in "scorch script" "scorch stats --unwind"; do
		printf "  %-20s / %-22s %6sx (%sx)\n" "$peer" "$me" "$(ratio "${CPU[$peer]}" "${CPU[$me]}")" \
			"$(ratio "${WALL[$peer]}" "${WALL[$me]}")"
	done
done
[ -n "${RSS[hotspot-perfparser]:-}" ] &&
	echo "  peak RSS scorch script / hotspot-perfparser: ${RSS[scorch script]} / ${RSS[hotspot-perfparser]} KB"

if [ $cg = 1 ] && command -v valgrind >/dev/null; then
	small=build/bench/small.data
	[ -s "$small" ] || record_build "$small" 1000 build/obj/src/util/buf.o build/obj/src/util/hash.o \
		build/obj/src/analyze/order.o build/obj/src/perf/decode.o
	echo "callgrind on $small ($("$SCORCH" stats -i "$small" | awk '/^samples:/{print $2}') samples):"
	cgrun() { # NAME CMD...
		local name=$1; shift
		valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" > /dev/null 2> build/bench/cg.err
		local ir
		ir=$(grep -o 'Collected : [0-9]*' build/bench/cg.err | awk '{print $3}')
		printf "  %-26s %15s instructions\n" "$name" "$ir"
		eval "IR_$2=$ir" 2>/dev/null
		echo "$ir"
	}
	a=$(cgrun "scorch script" "$SCORCH" script -i "$small" | tail -1)
	b=$(cgrun "scorch stats --unwind" "$SCORCH" stats --unwind -i "$small" | tail -1)
	c=$(cgrun "hotspot-perfparser" "$HP" --input "$small" --output /dev/null | tail -1)
	echo "  scorch script $a, scorch stats --unwind $b, hotspot-perfparser $c instructions"
	echo "  hotspot-perfparser / scorch script: $(ratio "$c" "$a")x"
fi
