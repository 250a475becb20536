#!/bin/bash
# live_top.sh: scorch top. --stdio -n N prints N refreshes and exits; the
# workload's hot function shows within 3 refreshes with frame pointers
# (-- CMD) and with DWARF unwinding (-p PID of a binary without frame
# pointers, where only DWARF finds the callers); the full-screen view runs
# in a real terminal (tmux), and its keys are driven with send-keys and read
# back with capture-pane ('a' shows a spinning function's hot instructions
# and hottest line within 3 refreshes).
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

# the header names the event perf_event_open accepted: top's default
# (cycles; cpu-clock where the machine has no hardware PMU) is the event
# perf record's default opens here
perf record -q -o "$W/def.data" -- true > /dev/null 2>&1
ev=$(perf evlist -i "$W/def.data" 2> /dev/null | head -1 | sed 's/:.*//')
"$SCORCH" top --stdio -n 1 -d 0.3 -- "$WL/calls-fp" 20000 > "$W/ev.out" 2> "$W/ev.err"
check "top_stdio_default_event (${ev:-none}, as perf record)" \
	grep -qE "^# refresh 1 at [0-9.]+ s: scorch top: ${ev:-none} [0-9]+ Hz" "$W/ev.out"

# --children: run (the caller of everything) carries nearly all the weight
"$SCORCH" top --stdio -n 2 --children --since-start -e cpu-clock -g -d 0.5 -- "$WL/calls-fp" 20000 > "$W/ch.out" 2>&1
check top_stdio_children awk '/^# refresh 2/{b=1} b && / run$/ { split($2, a, "%"); if (a[1] + 0 > 80) ok=1 } END { exit !ok }' "$W/ch.out"

# --- --off-cpu: where threads wait (tests/workloads/offcpu.c: sleeper
# sleeps 3 x 100 ms, waiter blocks 300 ms on a pipe, spinner spins) ---
# No -n: top runs until the workload has ended (however late a loaded
# machine runs it) and then prints what came after its last refresh; with
# --since-start that last block holds every wait of the run
"$SCORCH" top --stdio --children --since-start --off-cpu -g -d 0.5 --lines 200 -- "$WL/offcpu" "$W/oc.times" > "$W/oc.out" 2> "$W/oc.err"
check top_offcpu_exit test $? = 0
check "top_offcpu_workload_ended ($(tr '\n' ' ' < "$W/oc.times" 2> /dev/null))" grep -q '^spinner ' "$W/oc.times"
check top_offcpu_header grep -qE '^# refresh 1 at .* fp, off-CPU time \|' "$W/oc.out"
awk '/^# refresh /{n++} {b[n] = b[n] $0 "\n"} END {printf "%s", b[n]}' "$W/oc.out" > "$W/oc.last"
check top_offcpu_sleeping grep -qE '%  sleeper +\[unknown\] +\[off-cpu: sleeping\]$' "$W/oc.last"
# the waiting functions carry the time (children), weighted by how long
# each waited: sleeper()'s share to waiter()'s is the ratio of the times
# the two threads measured themselves (oc.times; a wake-up that comes late
# on a loaded machine is in both), within a factor 1.5 (per switch-out
# instead of per time it would be about 3: three sleeps, one read)
share() { # FUNCTION: its children share in the last block
	awk -v fn="$1" '$3 == fn && $NF == fn { split($2, a, "%"); print a[1] + 0; exit }' "$W/oc.last"
}
for fn in sleeper waiter; do
	check "top_offcpu_$fn ($(share $fn)%)" awk -v v="$(share $fn)" 'BEGIN { exit !(v > 0) }'
done
check "top_offcpu_by_time (sleeper $(share sleeper)%, waiter $(share waiter)%; $(tr '\n' ' ' < "$W/oc.times" 2> /dev/null)ms)" \
	awk -v s="$(share sleeper)" -v w="$(share waiter)" '$1 == "sleeper" { ts = $2 } $1 == "waiter" { tw = $2 }
		END { r = (s / w) / (ts / tw); exit !(s > 0 && w > 0 && tw > 0 && r > 2 / 3 && r < 1.5) }' "$W/oc.times"
