#!/bin/bash
# script_fields.sh: `scorch script -F FIELDS`, `-G` and the sample filters
# (--pid, --tid, --comms/--comm, -C, --time) and times (--ns, --reltime,
# --deltatime) against `perf script`
# with the same options, byte for byte, on recordings made here (no call
# chains; frame pointers; a fixed period; DWARF; system-wide with CPUs;
# tracepoints with call chains; pipe format) and on a peer recording
# (LBR for -G): the fields given, +field/-field changes of perf's
# defaults, fields an event does not sample (perf's message, exit status
# 2 where perf fails), -G alone and with -F, the filters alone and with -F
# and -G (ids, commands and CPUs the recording has, open time ranges).
# Then -j 2 and -j 3 print what
# -j 1 prints, and -F's own errors (an unknown field, one scorch does not
# print, type:fields, +f mixed with f, nothing).
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
if ! command -v perf > /dev/null; then
	fail "script_fields: perf is not installed (scripts/deps.sh installs it)"
	exit 0
fi
WL="for i in 1 2 3; do ls / > /dev/null; done; dd if=/dev/zero bs=1M count=40 2> /dev/null | md5sum > /dev/null"
perf record -q -e cpu-clock -F 2000 -o "$W/nocg.data" -- sh -c "$WL" > /dev/null 2>&1
perf record -q -e cpu-clock -F 2000 -g -o "$W/fp.data" -- sh -c "$WL" > /dev/null 2>&1
perf record -q -e cpu-clock -c 200000 -o "$W/fixed.data" -- sh -c "$WL" > /dev/null 2>&1
perf record -q -e cpu-clock -F 500 --call-graph dwarf,8192 -o "$W/dwarf.data" \
	"$TOP/build/workloads/cxx" > /dev/null 2>&1
perf record -q -a -e cpu-clock -F 500 -g -o "$W/sys.data" -- sh -c "$WL" > /dev/null 2>&1
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2> /dev/null
perf record -q -g -e sched:sched_switch,sched:sched_wakeup -o "$W/tp.data" -- sh -c "$WL" > /dev/null 2>&1
perf record -q -e cpu-clock -F 2000 -g -o - -- sh -c "$WL" > "$W/pipe.data" 2> /dev/null
for n in nocg fp fixed dwarf sys tp pipe; do
	[ -s "$W/$n.data" ] || fail "script_fields: perf record $n"
done

# same NAME FILE ARGS...: stdout equal line for line, but for the
# differences script_parity.py names and explains (the stripped entry
# point, perf's chains that stop early, PLT entries perf 6.1 does not
# name...); when perf fails, scorch exits 2 with
# perf's message (spaces aside: perf 6.1 writes "notselected")
same() {
	local n=$1 f=$2
	shift 2
	perf script -i "$f" "$@" > "$W/p.txt" 2> "$W/p.err"
	local prc=$?
	"$SCORCH" script -i "$f" "$@" > "$W/s.txt" 2> "$W/s.err"
	local rc=$?
	if [ $prc != 0 ]; then
		local pm sm
		pm=$(grep -v '^ *$' "$W/p.err" | head -1 | tr -d ' ')
		sm=$(head -1 "$W/s.err" | sed "s|^scorch: $f: ||" | tr -d ' ')
		if [ $rc = 2 ] && [ -n "$pm" ] && [ "$pm" = "$sm" ] && [ ! -s "$W/s.txt" ]; then
			pass "script_fields $n: perf's error, exit 2"
		else
			fail "script_fields $n: perf failed ($prc: $(head -1 "$W/p.err")), scorch $rc: $(head -1 "$W/s.err")"
		fi
	elif [ $rc = 0 ] && cmp -s "$W/p.txt" "$W/s.txt"; then
		pass "script_fields $n ($(wc -l < "$W/s.txt") lines, the same)"
	elif [ $rc = 0 ] && python3 "$TOP/tests/tools/script_parity.py" "$n" "$W/p.txt" "$W/s.txt" > "$W/r"; then
		pass "script_fields $(head -1 "$W/r" | sed 's/^RESULT //')"
	else
		fail "script_fields $n: exit $rc, $(head -1 "$W/s.err")"
		head -8 "$W/r"
	fi
}

