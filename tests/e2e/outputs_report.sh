#!/bin/bash
# outputs_report.sh: scorch report / export folded / export pprof against
# their peers on a recording of a known program (tests/tools/
# outputs_workload.sh): sample and period totals, the top entries of
# `perf report --stdio` (children and self; per DSO while symbols are
# missing), filters, `go tool pprof -top`, the progress bar, errors, and
# the ASan build on the same file.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/tools/outputs_workload.sh"
CHK="python3 $TOP/tests/tools/outputs_check.py"
S=$SCORCH
check_not() { # check_not NAME CMD...: PASS when CMD fails
	local n=$1; shift
	if "$@"; then fail "$n"; else pass "$n"; fi
}

n=$("$S" stats -i "$DATA" | sed -n 's/^samples: //p')
period=$(perf report -i "$DATA" --stdio 2>/dev/null | sed -n 's/^# Event count (approx.): //p' | head -1)

# ---- report ----
"$S" report -i "$DATA" > "$W/r" 2> "$W/r.err"
check "report runs" [ -s "$W/r" ]
grep -q "^# Samples: $n of event 'cpu-clock" "$W/r" && grep -q "^# Event count: $period" "$W/r"
check "report totals: $n samples, event count $period (= stats, perf report)" [ $? = 0 ]
for wd in 60 80 120; do
	"$S" report -i "$DATA" -w $wd > "$W/rw"
	$CHK width "report -w $wd fits" "$W/rw" $wd
done

if [ "$HAVE_SYMS" = 1 ]; then
	perf report -i "$DATA" --stdio --children --sort comm,dso,sym 2>/dev/null > "$W/p"
	$CHK entries "report children top entries == perf report" "$W/r" "$W/p" --top 10 --tol 0.3
	"$S" report -i "$DATA" --no-children > "$W/rs"
	perf report -i "$DATA" --stdio --no-children --sort comm,dso,sym 2>/dev/null > "$W/ps"
	$CHK entries "report --no-children top entries == perf report" "$W/rs" "$W/ps" --top 10 --tol 0.3
	check "report call tree shows outer -> hot_a" grep -qE '^[|` ]+[|`]--[0-9.]+%  hot_a' "$W/r"
else
	skip "report symbol entries" "this build has no symbols yet; per-DSO checks instead"
fi
# per DSO: works without symbols too
"$S" report -i "$DATA" --no-children --sort dso > "$W/rd"
perf report -i "$DATA" --stdio --no-children --sort dso 2>/dev/null > "$W/pd"
$CHK entries "report --sort dso == perf report --sort dso" "$W/rd" "$W/pd" --top 8 --tol 0.3
"$S" report -i "$DATA" --sort comm,dso > "$W/rcd"
perf report -i "$DATA" --stdio --children --sort comm,dso 2>/dev/null > "$W/pcd"
$CHK entries "report --sort comm,dso (children) == perf report" "$W/rcd" "$W/pcd" --top 8 --tol 0.3

# --percent-limit: nothing shown under it
"$S" report -i "$DATA" --percent-limit 5 --top 0 > "$W/rl"
table() { awk '/^#/ { h = 1 } h && /^$/ { exit } h' "$1"; } # the entries table
low=$(table "$W/rl" | grep -E '^ +[0-9.]+%.*\[[.k]\]' | awk '{ v = $1; sub(/%/, "", v); if (v + 0 < 5) print }' | wc -l)
check "report --percent-limit 5 hides entries under 5% ($low shown)" [ "$low" = 0 ]
# --no-children: one percentage column, sorted by self
"$S" report -i "$DATA" --no-children --top 0 > "$W/rn"
table "$W/rn" | grep -E '^ +[0-9.]+%.*\[[.k]\]' | awk '{ v = $1; sub(/%/, "", v); print v }' > "$W/selfcol"
check "report --no-children sorted by self" cmp -s "$W/selfcol" <(sort -rn "$W/selfcol")
check_not "report --no-children has no Children column" grep -q Children "$W/rn"

