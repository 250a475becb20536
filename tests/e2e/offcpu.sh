#!/bin/bash
# offcpu.sh: off-CPU and wall-clock time. Records the offcpu
# workload (tests/workloads/offcpu.c: sleeper 3 x 100 ms, waiter 300 ms on a
# pipe, spinner 300 ms on the CPU; each thread prints the time it measured
# itself) with `scorch record --off-cpu -g`, with --call-graph dwarf, and with
# perf (-e cpu-clock -e sched:sched_switch --switch-events -g; -e cs -c 1
# with and without --switch-events), then checks:
#   - report --off-cpu gives sleeper and waiter the wait they measured (5%),
#     and the spinner no voluntary off-CPU time (sleeping + blocked < 5 ms;
#     being preempted on a loaded machine is off-CPU too, and is reported as
#     such, so it is not part of this bound);
#   - report --wall gives each of the three functions its measured time (5%);
#   - folded (integer microseconds), pprof (go tool pprof -sample_index=off_cpu),
#     speedscope and the report agree on the total; flame colours off-CPU;
#   - hotspot's Off-CPU Time, added up from the perfparser stream of
#     scorch-perfparser and of hotspot-perfparser the way hotspot 1.3.0 does
#     (tests/tools/perfparser_decode.py offcpu), is within 1% of the report;
#   - the recording reads in perf and hotspot-perfparser, and a plain report
#     still shows the CPU profile.
# The bounds compare with what the threads measured, not with nominal times:
# on a loaded machine a wake-up can come late, and that is off-CPU time too.
. "$(dirname "$0")/lib.sh"
WL=$TOP/build/workloads/offcpu
DEC=$TOP/tests/tools/perfparser_decode.py
SCORCH_ASAN=${SCORCH_ASAN:-$TOP/build/asan/scorch}

