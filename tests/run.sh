#!/bin/bash
# run.sh: the whole test suite. Runs the unit tests (normal and ASan+UBSan
# builds), every tests/e2e/*.sh (each prints PASS/FAIL lines), and the fuzz
# harnesses for a bounded time; prints one summary line
# "N passed, N failed, N skipped". A check that could not run here prints
# "SKIP name (why)" (lib.sh's skip): it is counted as skipped, never passed,
# and it must be one of tests/known-skips (each listed with its reason): an
# unlisted SKIP is a failure of the run.
# Usage: tests/run.sh [PATTERN]   (only e2e scripts whose name matches PATTERN, an extended regex: 'diff|offcpu')
# Components run TEST_JOBS at a time (default 2: most of them wait on
# workloads and peers a good part of the time); each one's results are
# printed in the order of the list, whichever ends first.
cd "$(dirname "$0")/.." || exit 1
export SCORCH=${SCORCH:-$PWD/build/scorch}
export SCORCH_ASAN=${SCORCH_ASAN:-$PWD/build/asan/scorch}
export TOP=$PWD
log=$(mktemp -d /tmp/scorch-test.XXXXXX)
pass=0; fail=0; skip=0
tally() { # tally NAME LOGFILE: count PASS/FAIL/SKIP lines of a component
	local p f s
	p=$(grep -c '^PASS ' "$2"); f=$(grep -c '^FAIL ' "$2"); s=$(grep -c '^SKIP ' "$2")
	# FAIL and SKIP lines, each FAIL with what the test printed just before
	# and after it (its diagnostics, up to 12 lines each), so a CI log shows why
	awk '/^(PASS|SKIP|FAIL|==) /{ctx = 0}
		/^SKIP /{print} /^PASS /{nb = 0}
		/^FAIL /{for (i = 0; i < nb; i++) print "  | " buf[i]; nb = 0; print; ctx = 12; next}
		!/^(PASS|SKIP|==) / {if (ctx > 0) {print "  | " $0; ctx--} else {if (nb == 12) {for (i = 1; i < 12; i++) buf[i - 1] = buf[i]; nb = 11} buf[nb++] = $0}}' "$2"
	if [ "$p" = 0 ] && [ "$f" = 0 ] && [ "$s" = 0 ]; then
		echo "FAIL $1 (printed no results)"; f=1
		tail -20 "$2"
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	echo "== $1: $p passed, $f failed, $s skipped $(tail -1 "$log/times" 2>/dev/null)"
}
# The components, in order: NAME TIMEOUT CMD... each
names=(); tos=(); cmds=()
add() { names+=("$1"); tos+=("$2"); shift 2; cmds+=("$(printf '%q ' "$@")"); }
add unit 300 build/unit-tests
add unit-asan 600 build/asan/unit-tests
for t in tests/e2e/*.sh; do
	[ -e "$t" ] || continue
	n=$(basename "$t" .sh)
	[ "$n" = lib ] && continue # helpers sourced by the tests
	[ -n "$1" ] && ! [[ "$n" =~ $1 ]] && continue # PATTERN: an extended regex
	add "e2e-$n" 900 bash "$t"
done
start_component() { # I: runs component I in the background; $log/NAME.rc when done
	local name=${names[$1]} to=${tos[$1]}
	(
		t0=$SECONDS
		eval "timeout $to ${cmds[$1]}" > "$log/$name.log" 2>&1
		rc=$?
		echo "($name took $((SECONDS - t0)) s)" > "$log/$name.time"
		echo $rc > "$log/$name.rc"
	) &
	pids[$1]=$!
}
finish_component() { # I: its results, once it has ended
	local name=${names[$1]} rc
	wait "${pids[$1]}" 2> /dev/null
	rc=$(cat "$log/$name.rc")
	if [ "$rc" = 124 ]; then echo "FAIL $name (timed out after ${tos[$1]}s)" >> "$log/$name.log"; fi
	if [ "$rc" != 0 ] && ! grep -q '^FAIL ' "$log/$name.log"; then
		echo "FAIL $name (exit status $rc)" >> "$log/$name.log"
		tail -30 "$log/$name.log"
	fi
	cat "$log/$name.time" >> "$log/times"
	tally "$name" "$log/$name.log"
}
jobs=${TEST_JOBS:-2}
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done' EXIT
next=0 shown=0
while [ $shown -lt ${#names[@]} ]; do
	running=0
	for ((i = shown; i < next; i++)); do
		[ -e "$log/${names[i]}.rc" ] || running=$((running + 1))
	done
	if [ $running -lt "$jobs" ] && [ $next -lt ${#names[@]} ]; then
		start_component $next
		next=$((next + 1))
	elif [ -e "$log/${names[shown]}.rc" ]; then
		finish_component $shown
		shown=$((shown + 1))
	else
		wait -n
	fi
done
# every SKIP must be a known one (tests/known-skips: PATTERN<tab>WHY)
known_skip() { # LINE (without "SKIP "): 0 when a pattern of the list matches
	local pat why
	while IFS=$'\t' read -r pat why; do
		case $pat in '#'* | '') continue ;; esac
		[[ $1 =~ $pat ]] && return 0
	done < tests/known-skips
	return 1
}
while IFS= read -r line; do
	line=${line#SKIP }
	if ! known_skip "$line"; then
		echo "FAIL unlisted skip: $line (fix what keeps it from running, or list it in tests/known-skips with why)"
		fail=$((fail + 1))
	fi
done < <(cat "$log"/*.log | grep '^SKIP ')
echo "logs: $log"
echo "$pass passed, $fail failed, $skip skipped (the skips allowed: tests/known-skips)"
[ "$fail" = 0 ]
