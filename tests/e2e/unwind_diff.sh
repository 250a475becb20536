#!/bin/bash
# unwind_diff.sh: scorch's DWARF unwinder against libdwfl's.
#   - build/unwind-diff unwinds every sample's registers and stack copy with
#     both; on small recordings of C, C++ with exceptions, Debian's python3
#     and a deep recursion, libdwfl must never go further or disagree;
#   - a stack deeper than the copy: the walk says it stopped at the copy's
#     end, and a copy cut shorter gives the whole copy's first frames, never
#     others (a 32 KB recording walked again with 4 KB copies).
# The long corpus (cc1, cc1plus, perl, git, ...) is bench/unwind_corpus.sh.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
unset DEBUGINFOD_URLS
WL=$TOP/build/workloads
DIFF=$TOP/build/unwind-diff
if ! command -v perf >/dev/null || ! perf record -q -e cpu-clock -o "$W/probe.data" true 2>/dev/null; then
	echo "SKIP unwind_diff (perf record not usable)"
	pass unwind_diff-skipped
	exit 0
fi
[ -x "$DIFF" ] && [ -x "$WL/exceptions" ] && [ -x "$WL/recurse" ] || make -s -C "$TOP" build/unwind-diff build/workloads/exceptions workloads >/dev/null

rec() { # NAME CALLGRAPH COMMAND...
	local name=$1 cg=$2; shift 2
	perf record -q -F 2000 -e cpu-clock --call-graph "$cg" -o "$W/$name.data" -- "$@" >/dev/null 2>"$W/$name.rec.err"
}
val() { awk -v k="$1:" '$1 == k { print $2 }' "$2"; }

# libdwfl never goes further from the same state
diffrun() { # NAME [OPTIONS]
	local name=$1; shift
	"$DIFF" -i "$W/$name.data" --list 5 "$@" > "$W/$name.diff" 2>&1
	local rc=$? n
	n=$(val samples "$W/$name.diff")
	if [ $rc = 0 ] && [ "${n:-0}" -gt 0 ]; then
		pass "unwind-diff-$name ($n samples, libdwfl further 0, disagree 0)"
	else
		fail "unwind-diff-$name (rc $rc: $(val libdwfl_further "$W/$name.diff") further, $(val disagree "$W/$name.diff") disagree of ${n:-0})"
		head -30 "$W/$name.diff"
	fi
}
rec exceptions dwarf "$WL/exceptions" 8000 && diffrun exceptions || fail "unwind-diff-exceptions (perf record failed)"
rec calls-nofp dwarf "$WL/calls-nofp" 150 && diffrun calls-nofp || fail "unwind-diff-calls-nofp (perf record failed)"
rec python3 dwarf /usr/bin/python3 -c 'import json; s = json.dumps([{"k": i} for i in range(40000)]); print(len(json.loads(s)))' &&
	diffrun python3 || fail "unwind-diff-python3 (perf record failed)"
rec recurse dwarf "$WL/recurse" 300 300 && diffrun recurse --max-frames 512 || fail "unwind-diff-recurse (perf record failed)"

# a copy cut short gives fewer frames, never other ones: a 32 KB recording
# of a 9.6 KB deep stack, walked again with the copies cut to 4 KB; the
# same cut walk with hotspot-perfparser's stale words (earlier samples'
# copies) is counted, not checked (bench/unwind_corpus.sh shows it wrong
# on cc1)
if rec recurse-big dwarf,32768 "$WL/recurse" 300 300; then
	"$DIFF" -i "$W/recurse-big.data" --cut 4096 --quiet > "$W/cut.diff" 2>&1
	rc=$?
	n=$(val samples "$W/cut.diff") sw=$(val scorch_cut_wrong "$W/cut.diff")
	if [ $rc = 0 ] && [ "${n:-0}" -gt 0 ] && [ "$sw" = 0 ]; then
		pass "unwind-cut-copy ($n samples: cut copies give the whole copy's first frames; stale words: $(val stale_frames_wrong "$W/cut.diff") of $(val stale_frames "$W/cut.diff") frames wrong)"
	else
		fail "unwind-cut-copy (rc $rc, $sw of ${n:-0} samples with other frames)"
		head -30 "$W/cut.diff"
	fi
else
	fail "unwind-cut-copy (perf record failed)"
fi
# the 8 KB recording of the same stack: the walks that end at the copy's end say so
ce=$(val scorch_copy_end "$W/recurse.diff")
if [ "${ce:-0}" -gt 0 ]; then
	pass "unwind-copy-end ($ce samples stop at the end of the 8 KB copy)"
else
	fail "unwind-copy-end (no walk of a 9.6 KB stack stopped at the copy's end)"
fi