# spinning is not waiting: spinner() is off the CPU only when preempted
# (however long a loaded machine keeps it off), never asleep: its
# [off-cpu: sleeping] share (none) is below sleeper()'s 300 ms asleep
check top_offcpu_spinner_not_sleeping awk '$5 == "[off-cpu:" && $6 == "sleeping]" { split($2, a, "%"); v[$3] = a[1] + 0 } END { exit !(v["sleeper"] > 0 && v["spinner"] < v["sleeper"]) }' "$W/oc.last"

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

# --- the full-screen view in a real terminal (tmux, 80x24) ---
if ! command -v tmux > /dev/null; then
	echo "SKIP top_tmux (tmux not installed: scripts/deps.sh)"
	exit 0
fi
TS=scorch-top-$$
tmx() { tmux -L "$TS" "$@"; }
trap 'tmx kill-server 2>/dev/null; rm -rf "$W"' EXIT
screen() { tmx capture-pane -p -t "$1"; }
# wait_for PANE REGEX [TRIES]: poll the screen (10 per second) until it matches
wait_for() {
	local i
	for ((i = 0; i < ${3:-150}; i++)); do
		screen "$1" > "$W/screen" 2>/dev/null
		grep -qE "$2" "$W/screen" && return 0
		sleep 0.1
	done
	echo "screen of $1 never matched $2:" >&2
	cat "$W/screen" >&2
	return 1
}
wait_gone() { # PANE REGEX: until the screen no longer matches
	local i
	for ((i = 0; i < 150; i++)); do
		screen "$1" > "$W/screen" 2>/dev/null
		grep -qE "$2" "$W/screen" || return 0
		sleep 0.1
	done
	return 1
}
# refresh number on the screen now
shown_refresh() { sed -n '2s/^refresh \([0-9]*\) .*/\1/p' "$W/screen"; }

tmx -f /dev/null new-session -d -s fp -x 80 -y 24 \
	"$SCORCH top -e cpu-clock -g -d 0.5 -- $WL/calls-fp 60000; echo TOP-EXITED \$?; sleep 60"
check top_tmux_fp_hot wait_for fp ' leaf_mul *$'
r=$(shown_refresh)
check "top_tmux_fp_hot_within_3 (refresh $r)" test "${r:-99}" -le 3
check top_tmux_fp_header grep -qE '^scorch top: cpu-clock 4000 Hz fp \| [0-9]+ samples' "$W/screen"
check top_tmux_fp_columns grep -qE '^ +Self Children +Command +Shared Object +Symbol' "$W/screen"
# 24 rows: the key line is the last one, nothing wrapped or scrolled
check top_tmux_fp_80x24 bash -c "sed -n 24p '$W/screen' | grep -q '^Up/Down select' && awk 'length > 80 { exit 1 }' '$W/screen'"
tmx send-keys -t fp s
check top_tmux_key_sort wait_for fp 'sort: children'
tmx send-keys -t fp w
check top_tmux_key_window wait_for fp 'window: since start'
# the first row (Home) is one of the callers of everything (children sort):
# its call tree, then back
tmx send-keys -t fp Home Enter
check top_tmux_key_tree wait_for fp '^Calls \(callees\)'
check top_tmux_key_tree_callee grep -qE '(compute_|leaf_)' "$W/screen"
tmx send-keys -t fp Down Down PageDown Up
tmx send-keys -t fp Escape
check top_tmux_key_tree_back wait_for fp 'Shared Object +Symbol'
tmx send-keys -t fp d
check top_tmux_key_dso wait_for fp '\| dso: [^ ]+'
dso=$(sed -n '2s/.*| dso: \([^ ]*\).*/\1/p' "$W/screen")
n=$(sed -n '4,23p' "$W/screen" | grep '%' | grep -vcF "  $dso ")
check "top_tmux_key_dso_rows ($dso, $n others)" test "$n" = 0
tmx send-keys -t fp d c
check top_tmux_key_comm wait_for fp '\| command: calls-fp'
tmx send-keys -t fp c p
check top_tmux_key_pause wait_for fp 'PAUSED'
sed -n '4,23p' "$W/screen" > "$W/p1"
sleep 1.5
screen fp | sed -n '4,23p' > "$W/p2"
check top_tmux_key_pause_frozen cmp -s "$W/p1" "$W/p2"
tmx send-keys -t fp p
check top_tmux_key_unpause wait_gone fp 'PAUSED' 
tmx send-keys -t fp q
check top_tmux_key_quit wait_for fp '^TOP-EXITED 0'
# the terminal is back: alternate screen left, cursor shown
check top_tmux_restored bash -c "! grep -q 'Shared Object' '$W/screen'"

