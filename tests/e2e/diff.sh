#!/bin/bash
# diff.sh: scorch diff, flame --diff and export --diff on two recordings of
# two builds of one program (build/workloads/diff/{base,new}/diff_work,
# mk/diff.mk): new's grow() does twice the work. Compared with perf report
# of each side (shares within 2 points) and perf diff (signs of the top
# rows); a third build naming grow() like a GCC clone (grow.constprop.0)
# still matches it; --fail-above around the measured delta; the CSV; the difffolded
# export; the differential flame graph in headless Chromium (no console
# errors, grow drawn red, the tooltip with both sides) and as SVG; pprof
# exports of both through go tool pprof -diff_base; errors; the ASan build.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
S=$SCORCH
CHK="python3 $TOP/tests/tools/diff_check.py"
WLB=$TOP/build/workloads/diff/base/diff_work
WLN=$TOP/build/workloads/diff/new/diff_work
if [ ! -x "$WLB" ] || [ ! -x "$WLN" ]; then
	fail "diff workloads are built (make: mk/diff.mk)"
	exit 0
fi
js() { # js FIELD JSONFILE: a field of the browser driver's JSON line
	python3 -c 'import json,sys; v=json.load(open(sys.argv[2])).get(sys.argv[1]); print(json.dumps(v) if isinstance(v,(list,dict)) else v)' "$1" "$2"
}
B=$W/base.data N=$W/new.data
perf record -q -e cpu-clock -F 2999 -g -o "$B" -- "$WLB" 250 > /dev/null 2>&1
perf record -q -e cpu-clock -F 2999 -g -o "$N" -- "$WLN" 250 > /dev/null 2>&1
check "recorded both builds" [ -s "$B" -a -s "$N" ]
nb=$("$S" stats -i "$B" | sed -n 's/^samples: //p')
nn=$("$S" stats -i "$N" | sed -n 's/^samples: //p')

# ---- the table against perf report and perf diff ----
"$S" diff "$B" "$N" > "$W/d.txt" 2> "$W/d.err"
check "diff runs (exit 0)" [ $? = 0 ]
check "diff heading: $nb and $nn samples" grep -q "^# Baseline: $B: $nb samples of 'cpu-clock'" "$W/d.txt"
check "diff: grow is the first row" \
	bash -c "grep -v '^#' '$W/d.txt' | head -1 | grep -qE '^ +[0-9.]+% +[0-9.]+% +\\+[0-9.]+% .*diff_work +\\[\\.\\] grow$'"
"$S" diff "$B" "$N" -f csv > "$W/d.csv"
check "csv header" [ "$(head -1 "$W/d.csv")" = "symbol,dso,base_pct,new_pct,delta_pct,base_ns,new_ns" ]
perf report -i "$B" --stdio --no-children --sort dso,sym 2> /dev/null > "$W/pb"
perf report -i "$N" --stdio --no-children --sort dso,sym 2> /dev/null > "$W/pn"
$CHK report "$W/d.csv" "$W/pb" "$W/pn" grow --tol 2 --top 5
perf diff "$B" "$N" 2> /dev/null > "$W/pd"
$CHK perfdiff "$W/d.csv" "$W/pd" --top 10
# the times: grow's base_ns and new_ns are the periods perf report sums for
# it on each side (cpu-clock's period is in ns); how their ratio compares
# with the work's (twice) is a measure: bench/run-all.sh
period_of() { # FILE SYMBOL: perf report's period of SYMBOL
	perf report -i "$1" --stdio --no-children --sort sym -F period,sym 2> /dev/null |
		awk -v s="$2" '$2 == "[.]" && $3 == s {print $1; exit}'
}
bns=$(awk -F, '$1 == "grow" {print $6}' "$W/d.csv"); nns=$(awk -F, '$1 == "grow" {print $7}' "$W/d.csv")
pb=$(period_of "$B" grow); pn=$(period_of "$N" grow)
check "grow's base_ns $bns and new_ns $nns are perf report's periods ($pb, $pn)" \
	[ -n "$bns" -a "$bns" = "$pb" -a "$nns" = "$pn" ]

