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
#   clang  a clang -O2 -g binary (no .debug_aranges): inline frames found by
#          the CUs' own ranges, as perf and hotspot-perfparser find them
#   mixed  the same code built by clang, linked with a GCC-built main:
#          .debug_aranges lists the GCC CU only
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
clang_ok=0
if ! clang -O2 -g -o "$W/clang_inline" "$TOP/tests/workloads/clang_inline.c"; then
	fail "perfparser_record clang: build workload"
elif readelf -S "$W/clang_inline" | grep -q debug_aranges; then
	fail "perfparser_record clang: clang wrote .debug_aranges: the case is not exercised"
else
	rec clang -e cpu-clock -F 2000 --call-graph dwarf "$W/clang_inline" 150000 && clang_ok=1
fi
mixed_ok=0
if ! clang -O2 -g -DCLANG_INLINE_NO_MAIN -c -o "$W/clang_part.o" "$TOP/tests/workloads/clang_inline.c" ||
	! gcc -O2 -g -DCLANG_INLINE_ONLY_MAIN -o "$W/mixed" "$TOP/tests/workloads/clang_inline.c" "$W/clang_part.o"; then
	fail "perfparser_record mixed: build workload"
elif [ "$(readelf --debug-dump=aranges "$W/mixed" | grep -c 'Offset into .debug_info')" != 1 ] ||
	[ "$(readelf --debug-dump=info "$W/mixed" | grep -c 'Compilation Unit @')" != 2 ]; then
	fail "perfparser_record mixed: not 2 CUs with 1 listed in .debug_aranges: the case is not exercised"
else
	rec mixed -e cpu-clock -F 2000 --call-graph dwarf "$W/mixed" 150000 && mixed_ok=1
fi

for n in dwarf fp fork trace pipe clang mixed; do
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

# clang: a clang -O2 -g binary has no .debug_aranges, so dwarf_addrdie cannot
# place its addresses; hotspot-perfparser finds the CU by the CUs' own ranges
# and perf by addr2line, and both show the inlined `inner` (hotspot with its
# file:line). scorch finds it the same way (inlines.c, cu_by_ranges): the
# stream has the inline frames and clang_inline.c locations, and `scorch
# script` prints as many `inner (inlined)` frames as perf script.
# mixed: the same, where .debug_aranges exists but lists only the GCC CU
# (main), so the CU of work/inner is found by its ranges among the CUs
# .debug_aranges does not list.
for n in clang mixed; do
	ok=$clang_ok bin=clang_inline
	[ $n = mixed ] && ok=$mixed_ok bin=mixed
	[ "$ok" = 1 ] && [ -s "$W/$n.ours" ] || continue
	python3 "$DEC" stacks "$W/$n.ours" > "$W/$n.ours.st" 2> /dev/null
	ours=$(grep -c "inner ($bin) \\[inline\\]" "$W/$n.ours.st")
	line=$(python3 "$DEC" dump "$W/$n.ours" 2> /dev/null | awk '
		/^StringDefinition/ && /clang_inline\.c$/ { sub(/.*id=/, ""); sub(/ .*/, ""); f[$0] = 1; next }
		/^LocationDefinition/ { for (i = 1; i <= NF; i++) if ($i ~ /^file=/) { split($i, a, "="); if (a[2] in f) n++ } }
		END { print n + 0 }')
	check "perfparser_record $n: locations with clang_inline.c ($line)" [ "$line" -gt 0 ]
	if [ -x "$REF" ]; then
		"$REF" --input "$W/$n.data" --output "$W/$n.ref" 2> /dev/null
		python3 "$DEC" stacks "$W/$n.ref" > "$W/$n.ref.st" 2> /dev/null
		ref=$(grep -c "inner ($bin) \\[inline\\]" "$W/$n.ref.st")
		check "perfparser_record $n: inline frames of inner: $ours, hotspot-perfparser $ref" \
			[ "$ref" -gt 100 -a "$((ours * 100))" -ge "$((ref * 95))" ]
		python3 "$DEC" compare "$W/$n.ours" "$W/$n.ref" > "$W/$n.cmp" 2>&1
		check "perfparser_record $n: hotspot-perfparser unwinds no deeper" \
			sh -c "! grep -q 'reference unwinds deeper' '$W/$n.cmp'"
		sed 's/^/    /' "$W/$n.cmp" | grep -E 'note|DIFF'
	else
		check "perfparser_record $n: inline frames of inner ($ours)" [ "$ours" -gt 100 ]
	fi
	"$TOP/build/scorch" script -i "$W/$n.data" 2> /dev/null | grep -c 'inner+.*(inlined)' > "$W/$n.sc.n"
	perf script -i "$W/$n.data" 2> /dev/null | grep -c 'inner+.*(inlined)' > "$W/$n.perf.n"
	check "perfparser_record $n: scorch script inline frames of inner $(cat "$W/$n.sc.n") = perf script's $(cat "$W/$n.perf.n")" \
		sh -c "cmp -s '$W/$n.sc.n' '$W/$n.perf.n' && [ \$(cat '$W/$n.sc.n') -gt 100 ]"
done
