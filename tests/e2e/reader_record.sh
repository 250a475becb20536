#!/bin/bash
# reader_record.sh: record workloads with perf 6.1 (frame pointers + kernel,
# DWARF, threads, fork+exec, pipe mode, system-wide) and require every
# `scorch script` sample header to equal perf script's, byte for byte.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
build_workload leaf_mid.c "$W/w" -O1 -g -fno-omit-frame-pointer -pthread || { fail "build workload"; exit 0; }
rec() { # NAME PERF-RECORD-ARGS... -- workload args
	local n=$1; shift
	perf record -q -o "$W/$n.data" "$@" > /dev/null 2>&1
}
rec fp -e cpu-clock -F 2000 -g "$W/w"
rec dwarf -e cpu-clock -F 1000 --call-graph dwarf "$W/w"
rec threads -e cpu-clock -F 2000 -g "$W/w" threads
rec forkexec -e cpu-clock -F 2000 -g "$W/w" forkexec
rec fixed -e cpu-clock -c 500000 "$W/w"
perf record -q -e cpu-clock -F 2000 -g -o - "$W/w" 2>/dev/null > "$W/pipe.data"
rec sysw -a -e cpu-clock -F 1000 -g -- "$W/w"
rec multi -e cpu-clock -e page-faults -F 1000 "$W/w"
for n in fp dwarf threads forkexec fixed pipe sysw multi; do
	f=$W/$n.data
	if [ ! -s "$f" ]; then fail "record $n with perf"; continue; fi
	perf_headers "$f" > "$W/$n.p"
	"$SCORCH" script --headers-only -i "$f" > "$W/$n.s" 2> "$W/$n.err"
	np=$(wc -l < "$W/$n.p")
	if cmp -s "$W/$n.p" "$W/$n.s" && [ "$np" -gt 50 ]; then
		pass "record/$n: $np sample headers == perf script"
	else
		fail "record/$n: headers differ from perf script ($np perf lines)"
		diff "$W/$n.p" "$W/$n.s" | head -5
	fi
	# sample counts agree with perf report --stats
	ps=$(perf report --stats -i "$f" 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
	ss=$("$SCORCH" stats -i "$f" | sed -n 's/^samples: //p')
	check "record/$n: stats samples $ss == perf report --stats $ps" [ "$ss" = "$ps" ]
	if [ -x "$SCORCH_ASAN" ]; then
		"$SCORCH_ASAN" script -i "$f" > /dev/null 2> "$W/asan" && ! grep -q Sanitizer "$W/asan"
		check "record/$n: ASan+UBSan script clean" [ $? = 0 ]
	fi
done
# comm changes at exec are seen in time order
grep -q ' child\| w ' "$W/forkexec.s"
check "record/forkexec: samples of both processes" [ "$(awk '{print $2}' "$W/forkexec.s" | sort -u | wc -l)" -ge 2 ]