# ---- a clone-named symbol (grow.constprop.0) matches grow ----
WLC=$TOP/build/workloads/diff/clone/diff_work
if [ -x "$WLC" ]; then
	C=$W/clone.data
	perf record -q -e cpu-clock -F 2999 -g -o "$C" -- "$WLC" 250 > /dev/null 2>&1
	perf report -i "$C" --stdio --no-children --sort dso,sym 2> /dev/null > "$W/pc"
	check "perf report names the clone build's function grow.constprop.0" grep -q '\[\.\] grow\.constprop\.0' "$W/pc"
	"$S" diff "$B" "$C" -f csv > "$W/c.csv"
	check "diff folds the clone suffix: no grow.constprop.0 row" [ "$(grep -c '^grow\.constprop' "$W/c.csv")" = 0 ]
	$CHK report "$W/c.csv" "$W/pb" "$W/pc" grow --tol 2 --top 5
else
	fail "clone workload is built (mk/diff.mk)"
fi

# ---- --fail-above around grow's delta ----
delta=$(awk -F, '$1 == "grow" { print $5 }' "$W/d.csv")
lo=$(python3 -c "print(round(float('$delta') - 1, 2))")
hi=$(python3 -c "print(round(float('$delta') + 1, 2))")
"$S" diff "$B" "$N" --fail-above "$lo" > "$W/f1" 2> "$W/f1.err"
rc=$?
check "--fail-above $lo (grow grew $delta): exit 1" [ $rc = 1 ]
check "--fail-above $lo prints the offending row (grow)" grep -q '\[\.\] grow$' "$W/f1.err"
check "--fail-above $lo: only grow offends" [ "$(grep -c '\[\.\]' "$W/f1.err")" = 1 ]
"$S" diff "$B" "$N" --fail-above "$hi" > "$W/f2" 2> "$W/f2.err"
check "--fail-above $hi: exit 0, nothing on stderr" [ $? = 0 -a ! -s "$W/f2.err" ]
"$S" diff "$B" "$N" -f csv --fail-above "$lo" > "$W/f3" 2> "$W/f3.err"
rc=$?
grep -q '^grow,diff_work,' "$W/f3.err" && cmp -s "$W/f3" "$W/d.csv"
check "csv --fail-above: exit 1, the csv row on stderr, stdout the csv" [ $rc = 1 -a $? = 0 ]

# ---- options ----
"$S" diff "$B" "$N" --top 3 > "$W/t3"
check "--top 3: three rows" [ "$(grep -c '^ .*%' "$W/t3")" = 3 ]
"$S" diff "$B" "$N" --percent-limit 10 --top 0 > "$W/pl"
check "--percent-limit 10: the four work functions only" [ "$(grep -c '^ .*%' "$W/pl")" = 4 ]
"$S" diff "$B" "$N" --children --top 0 -w 140 > "$W/ch"
check "--children: a total column, main about 0 change" \
	bash -c "grep -q '^# Base tot' '$W/ch' && grep -qE '^ +9[0-9.]+% +9[0-9.]+% +[-+]0\\.[0-9]+% .*\\[\\.\\] __libc_start_call_main$' '$W/ch'"
"$S" diff "$B" "$N" --sort comm,dso,sym --top 2 > "$W/sc"
check "--sort comm,dso,sym: a Command column" grep -qE '^ .*% .* +diff_work +diff_work +\[\.\] grow$' "$W/sc"
"$S" diff "$B" "$N" --absolute -f csv > "$W/abs.csv"
# both sides' shares of the baseline's total: their ratio is grow's new_ns/base_ns
ab=$(awk -F, '$1 == "grow" { printf "%.4f", $4 / $3 }' "$W/abs.csv")
check "--absolute: grow's shares of the baseline's time are in the ratio of its ns ($ab, $nns/$bns)" \
	python3 -c "import sys; sys.exit(0 if abs(float('${ab:-0}') - ${nns:-0} / ${bns:-1}) < 0.001 else 1)"