SPECS="comm,tid,time comm,pid,tid,time,event,ip,sym,dso ip,sym ip ip,dso sym pid tid,pid
comm,tid,cpu,time,event,ip,sym,symoff,dso tid,period,event comm,ip,sym,symoff,dso event time
ip,sym,symoff +pid -time -ip -comm -event -period,-dso +pid,-time,-cpu cpu +cpu addr -sym
trace comm,tid,trace event,trace +trace -trace ip,sym,dso,trace"
# Every output with call chains is compared as any other: a line that
# differs from perf's is one of script_parity.py's named kinds (each with
# the pattern it allows and why perf prints it so), or the check fails.
# First each recording with the default fields.
for n in nocg fp fixed dwarf sys tp pipe; do
	same "$n (default fields)" "$W/$n.data"
done
# same_rec REC NAME ARGS...: same on recording REC
same_rec() {
	local n=$1 name=$2
	shift 2
	same "$name" "$W/$n.data" "$@"
}
for n in nocg fp fixed dwarf sys tp pipe; do
	for spec in $SPECS; do
		case $n:$spec in
		dwarf:*trace* | dwarf:*cpu* | dwarf:*pid* | dwarf:-sym | dwarf:addr | dwarf:event | dwarf:time) continue ;;
		esac
		same_rec $n "$n -F $spec" -F "$spec"
	done
	for spec in "" "-F comm,tid,ip,sym,dso" "-F +pid" "-F ip"; do
		# shellcheck disable=SC2086
		same "$n -G $spec" "$W/$n.data" -G $spec
	done
done
for f in "$TOP/tests/data/peer/vector_static_gcc/perf.data" "$TOP/tests/data/peer/vector_static_gcc/perf.lbr.data"; do
	# (their binaries are not here: the call chains differ as in
	# script_parity.sh; the headers and -G's lines do not)
	n=peer/$(basename "$f")
	for spec in comm,tid,time,event +pid,-time,-ip comm,pid,tid,period; do
		same "$n -F $spec" "$f" -F "$spec"
	done
	same "$n -G" "$f" -G
	same "$n -G -F ip,sym,dso" "$f" -G -F ip,sym,dso
done

