#!/bin/bash
# demo.sh: `make demo`. Records the bundled demo program (tests/workloads/
# demo.c, a small program with a recognisable call tree) with
# `scorch record` (or `perf record` while scorch cannot record), prints the
# top of `scorch report` and writes the flame graph to build/demo-flame.html
# (and build/demo-flame.svg).
#   scripts/demo.sh [--screenshot]   --screenshot also renders docs/flame.png
#                                    in headless Chromium (scripts/npm-deps.sh)
set -e
cd "$(dirname "$0")/.."
S=build/scorch
D=build/demo
mkdir -p "$D"
[ -x "$S" ] || make -s all

# the program: the workload build (mk/resolve.mk) or compiled here
prog=build/workloads/demo
if [ ! -x "$prog" ]; then
	prog=$D/demo
	if [ -f tests/workloads/demo.c ]; then
		gcc -O2 -g -fno-omit-frame-pointer -o "$prog" tests/workloads/demo.c
	else
		# a stand-in until tests/workloads/demo.c lands
		cat > "$D/demo.c" <<'CEOF'
#include <stdio.h>
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void parse_line(int i) { for (int k = 0; k < 20000; k++) sink += k ^ i; }
__attribute__((noinline)) static void parse_input(void) { for (int i = 0; i < 2000; i++) parse_line(i); }
__attribute__((noinline)) static void sort_keys(void) { for (int k = 0; k < 50000000; k++) sink += k * 3; }
__attribute__((noinline)) static void hash_keys(void) { for (int k = 0; k < 50000000; k++) sink ^= k * 7; }
__attribute__((noinline)) static void build_index(void) { sort_keys(); hash_keys(); }
__attribute__((noinline)) static void lookup(int i) { for (int k = 0; k < 30000; k++) sink += k + i; }
__attribute__((noinline)) static void answer_queries(void) { for (int i = 0; i < 2000; i++) lookup(i); }
int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10;
	for (int r = 0; r < rounds; r++) { parse_input(); build_index(); answer_queries(); }
	printf("%lu\n", sink & 1);
	return 0;
}
CEOF
		gcc -O1 -g -fno-omit-frame-pointer -o "$prog" "$D/demo.c"
		: "${DEMO_ROUNDS:=30}"
	fi
fi

data=$D/perf.data
rounds=${DEMO_ROUNDS:-10}
echo "== recording $prog $rounds"
if "$S" record -F 999 -g -o "$data" -- "$prog" "$rounds" > /dev/null 2> "$D/record.err"; then
	echo "   (scorch record)"
else
	perf record -q -e cpu-clock -F 999 -g -o "$data" -- "$prog" "$rounds" > /dev/null
	echo "   (perf record: scorch record is not available in this build)"
fi

echo "== scorch report -i $data (top)"
"$S" report -i "$data" --top 12 --tree 3 | head -n 60
echo
"$S" flame -i "$data" -o build/demo-flame.html --title "scorch demo: $(basename "$prog")"
"$S" flame -i "$data" -o build/demo-flame.svg --title "scorch demo: $(basename "$prog")" 2> /dev/null
echo "== open build/demo-flame.html in a browser (build/demo-flame.svg for embedding)"

if [ "$1" = "--screenshot" ]; then
	scripts/npm-deps.sh
	node tests/tools/outputs_browser.mjs flame build/demo-flame.html main docs/flame.png > "$D/shot.json"
	echo "== wrote docs/flame.png ($(cat "$D/shot.json"))"
fi