"$S" diff "$B" "$N" --comm nosuchcomm > "$W/nc" 2> "$W/nc.err"
check "--comm filter applies to both sides (no samples warned)" [ "$(grep -c 'warning: no samples' "$W/nc.err")" = 2 ]
"$S" diff "$B" "$B" -f csv > "$W/same.csv"
check "a file against itself: every delta 0" \
	[ "$(awk -F, 'NR > 1 && $5 != "0.0000"' "$W/same.csv" | wc -l)" = 0 ]

# ---- errors ----
"$S" diff "$B" > /dev/null 2> "$W/e1"
rc=$?
check "one file: exit 2 with usage" [ $rc = 2 -a "$(grep -c 'give two files' "$W/e1")" = 1 ]
"$S" diff "$B" "$W/nope.data" > /dev/null 2> "$W/e2"
rc=$?
check "missing file: exit 2, named" [ $rc = 2 -a "$(grep -c "nope.data" "$W/e2")" -ge 1 ]
# cut inside the first record's header: a cut that falls on a record
# boundary is a recording cut short, which is read as far as it goes (as
# perf does), so the cut must be inside a record to be an error
doff=$(od -An -t u8 -j 40 -N 8 "$N" | tr -d ' ')
head -c $((doff + 4)) "$N" > "$W/cut.data"
"$S" diff "$B" "$W/cut.data" > /dev/null 2> "$W/e3"
rc=$?
check "truncated file: exit 2, one located error line ($(head -1 "$W/e3"))" \
	[ $rc = 2 -a "$(grep -c "^scorch: $W/cut.data: " "$W/e3")" -ge 1 ]
"$S" diff "$B" "$N" --sort bogus > /dev/null 2>&1
check "bad --sort: exit 2" [ $? = 2 ]
"$S" diff "$B" "$N" -f xml > /dev/null 2>&1
check "bad format: exit 2" [ $? = 2 ]

# ---- difffolded ----
"$S" export -f folded --diff "$B" "$N" > "$W/df" 2> /dev/null
$CHK folded "$W/df" "$nb" "$nn" grow
"$S" export -f pprof --diff "$B" "$N" -o "$W/x.pb.gz" 2> "$W/e4"
rc=$?
check "export -f pprof --diff: refused, pointing to -diff_base" [ $rc = 2 -a "$(grep -c diff_base "$W/e4")" = 1 ]

# ---- flame --diff ----
"$S" flame --diff "$B" "$N" -o "$W/d.svg" 2> /dev/null
python3 "$TOP/tests/tools/outputs_check.py" svg "flame --diff SVG is well-formed" "$W/d.svg"
check "flame --diff SVG: grow's tooltip has both sides, red" \
	grep -qE '<title>grow \[diff_work\] \([0-9]+ samples, [0-9.]+%\) baseline: [0-9]+ samples, [0-9.]+%, change \+[0-9.]+ points</title><rect [^>]*fill="rgb\(255,' "$W/d.svg"
"$S" flame --diff "$B" "$N" -o "$W/d.html" 2> /dev/null
check "flame --diff HTML written" grep -q '"diff":{"absolute":false' "$W/d.html"
"$S" flame --diff "$B" "$N" --diff-mode absolute -o "$W/da.html" 2> /dev/null
check "--diff-mode absolute" grep -q '"diff":{"absolute":true' "$W/da.html"
"$S" flame --diff "$B" "$N" --diff-mode bogus -o "$W/x.html" 2> /dev/null
check "bad --diff-mode: exit 2" [ $? = 2 ]
browser=0
if command -v node > /dev/null && [ -x /usr/bin/chromium ]; then
	"$TOP/scripts/npm-deps.sh" --check || "$TOP/scripts/npm-deps.sh" > /dev/null 2>&1
	"$TOP/scripts/npm-deps.sh" --check && browser=1