# the filters: what the system-wide recording has (a busy thread, its
# command, CPU 0, the middle of the recording)
sys=$W/sys.data
perf script -i "$sys" -F pid,tid,comm,cpu,time > "$W/ids.txt" 2> /dev/null
# lines "COMM PID/TID [CPU] TIME:"; the busiest thread but the idle one
read -r pid0 tid0 comm0 < <(awk 'NF == 4 { split($2, a, "/"); if (a[2] != 0) n[a[1] " " a[2] " " $1]++ }
	END { for (k in n) print n[k], k }' "$W/ids.txt" | sort -rn | awk '{ print $2, $3, $4; exit }')
tmid=$(awk '{ t[NR] = $NF } END { print t[int(NR / 2)] }' "$W/ids.txt" | tr -d :)
tfirst=$(awk 'NR == 1 { print $NF }' "$W/ids.txt" | tr -d :)
if [ -n "$tid0" ] && [ -n "$pid0" ] && [ -n "$tmid" ]; then
	for args in "--pid $pid0" "--tid $tid0,0" "--comms $comm0" "--comm swapper,$comm0" "-c $comm0" \
		"-C 0" "-C 0-1" "--time $tmid," "--time ,$tmid" "--time $tfirst,$tmid" \
		"--pid $pid0 -F comm,tid,time,ip,sym" "-C 1 -G" "--tid $tid0 --time $tmid, -F +pid"; do
		# shellcheck disable=SC2086
		same_rec sys "sys $args" $args
	done
	same_rec tp "tp -C 1" -C 1
	same_rec dwarf "dwarf --comms cxx -F comm,tid,ip,sym" --comms cxx -F comm,tid,ip,sym
	same_rec pipe "pipe --comms sh" --comms sh
	same "nocg -C 0 (no CPU in the samples)" "$W/nocg.data" -C 0
	# the times shown: 9 decimals, since the first sample shown, since the
	# one before (of those shown)
	for args in "--ns" "--reltime" "--deltatime" "--reltime --ns -F comm,time" "--deltatime -C 1" \
		"--reltime --pid $pid0" "--ns -F tid,ip -G" "--deltatime --time $tmid,"; do
		# shellcheck disable=SC2086
		same_rec sys "sys $args" $args
	done
	same_rec tp "tp --deltatime" --deltatime
	same_rec pipe "pipe --reltime --ns" --reltime --ns
else
	fail "script_fields: no thread, command or time found in the system-wide recording"
fi

# -j N: the same bytes, the same errors (blocks of 7 records)
for n in dwarf tp sys; do
	for args in "-F comm,tid,ip,sym" "-F +pid,-period" "-G" "-F trace" "-F cpu" "-C 1 --time ${tmid:-1}," \
		"--comms swapper,cxx" "--reltime -C 1" "--deltatime" "--ns -F comm,time"; do
		# shellcheck disable=SC2086
		"$SCORCH" script -i "$W/$n.data" $args -j 1 > "$W/j1.txt" 2> "$W/j1.err"
		r1=$?
		for j in 2 3; do
			# shellcheck disable=SC2086
			"$SCORCH" script --block-records 7 -i "$W/$n.data" $args -j $j > "$W/jn.txt" 2> "$W/jn.err"
			r2=$?
			check "script_fields $n $args: -j $j as -j 1 (exit $r1)" \
				[ $r1 = $r2 -a "$(cmp "$W/j1.txt" "$W/jn.txt" 2>&1)$(cmp "$W/j1.err" "$W/jn.err" 2>&1)" = "" ]
		done
	done
done

# -F's own errors: one line, exit 2, nothing printed
bad() { # NAME SPEC WHAT
	"$SCORCH" script -i "$W/fp.data" -F "$2" > "$W/o.txt" 2> "$W/o.err"
	local rc=$?
	check "script_fields -F '$2': $1 (exit $rc: $(head -1 "$W/o.err"))" \
		[ $rc = 2 -a ! -s "$W/o.txt" -a "$(wc -l < "$W/o.err")" = 1 -a -n "$(grep -F -- "$3" "$W/o.err")" ]
}
bad "unknown field" bogus "invalid field 'bogus'"
bad "a perf field scorch does not print" comm,srcline "field 'srcline' is not supported"
bad "fields of one event type" sw:comm,tid "type:fields"
bad "+field mixed with fields" +pid,time "cannot mix"
bad "fields mixed with +field" pid,+time "cannot mix"
bad "nothing" "" "no field given"
# and the filters'
badf() { # NAME OPTION VALUE WHAT
	"$SCORCH" script -i "$W/fp.data" "$2" "$3" > "$W/o.txt" 2> "$W/o.err"
	local rc=$?
	check "script_fields $2 '$3': $1 (exit $rc: $(head -1 "$W/o.err"))" \
		[ $rc = 2 -a ! -s "$W/o.txt" -a "$(wc -l < "$W/o.err")" = 1 -a -n "$(grep -F -- "$4" "$W/o.err")" ]
}
badf "not a number" --pid 12,x "'x' is not a process id"
badf "not a number" --tid -1 "'-1' is not a thread id"
badf "a range backwards" -C 3-1 "'3-1' is not a CPU"
badf "beyond 1023" -C 4096 "'4096' is not a CPU"
badf "percentages" --time 10%/2 "percentages are not supported"
badf "one time" --time 12.5 "is not START,STOP"
badf "backwards" --time 20,10 "is not START,STOP"
badf "ten decimals" --time 1.0123456789, "is not START,STOP"
badf "both relative times" --reltime --deltatime "choose one"