# filters: the worker thread alone
wn=$(perf script -i "$DATA" -F comm 2>/dev/null | awk '$1 == "worker"' | wc -l)
"$S" report -i "$DATA" --comm worker > "$W/rc"
check "report --comm worker: $wn samples (perf script)" grep -q "^# Samples: $wn of" "$W/rc"
wtid=$(perf script -i "$DATA" -F comm,tid 2>/dev/null | awk '$1 == "worker" { print $2; exit }')
# by tid, against perf's count for that tid: a sample can land between the
# thread's start and its pthread_setname_np, under the program's comm (a CI
# run under load had one such sample, so --comm and --tid differed by it)
wtn=$(perf script -i "$DATA" -F tid 2>/dev/null | awk -v t="$wtid" '$1 == t' | wc -l)
"$S" report -i "$DATA" --tid "$wtid" > "$W/rt"
check "report --tid $wtid: $wtn samples (perf script)" grep -q "^# Samples: $wtn of" "$W/rt"
pid=$(perf script -i "$DATA" -F pid 2>/dev/null | head -1 | tr -d ' ')
"$S" report -i "$DATA" --pid "$pid" > "$W/rp"
check "report --pid $pid: all $n samples" grep -q "^# Samples: $n of" "$W/rp"
"$S" report -i "$DATA" --pid 1 > "$W/rp1"
check "report --pid 1: no samples" grep -q "^# Samples: 0 of" "$W/rp1"

# a pipe (perf record -o -) and two events
perf record -q -e cpu-clock -F 999 -g -o - -- "$PROG" 0.3 2> /dev/null > "$W/pipe.data"
pn=$("$S" stats -i - < "$W/pipe.data" | sed -n 's/^samples: //p')
"$S" report -i - < "$W/pipe.data" > "$W/rpipe"
check "report -i - (a pipe stream): $pn samples" grep -q "^# Samples: ${pn:-x} of" "$W/rpipe"
perf record -q -e cpu-clock,task-clock -F 999 -g -o "$W/two.data" -- "$PROG" 0.3 > /dev/null 2>&1
for ev in cpu-clock task-clock; do
	pe=$(perf report -i "$W/two.data" --stdio 2>/dev/null | grep -A1 "^# Samples: .* of event '$ev'" |
		sed -n 's/^# Event count (approx.): //p')
	"$S" report -i "$W/two.data" --event $ev > "$W/r2"
	check "report --event $ev of two: event count $pe (perf report)" grep -q "^# Event count: ${pe:-x}" "$W/r2"
done
check "report of two events says the other is not counted" grep -q "^# Not counted: [1-9][0-9]* samples of other events" "$W/r2"

# ---- folded ----
"$S" export -f folded -i "$DATA" > "$W/folded"
t=$(awk '{ s += $NF } END { print s + 0 }' "$W/folded")
check "folded total $t == $n samples" [ "$t" = "$n" ]
t=$("$S" export -f folded --period -i "$DATA" | awk '{ s += $NF } END { printf "%d", s }')
check "folded --period total $t == event count $period" [ "$t" = "$period" ]
bad=$(grep -cvE '^[^ ]+( [^ ]+)* [0-9]+$' "$W/folded")
check "folded lines are 'frames count' ($bad bad)" [ "$bad" = 0 ]
check "folded stacks start with the command" grep -q '^worker;' "$W/folded"
[ "$HAVE_SYMS" = 1 ] && check "folded has outer;hot_a" grep -q 'outer;hot_a [0-9]' "$W/folded"

# ---- pprof ----
"$S" export -f pprof -i "$DATA" -o "$W/p.pb.gz"
check "pprof is gzip" [ "$(head -c2 "$W/p.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ]
if command -v go > /dev/null; then
	go tool pprof -top -symbolize=none -sample_index=samples "$W/p.pb.gz" > "$W/pt" 2> "$W/pt.err"
	check "go tool pprof reads it: $n samples total" grep -q "of $n total" "$W/pt"
	go tool pprof -top -symbolize=none "$W/p.pb.gz" > "$W/ptc" 2>&1
	check "go tool pprof: type cpu" grep -q '^Type: cpu' "$W/ptc"
	if [ "$HAVE_SYMS" = 1 ]; then
		"$S" report -i "$DATA" --no-children --sort sym > "$W/rsym"
		$CHK pprof "go tool pprof -top flat% == scorch report self%" "$W/ptc" "$W/rsym" --top 6
		go tool pprof -traces -symbolize=none "$W/p.pb.gz" > "$W/ptr" 2>&1
		check "pprof traces have hot_a under outer" grep -qzP 'hot_a\n\s+outer' "$W/ptr"
		go tool pprof -top -nodefraction=0 -symbolize=none -tagfocus=comm=worker -sample_index=samples "$W/p.pb.gz" > "$W/ptw" 2>&1
		check "pprof comm label: worker has $wn samples" grep -q "accounting for $wn, " "$W/ptw"
	fi
