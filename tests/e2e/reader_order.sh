#!/bin/bash
# reader_order.sh: time ordering without FINISHED_ROUND. A recording rewritten
# with no rounds and the executable's MMAP2 moved to the end of the data:
# the default buffer puts it back in time order (stacks as in the original);
# a 1 KB buffer cannot, so the late MMAP is counted and reported.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
build_workload leaf_mid.c "$W/w" -O1 -g -pthread
perf record -q -e cpu-clock -F 2000 -o "$W/o.data" "$W/w" > /dev/null 2>&1
python3 "$TOP/tests/tools/reorder.py" "$W/o.data" "$W/r.data"
"$SCORCH" stats -i "$W/r.data" > "$W/st" 2> "$W/err"
check "order: no rounds in the rewritten file" grep -q '^rounds: 0$' "$W/st"
check "order: default buffer, 0 violations" grep -q '^time violations: 0$' "$W/st"
"$SCORCH" script -i "$W/o.data" > "$W/a" 2>/dev/null
"$SCORCH" script -i "$W/r.data" > "$W/b" 2>/dev/null
check "order: same samples and symbols as the original ($(grep -c ' leaf+' "$W/a") in leaf)" cmp -s "$W/a" "$W/b"
"$SCORCH" stats --buffer-size 1 -i "$W/r.data" > "$W/st" 2> "$W/err"
# (at least 1: perf's own rings interleave out of order across CPUs, which
# the dropped rounds used to bound, so other MMAPs can be late too)
mv=$(sed -n 's/^mmaps time violations: //p' "$W/st")
check "order: 1 KB buffer: the MMAP is a counted violation (${mv:-none})" [ "${mv:-0}" -ge 1 ]
check "order: and reported on stderr" grep -q 'MMAP records arrived out of time order' "$W/err"
g=$(sed -n 's/^buffer growths: //p' "$W/st")
check "order: the buffer grew ($g times)" [ "${g:-0}" -gt 0 ]