# within PCT A B: |A - B| <= PCT% of B
within() { awk -v p="$1" -v a="$2" -v b="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= b * p / 100) }'; }
below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
measured() { awk -v n="$2" '$1 == n { print $2 }' "$1"; }
# the Time ms column of symbol SYM in `report --sort sym` output
sym_ms() { awk -v s="$2" '$NF == s && $(NF-1) ~ /^\[/ { print $3; exit }' "$1"; }
# a thread's column (5 on-CPU, 6 off-CPU, 7 sleeping, 8 blocked, 9 preempted, 10 other, 11 wall)
thr_ms() { awk -v c="$2" -v k="$3" '$1 == "#" && $2 == c { print $k; exit }' "$1"; }
total_ms() { sed -nE 's/^# Off-CPU time: ([0-9.]+) s.*/\1/p' "$1" | awk '{ print $1 * 1000 }'; }

# checks on one recording: NAME DATA TIMES [full]
analyze() {
	local n=$1 d=$2 tm=$3 full=${4:-}
	"$SCORCH" report --off-cpu -i "$d" --sort sym --top 0 --tree 0 > "$T/$n.off" 2> "$T/$n.off.err"
	check "${n}_report_off_cpu" test $? = 0
	"$SCORCH" report --wall -i "$d" --sort sym --top 0 --tree 0 > "$T/$n.wall" 2> "$T/$n.wall.err"
	check "${n}_report_wall" test $? = 0
	local f m v
	for f in sleeper waiter; do
		m=$(measured "$tm" $f)
		v=$(sym_ms "$T/$n.off" $f)
		echo "$n: $f off-CPU ${v:-none} ms, measured $m ms"
		check "${n}_off_cpu_$f" within 5 "${v:-0}" "$m"
	done
	v=$(thr_ms "$T/$n.off" spinner 7)
	local b
	b=$(thr_ms "$T/$n.off" spinner 8)
	echo "$n: spinner sleeping ${v:-none} ms, blocked ${b:-none} ms, preempted $(thr_ms "$T/$n.off" spinner 9) ms"
	check "${n}_spinner_no_wait" below "$(awk -v a="${v:-99}" -v b="${b:-99}" 'BEGIN { print a + b }')" 5
	for f in sleeper waiter; do
		m=$(measured "$tm" $f)
		v=$(sym_ms "$T/$n.wall" $f)
		echo "$n: $f wall ${v:-none} ms, measured $m ms"
		check "${n}_wall_$f" within 5 "${v:-0}" "$m"
	done
	# the spinner's wall time is its thread's (the table's wall column):
	# on a loaded machine the kernel runs interrupt work on the spinning
	# thread's time, in samples whose stacks need not reach spinner()
	m=$(measured "$tm" spinner)
	v=$(thr_ms "$T/$n.off" spinner 11)
	echo "$n: spinner wall ${v:-none} ms (thread), measured $m ms, in spinner() $(sym_ms "$T/$n.wall" spinner) ms"
	check "${n}_wall_spinner" within 5 "${v:-0}" "$m"
	[ -n "$full" ] || return 0
	local tot
	tot=$(total_ms "$T/$n.off")
	# folded: integer microseconds; their sum is the report's total
	"$SCORCH" export -f folded --off-cpu -i "$d" > "$T/$n.folded"
	check "${n}_folded_integer_us" awk 'NF < 2 || $NF !~ /^[0-9]+$/ { bad = 1 } END { exit bad || NR == 0 }' "$T/$n.folded"
	v=$(awk '{ s += $NF } END { print s / 1000 }' "$T/$n.folded")
	check "${n}_folded_total" within 0.1 "$v" "$tot"
	v=$(awk '/;sleeper;/ { s += $NF } END { print s / 1000 }' "$T/$n.folded")
	check "${n}_folded_sleeper" within 0.1 "$v" "$(sym_ms "$T/$n.off" sleeper)"
	# pprof: off_cpu/nanoseconds next to cpu/nanoseconds
	"$SCORCH" export -f pprof --wall -i "$d" -o "$T/$n.pb.gz"
	if command -v go > /dev/null; then
		go tool pprof -sample_index=off_cpu -top "$T/$n.pb.gz" > "$T/$n.pprof" 2>&1
		v=$(sed -nE 's/.*Total samples = ([0-9.]+)(ms|s).*/\1 \2/p' "$T/$n.pprof" | awk '{ print $2 == "s" ? $1 * 1000 : $1 }')
		check "${n}_pprof_off_cpu_total" within 0.5 "${v:-0}" "$tot"
		check "${n}_pprof_types" grep -q '^Type: off_cpu' "$T/$n.pprof"
		go tool pprof -sample_index=cpu -top "$T/$n.pb.gz" > "$T/$n.pprof.cpu" 2>&1
		check "${n}_pprof_cpu" grep -q '^Type: cpu' "$T/$n.pprof.cpu"
	else
		echo "SKIP ${n}_pprof (go not installed)"
	fi
	# speedscope: weights are nanoseconds, adding up to the total
	"$SCORCH" export -f speedscope --off-cpu -i "$d" > "$T/$n.speedscope.json"
	v=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
assert all(p["unit"] == "nanoseconds" for p in d["profiles"])
print(sum(sum(p["weights"]) for p in d["profiles"]) / 1e6)' "$T/$n.speedscope.json")
	check "${n}_speedscope_total" within 0.1 "${v:-0}" "$tot"
	# flame: nodes mostly off-CPU are flagged for the off-CPU palette
	"$SCORCH" flame --wall -i "$d" -o "$T/$n.html" 2> /dev/null
	check "${n}_flame_off_flags" grep -qE '^"off":\[([01],)*1' "$T/$n.html"
	if command -v node > /dev/null; then
		# the page draws the flagged nodes in the off-CPU palette, and a
		# plain flame graph none
		"$SCORCH" flame -i "$d" -o "$T/$n.plain.html" 2> /dev/null
		v=$(node "$TOP/tests/tools/flame_colours.js" "$T/$n.html")
		b=$(node "$TOP/tests/tools/flame_colours.js" "$T/$n.plain.html")
		echo "$n: flame --wall: $v; plain: $b"
		check "${n}_flame_draws_off_cpu" test "$(echo "$v" | awk '{ print $4 }')" -gt 0
		check "${n}_flame_plain_no_off_cpu" test "$(echo "$b" | awk '$1 == "boxes" && $2 > 0 { print $4 }')" = 0
	else
		echo "SKIP ${n}_flame_draws_off_cpu (node not installed)"
	fi
	"$SCORCH" flame --off-cpu -i "$d" -o "$T/$n.svg" 2> /dev/null
	check "${n}_flame_svg_off_cpu" grep -q 'off-cpu: sleeping' "$T/$n.svg"
	# hotspot's Off-CPU Time from the stream (ours and hotspot-perfparser's)
	"$TOP/build/scorch-perfparser" --input "$d" --output "$T/$n.stream" 2> /dev/null
	v=$(python3 "$DEC" offcpu "$T/$n.stream" | awk '/^total_ns/ { print $2 / 1e6 }')
	echo "$n: hotspot off-CPU via scorch-perfparser ${v:-none} ms, report $tot ms"
	check "${n}_hotspot_offcpu_scorch_pp" within 1 "${v:-0}" "$tot"
	if [ -x "$PERFPARSER" ]; then
		"$PERFPARSER" --input "$d" --output "$T/$n.hstream" 2> /dev/null
		v=$(python3 "$DEC" offcpu "$T/$n.hstream" | awk '/^total_ns/ { print $2 / 1e6 }')
		echo "$n: hotspot off-CPU via hotspot-perfparser ${v:-none} ms"
		check "${n}_hotspot_offcpu_hotspot_pp" within 1 "${v:-0}" "$tot"
	else
		echo "SKIP ${n}_hotspot_offcpu_hotspot_pp (no $PERFPARSER)"
	fi
}

# scorch record --off-cpu -g
"$SCORCH" record -q --off-cpu -g -o "$T/g.data" -- "$WL" "$T/g.times"
check offcpu_record_g test $? = 0
check offcpu_record_g_perf_ok perf_ok "$T/g.data"
check offcpu_record_g_perfparser_ok perfparser_ok "$T/g.data"
n=$(perf script -i "$T/g.data" -F event 2> /dev/null | grep -c 'sched:sched_switch')
check offcpu_record_g_sched_switch test "$n" -ge 8
n=$(perf script -i "$T/g.data" --show-switch-events 2> /dev/null | grep -c 'PERF_RECORD_SWITCH')
check offcpu_record_g_switch_records test "$n" -ge 8
# stacks at switch-out: the waiting function is in them
n=$(perf script -i "$T/g.data" 2> /dev/null | awk 'BEGIN { RS = "" } /sched:sched_switch/ && /waiter/ && /anon_pipe_read|pipe_read/ { n++ } END { print n + 0 }')
check offcpu_record_g_stack_waiter test "$n" -ge 1
"$SCORCH" report -i "$T/g.data" > "$T/g.plain" 2>&1
check offcpu_plain_report_is_cpu grep -q "of event 'cpu-clock'" "$T/g.plain"
analyze g "$T/g.data" "$T/g.times" full
# the thread table follows --comm
"$SCORCH" report --off-cpu --comm waiter -i "$T/g.data" --tree 0 > "$T/g.comm" 2>&1
check offcpu_thread_table_filter test "$(grep -cE '^#   [a-z]' "$T/g.comm")" = 1
# ASan+UBSan build on the same file
if [ -x "$SCORCH_ASAN" ]; then
	"$SCORCH_ASAN" report --wall -i "$T/g.data" > /dev/null 2> "$T/asan.err"
	check offcpu_asan_report test $? = 0
	"$SCORCH_ASAN" export -f speedscope --off-cpu -i "$T/g.data" > /dev/null 2>> "$T/asan.err"
	check offcpu_asan_speedscope test $? = 0
else
	echo "SKIP offcpu_asan (no $SCORCH_ASAN)"
fi

# scorch record --off-cpu --call-graph dwarf
"$SCORCH" record -q --off-cpu --call-graph dwarf -o "$T/d.data" -- "$WL" "$T/d.times"
check offcpu_record_dwarf test $? = 0
analyze d "$T/d.data" "$T/d.times"

# perf's own recording of the same kind
perf record -q -e cpu-clock -e sched:sched_switch --switch-events -g -o "$T/p.data" -- "$WL" "$T/p.times" > /dev/null 2>&1
check offcpu_perf_record test $? = 0
analyze p "$T/p.data" "$T/p.times" full

# perf -e cs -c 1 --switch-events: off-CPU only (no sleep state: "waiting")
perf record -q -e cs -c 1 --switch-events -g -o "$T/c.data" -- "$WL" "$T/c.times" > /dev/null 2>&1
"$SCORCH" report --off-cpu -i "$T/c.data" --sort sym --top 0 --tree 0 > "$T/c.off" 2> /dev/null
for f in sleeper waiter; do
	m=$(measured "$T/c.times" $f)
	v=$(sym_ms "$T/c.off" $f)
	echo "cs: $f off-CPU ${v:-none} ms, measured $m ms"
	check "cs_off_cpu_$f" within 5 "${v:-0}" "$m"
done
check cs_state_waiting grep -q 'off-cpu: waiting' "$T/c.off"
# without switch records: the next sample ends an interval, and a warning says so
perf record -q -e cs -c 1 -g -o "$T/c2.data" -- "$WL" "$T/c2.times" > /dev/null 2>&1
"$SCORCH" report --off-cpu -i "$T/c2.data" --tree 0 > /dev/null 2> "$T/c2.err"
check cs_no_switch_records_warning grep -q 'no context-switch records' "$T/c2.err"