else
	skip pprof "go is not installed"
fi

# ---- progress bar (a terminal on stderr) ----
if command -v script > /dev/null; then
	SCORCH_PROGRESS_DELAY=0 script -qec "$S report -i $DATA -o /dev/null" /dev/null > "$W/tty" 2>&1
	check "progress bar on a terminal" grep -qa 'scorch: reading \[' "$W/tty"
	# the bar waits (1 s by default) before it draws: a run shorter than
	# the wait draws none (a long wait, so a loaded machine cannot outlast it)
	SCORCH_PROGRESS_DELAY=120 script -qec "$S report -i $DATA -o /dev/null" /dev/null > "$W/tty2" 2>&1
	check_not "no bar for a run shorter than the wait" grep -qa 'scorch: reading' "$W/tty2"
fi
SCORCH_PROGRESS_DELAY=0 "$S" report -i "$DATA" > /dev/null 2> "$W/notty"
check "no progress bar when stderr is not a terminal" [ ! -s "$W/notty" ]

# ---- errors ----
"$S" report -i "$W/missing.data" > /dev/null 2> "$W/e1"; rc=$?
m=$(grep -c "missing.data" "$W/e1")
check "report of a missing file: exit 2 and a message (rc $rc)" [ $rc = 2 -a "$m" -gt 0 ]
"$S" report --sort bogus -i "$DATA" > /dev/null 2> "$W/e2"; rc=$?
m=$(grep -c bogus "$W/e2")
check "report --sort bogus: exit 2 and says why" [ $rc = 2 -a "$m" -gt 0 ]
"$S" export -f nope -i "$DATA" > /dev/null 2>&1; rc=$?
check "export -f nope: exit 2" [ $rc = 2 ]
"$S" flame --frobnicate > /dev/null 2>&1; rc=$?
check "flame unknown option: exit 2" [ $rc = 2 ]
head -c 3000 "$DATA" > "$W/trunc.data"
"$S" report -i "$W/trunc.data" > /dev/null 2> "$W/e3"; rc=$?
check "report of a truncated file: no crash (rc $rc)" [ $rc -lt 128 ]

# ---- a parallel build recorded with DWARF call graphs: report and flame
# read it whole (their time next to script's: bench/run-all.sh) ----
objs=""
for f in report flame profile pprof speedscope folded; do objs="$objs $W/b/obj/src/output/$f.o"; done
perf record -q -e cpu-clock -F 499 --call-graph dwarf -o "$W/build.data" -- \
	make -s -C "$TOP" -j2 B="$W/b" $objs > /dev/null 2>&1
if [ -s "$W/build.data" ]; then
	"$S" report -i "$W/build.data" > "$W/build.rep" 2> "$W/build.err"; rr=$?
	"$S" flame -i "$W/build.data" -o "$W/build.html" 2>> "$W/build.err"; rf=$?
	check "DWARF parallel build: report (rc $rr) and flame (rc $rf) read it" \
		[ $rr = 0 -a $rf = 0 -a -s "$W/build.rep" -a -s "$W/build.html" ]
fi

# ---- the sanitizer build on the same file ----
if [ -x "$SCORCH_ASAN" ]; then
	for d in "$DATA" "$W/build.data"; do
		[ -s "$d" ] || continue
		for c in "report" "report --no-children --inline --sort dso,sym -w 50" "report --pid 1" \
			 "flame -o $W/a.html" "flame --icicle -o $W/a.svg" "export -f folded --annotate -o $W/a.f" \
			 "export -f pprof -o $W/a.pb.gz" "export -f speedscope -o $W/a.json" \
			 "export -f speedscope --comm nobody -o $W/a.json"; do
			# the DWARF file is slow under ASan: the commands with most code
			if [ "$d" != "$DATA" ]; then
				case $c in "report"|"report --no-children"*|"flame -o"*|"export -f pprof"*) ;; *) continue ;; esac
			fi
			$SCORCH_ASAN $c -i "$d" > /dev/null 2> "$W/asan"; rc=$?
			if [ $rc = 0 ] && ! grep -q 'Sanitizer\|runtime error' "$W/asan"; then
				pass "asan $c ($(basename "$d"))"
			else
				fail "asan $c ($(basename "$d"), rc $rc)"; head -5 "$W/asan"
			fi
		done
	done
fi