# the default event, in the terminal: named as opened (see above)
tmx -f /dev/null new-session -d -s ev -x 80 -y 24 \
	"$SCORCH top -g -d 0.5 -- $WL/calls-fp 60000; echo TOP-EXITED \$?; sleep 60"
check "top_tmux_default_event (${ev:-none})" wait_for ev "^scorch top: ${ev:-none} [0-9]+ Hz fp \\| [0-9]+ samples"
tmx send-keys -t ev q
check top_tmux_default_event_quit wait_for ev '^TOP-EXITED 0'

# DWARF, -p, in the terminal
"$WL/calls-nofp" 60000 > /dev/null &
wpid=$!
tmx -f /dev/null new-session -d -s dw -x 80 -y 24 \
	"$SCORCH top -e cpu-clock --call-graph dwarf -d 0.5 -p $wpid; echo TOP-EXITED \$?; sleep 60"
check top_tmux_dwarf_hot wait_for dw ' leaf_mul *$'
r=$(shown_refresh)
check "top_tmux_dwarf_hot_within_3 (refresh $r)" test "${r:-99}" -le 3
tmx send-keys -t dw s
check top_tmux_dwarf_children wait_for dw '100\.00%  calls-nofp +(calls-nofp|libc\.so\.6) +(main|run|_start|__libc_start)'
tmx send-keys -t dw q
check top_tmux_dwarf_quit wait_for dw '^TOP-EXITED 0'
kill $wpid 2>/dev/null
wait $wpid 2>/dev/null || true

# 'a': the selected function's annotation, refreshed live.
# tests/workloads/hot_line.c's divide() (the hottest entry: selected at
# the start) spends its time on the divisions and additions of its HOT
# line; the hottest instruction shown is one of them within 3 refreshes
build_workload hot_line.c "$W/hot_line" -O1 -g -fno-omit-frame-pointer
tmx -f /dev/null new-session -d -s an -x 100 -y 50 \
	"$SCORCH top -e cpu-clock -g -d 0.5 -- $W/hot_line 60; echo TOP-EXITED \$?; sleep 60"
check top_tmux_annotate_row wait_for an '%  hot_line +hot_line +divide *$'
tmx send-keys -t an a
check top_tmux_annotate_screen wait_for an '^Annotation, samples since the start'
hottest() { # the mnemonic of the instruction with the largest share on the screen
	awk '$2 == ":" && $3 ~ /^[0-9a-f]+:$/ && $1 + 0 > max { max = $1 + 0; m = $4 } END { print m }' "$W/screen"
}
check top_tmux_annotate_hot wait_for an '^ +[1-9][0-9]?\.[0-9]+ : +[0-9a-f]+: +(addsd|divsd) '
r=$(shown_refresh) h=$(hottest)
check "top_tmux_annotate_hot_within_3 (refresh $r, hottest: $h)" \
	bash -c "[ '${r:-99}' -le 3 ] && [[ '$h' == addsd || '$h' == divsd ]]"
hot=hot_line.c:$(grep -n '/\* HOT \*/' "$WL_SRC/hot_line.c" | cut -d: -f1)
l=$(grep -m1 -A1 '^## hottest lines:' "$W/screen" | tail -1 | awk '{ print $3 }')
check "top_tmux_annotate_hottest_line ($l, the source's HOT line $hot)" [ "$l" = "$hot" ]
# refreshed: the sample count in its heading grows
n1=$(sed -nE 's/^## ([0-9]+) samples, .*/\1/p' "$W/screen")
grown() {
	local i n
	for ((i = 0; i < 100; i++)); do
		screen an > "$W/screen" 2>/dev/null
		n=$(sed -nE 's/^## ([0-9]+) samples, .*/\1/p' "$W/screen")
		[ -n "$n" ] && [ "$n" -gt "${n1:-0}" ] && return 0
		sleep 0.1
	done
	return 1
}
check "top_tmux_annotate_live (from ${n1:-none} samples)" grown
tmx send-keys -t an Escape
check top_tmux_annotate_back wait_for an 'Shared Object +Symbol'
tmx send-keys -t an q
check top_tmux_annotate_quit wait_for an '^TOP-EXITED 0'
