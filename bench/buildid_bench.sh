#!/bin/bash
# buildid_bench.sh: what the build-id step adds to a recording, scorch's
# against perf's, on the same small program (built here), which runs about
# 0.2 s (ITER loop rounds; with a program that ends within ~50 ms, scorch's
# first recording on a kernel also shows the kernel's time to list
# /proc/kallsyms, which it otherwise reads while the program runs).
#
#   bench/buildid_bench.sh          env: RUNS (default 7), SCORCH (build/scorch),
#                                   ITER (default 200000000)
#
# For each tool, RUNS recordings with the step and RUNS without it (scorch
# record -N; perf record -B, no build ids at all), alternating, each with a
# cache that is empty (cold: the first recording after a kernel or program
# change, kallsyms copied) and one already filled (warm). Prints the median
# wall time of each and the difference: the step's cost. Every cache is a
# private HOME in a scratch directory.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
S=${SCORCH:-$TOP/build/scorch}
RUNS=${RUNS:-7}
[ -x "$S" ] || { echo "buildid_bench: $S is not built (make)" >&2; exit 1; }
command -v perf > /dev/null || { echo "buildid_bench: needs perf" >&2; exit 1; }
W=$(mktemp -d /tmp/scorch-bidbench.XXXXXX)
trap 'rm -rf "$W"' EXIT
cat > "$W/prog.c" <<'C'
#include <stdlib.h>
__attribute__((noinline)) double spin(long n) { double s = 0; for (long i = 0; i < n; i++) s += i * 0.5; return s; }
int main(int argc, char **argv) { return spin(atol(argv[1])) > 1 ? 0 : 1; }
C
gcc -O1 -fno-omit-frame-pointer -o "$W/prog" "$W/prog.c"

ms() { # CMD...: its wall time in ms
	local t0 t1
	t0=$(date +%s%N)
	"$@" > /dev/null 2>&1
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
rec() { # TOOL FLAG MODE: one recording's time
	[ "$3" = cold ] && rm -rf "$W/home"
	mkdir -p "$W/home"
	if [ "$1" = perf ]; then
		HOME=$W/home ms perf record -q $2 -e cpu-clock -g -o "$W/o.data" -- "$W/prog" "${ITER:-200000000}"
	else
		HOME=$W/home ms "$S" record -q $2 -e cpu-clock -g -o "$W/o.data" -- "$W/prog" "${ITER:-200000000}"
	fi
}
printf '%-7s %-5s %12s %12s %10s\n' tool cache "with (ms)" "without (ms)" "step (ms)"
for mode in cold warm; do
	for tool in scorch perf; do
		off=-N
		[ $tool = perf ] && off=-B
		: > "$W/with"
		: > "$W/without"
		for i in $(seq "$RUNS"); do
			rec $tool "" $mode >> "$W/with"
			rec $tool $off $mode >> "$W/without"
		done
		a=$(median < "$W/with")
		b=$(median < "$W/without")
		printf '%-7s %-5s %12s %12s %10s\n' $tool $mode "$a" "$b" $((a - b))
	done
done
