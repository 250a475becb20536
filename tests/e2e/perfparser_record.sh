#!/bin/bash
# perfparser_record.sh: `scorch perfparser` on recordings made here, against
# hotspot-perfparser and against `scorch script`:
#   dwarf  pp_threads, --call-graph dwarf (inline frames, libm, 2 threads)
#   fp     pp_threads, --call-graph fp
#   fork   sh running pp_threads twice (fork, exec, comm, exit), with
#          --switch-events (context switches)
#   trace  the sched:sched_switch tracepoint plus cpu-clock (TracePointFormat,
#          TracePointSample fields, two attributes)
#   pipe   perf record -o - (attrs, features, build ids as records)
# For each: the stream decodes strictly; samples (pid, tid, time, cpu, cost),
# threads, commands, lost, switches, attributes and features equal
# hotspot-perfparser's (kinds of stack difference listed); and the stacks
# decoded from the stream (as hotspot builds them from location chains) are
# the stacks `scorch script` prints, inline and kernel frames included.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
REF=${HOTSPOT_PERFPARSER_REF:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}
PP=$TOP/build/scorch-perfparser
DEC=$TOP/tests/tools/perfparser_decode.py
if ! command -v perf > /dev/null; then
	skip perfparser_record "no perf"
	exit 0
fi
gcc -O2 -g -fno-omit-frame-pointer -pthread -o "$W/pp_threads" "$TOP/tests/workloads/pp_threads.c" -lm ||
	{ fail "perfparser_record: build workload"; exit 0; }

rec() { # NAME perf-record-args... -- command
	local n=$1
	shift
	perf record -q -o "$W/$n.data" "$@" > /dev/null 2> "$W/$n.rec.err"
}
rec dwarf -e cpu-clock --call-graph dwarf "$W/pp_threads" 150
rec fp -e cpu-clock --call-graph fp "$W/pp_threads" 150
rec fork -e cpu-clock --call-graph fp --switch-events -- sh -c "$W/pp_threads 40; $W/pp_threads 40"
rec trace -e cpu-clock -e sched:sched_switch --call-graph fp "$W/pp_threads" 60
perf record -q -e cpu-clock --call-graph fp -o - "$W/pp_threads" 60 2> /dev/null > "$W/pipe.data"

for n in dwarf fp fork trace pipe; do
	d=$W/$n.data
	if [ ! -s "$d" ]; then
		skip "perfparser_record $n" "perf record failed: $(head -1 "$W/$n.rec.err")"
		continue
	fi
	"$PP" --input "$d" --output "$W/$n.ours" 2> "$W/$n.err"
	rc=$?
	check "perfparser_record $n: exit $rc" [ "$rc" = 0 ]
	ref=-
	if [ -x "$REF" ]; then
		"$REF" --input "$d" --output "$W/$n.ref" 2> /dev/null
		ref=$W/$n.ref
	fi
	"$TOP/build/scorch" script --ip --max-frames 64 -i "$d" > "$W/$n.script" 2> /dev/null
	python3 "$DEC" verify "$W/$n.ours" "$ref" "$W/$n.script" > "$W/$n.v" 2>&1
	if grep -q '^RESULT check ok' "$W/$n.v"; then
		pass "perfparser_record $n: stream decodes strictly ($(sed -n 's/^RESULT check ok //p' "$W/$n.v"))"
	else
		fail "perfparser_record $n: stream decodes strictly"
		cat "$W/$n.v"
		continue
	fi
	if [ "$ref" != - ]; then
		if grep -q '^RESULT compare ok' "$W/$n.v"; then
			pass "perfparser_record $n: same samples/threads/commands/lost/switches/features as hotspot-perfparser"
		else
			fail "perfparser_record $n: differs from hotspot-perfparser"
		fi
		grep -E '^(DIFF|note|  only|  attr|  feat|  trace)' "$W/$n.v" | sed 's/^/    /'
	fi
	if grep -q '^RESULT stacks ok' "$W/$n.v"; then
		pass "perfparser_record $n: stream stacks == scorch script ($(sed -n 's/^samples: stream/stream/p' "$W/$n.v"))"
	else
		fail "perfparser_record $n: stream stacks != scorch script"
		grep -E '^(samples:|kind|  example)' "$W/$n.v" | sed 's/^/    /'
	fi
done
