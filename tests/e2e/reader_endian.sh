#!/bin/bash
# reader_endian.sh: a perf.data file as a big-endian machine writes it
# (tests/tools/swap_endian.py turns perf's little-endian output around) reads
# the same as the original: every sample's fields and the symbolized stacks.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
build_workload leaf_mid.c "$W/w" -O1 -g -fno-omit-frame-pointer -pthread
perf record -q -e cpu-clock -F 2000 -g -o "$W/fp.data" "$W/w" > /dev/null 2>&1
perf record -q -e cpu-clock -e page-faults -F 2000 -o "$W/two.data" "$W/w" > /dev/null 2>&1
for n in fp two; do
	python3 "$TOP/tests/tools/swap_endian.py" "$W/$n.data" "$W/$n.be"
	"$SCORCH" header -i "$W/$n.be" > "$W/h" 2>&1
	check "endian/$n: detected as opposite endian" grep -q 'opposite endian' "$W/h"
	"$SCORCH" script --raw -i "$W/$n.data" > "$W/a" 2>/dev/null
	"$SCORCH" script --raw -i "$W/$n.be" > "$W/b" 2>/dev/null
	check "endian/$n: $(wc -l < "$W/a") samples, fields equal" cmp -s "$W/a" "$W/b"
	"$SCORCH" script -i "$W/$n.data" > "$W/a" 2>/dev/null
	"$SCORCH" script -i "$W/$n.be" > "$W/b" 2>/dev/null
	check "endian/$n: symbolized stacks equal" cmp -s "$W/a" "$W/b"
	check "endian/$n: nonempty" [ -s "$W/a" ]
done
