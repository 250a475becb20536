#!/bin/bash
# live_top.sh: scorch top. --stdio -n N prints N refreshes and exits; the
# workload's hot function shows within 3 refreshes with frame pointers
# (-- CMD) and with DWARF unwinding (-p PID of a binary without frame
# pointers, where only DWARF finds the callers); the full-screen view runs
# in a real terminal (tmux), and its keys are driven with send-keys and read
# back with capture-pane.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
WL=$TOP/build/workloads

# blocks of a --stdio run: "# refresh N" headings
blocks() { grep -c '^# refresh ' "$1"; }
# the first N refresh blocks contain LINE-REGEX
in_first() { # FILE N REGEX
	awk -v n="$2" '/^# refresh /{b++} b>=1 && b<=n' "$1" | grep -qE "$3"
}

# --- FP, -- CMD ---
"$SCORCH" top --stdio -n 3 -e cpu-clock -g -d 0.5 -- "$WL/calls-fp" 20000 > "$W/fp.out" 2> "$W/fp.err"
check top_stdio_fp_exit test $? = 0
check top_stdio_fp_n3 test "$(blocks "$W/fp.out")" = 3
check top_stdio_fp_header grep -qE '^# refresh 1 at [0-9.]+ s: scorch top: cpu-clock 4000 Hz fp \| [0-9]+ samples, [0-9]+/s \| lost [0-9]+ \| scorch CPU [0-9.]+%' "$W/fp.out"
check top_stdio_fp_hot in_first "$W/fp.out" 3 '%  calls-fp +calls-fp +leaf_mul$'
# the command was stopped when top exited after -n
check top_stdio_fp_child_gone bash -c "! pgrep -f '[c]alls-fp 20000' > /dev/null"

# --children: run (the caller of everything) carries nearly all the weight
"$SCORCH" top --stdio -n 2 --children --since-start -e cpu-clock -g -d 0.5 -- "$WL/calls-fp" 20000 > "$W/ch.out" 2>&1
check top_stdio_children awk '/^# refresh 2/{b=1} b && / run$/ { split($2, a, "%"); if (a[1] + 0 > 80) ok=1 } END { exit !ok }' "$W/ch.out"

# --- DWARF, -p (no frame pointers: callers only through DWARF CFI) ---
"$WL/calls-nofp" 20000 > /dev/null &
wpid=$!
sleep 0.3
"$SCORCH" top --stdio -n 3 --children -e cpu-clock --call-graph dwarf -d 0.5 -p $wpid > "$W/dw.out" 2> "$W/dw.err"
check top_stdio_dwarf_exit test $? = 0
kill $wpid 2>/dev/null; wait $wpid 2>/dev/null
check top_stdio_dwarf_n3 test "$(blocks "$W/dw.out")" = 3
check top_stdio_dwarf_hdr grep -q 'cpu-clock 4000 Hz dwarf' "$W/dw.out"
check top_stdio_dwarf_hot in_first "$W/dw.out" 3 '%  calls-nofp +calls-nofp +leaf_mul$'
# main is never a leaf: its children weight comes from unwinding
check top_stdio_dwarf_unwound awk '/ main$/ { split($2, a, "%"); if (a[1] + 0 > 80) ok=1 } END { exit !ok }' "$W/dw.out"

# --- errors ---
"$SCORCH" top --stdio -n 1 -p 999999999 > /dev/null 2> "$W/bad.err"
check top_bad_pid test $? = 2
"$SCORCH" top -d 0 > /dev/null 2> "$W/bad2.err"
check top_bad_delay test $? = 2
check top_bad_delay_msg grep -q '^scorch top: -d: bad delay' "$W/bad2.err"