fi
if [ $browser = 1 ]; then
	node "$TOP/tests/tools/outputs_browser.mjs" flamediff "$W/d.html" grow "$W/shot.png" > "$W/b.json" 2> "$W/b.err"
	check "flame --diff opens in Chromium with no console errors" [ "$(js errors "$W/b.json")" = "[]" ]
	px=$(js pixel "$W/b.json")
	check "grow is drawn red ($px)" python3 -c "import sys; r,g,b = $px; sys.exit(0 if r >= 200 and g <= 150 and b <= 150 else 1)"
	js tooltip "$W/b.json" > "$W/tip"
	bp=$(awk -F, '$1 == "grow" { printf "%.2f", $3 }' "$W/d.csv")
	np=$(awk -F, '$1 == "grow" { printf "%.2f", $4 }' "$W/d.csv")
	grep -q '^baseline: [0-9.]*%' "$W/tip" && grep -q '^new: *[0-9.]*%' "$W/tip" &&
		grep -q "^self: *baseline $bp%, new $np%" "$W/tip"
	check "tooltip has both sides (self baseline $bp%, new $np%: $(grep -c . "$W/tip") lines)" [ $? = 0 ]
	check "search and zoom work in the diff graph" [ "$(js zoomed "$W/b.json")" = True ]
	check "flame --diff screenshot" [ -s "$W/shot.png" ]
else
	echo "SKIP diff flame graph in Chromium: needs node, /usr/bin/chromium and scripts/npm-deps.sh"
fi

# ---- pprof: go tool pprof -diff_base ----
if command -v go > /dev/null; then
	"$S" export -f pprof -i "$B" -o "$W/b.pb.gz" && "$S" export -f pprof -i "$N" -o "$W/n.pb.gz"
	go tool pprof -top -symbolize=none -diff_base="$W/b.pb.gz" "$W/n.pb.gz" > "$W/pp" 2> "$W/pp.err"
	gline=$(grep -E ' grow$' "$W/pp" | head -1)
	check "go tool pprof -diff_base: grow grew ($gline)" \
		bash -c "awk '\$NF == \"grow\" { exit !(\$1 + 0 > 0) }' '$W/pp' && [ -n \"$gline\" ]"
	sline=$(grep -E ' steady_a$' "$W/pp" | head -1)
	# same work per call, so in time steady_a is about unchanged: |flat| small against grow's
	check "go tool pprof -diff_base: steady_a about unchanged ($sline)" \
		bash -c "awk '\$NF == \"steady_a\" { a = \$1 + 0 } \$NF == \"grow\" { g = \$1 + 0 } END { exit !(g > 0 && (a < 0 ? -a : a) < g / 2) }' '$W/pp'"
else
	echo "SKIP go tool pprof -diff_base: go is not installed"
fi

# ---- the ASan build on the same files ----
if [ -x "$SCORCH_ASAN" ]; then
	"$SCORCH_ASAN" diff "$B" "$N" -f csv > "$W/asan.csv" 2> "$W/asan.err"
	rc=$?
	cmp -s "$W/asan.csv" "$W/d.csv"
	check "ASan build: diff clean and equal" [ $rc = 0 -a $? = 0 -a ! -s "$W/asan.err" ]
	"$SCORCH_ASAN" flame --diff "$B" "$N" -o "$W/asan.html" 2> /dev/null
	rc=$?
	cmp -s "$W/asan.html" "$W/d.html"
	check "ASan build: flame --diff clean and equal" [ $rc = 0 -a $? = 0 ]
	"$SCORCH_ASAN" export -f folded --diff "$B" "$N" > "$W/asan.df" 2> "$W/asan3.err"
	rc=$?
	cmp -s "$W/asan.df" "$W/df"
	check "ASan build: export --diff clean and equal" [ $rc = 0 -a $? = 0 -a ! -s "$W/asan3.err" ]
else
	echo "SKIP diff under ASan: no build/asan/scorch (make asan)"
fi
