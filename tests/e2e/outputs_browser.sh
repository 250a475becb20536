#!/bin/bash
# outputs_browser.sh: the flame graph (HTML, SVG) and the speedscope export
# opened the way users open them: the HTML in headless Chromium (no console
# errors, search finds a known function with the right percentage, tooltip,
# zoom, icicle; fast on a profile with thousands of distinct stacks) and the
# speedscope JSON imported by speedscope itself (npm package) in Chromium,
# plus a check against speedscope's file-format schema. Chromium is driven by
# playwright-core (build/node_modules, scripts/npm-deps.sh) with the system's
# /usr/bin/chromium; without them those checks are SKIPped and the schema
# check still runs.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/tools/outputs_workload.sh"
CHK="python3 $TOP/tests/tools/outputs_check.py"
S=$SCORCH
n=$("$S" stats -i "$DATA" | sed -n 's/^samples: //p')

browser=0
if command -v node > /dev/null && [ -x /usr/bin/chromium ]; then
	"$TOP/scripts/npm-deps.sh" --check || "$TOP/scripts/npm-deps.sh" > /dev/null 2>&1
	"$TOP/scripts/npm-deps.sh" --check && browser=1
fi
[ $browser = 1 ] || skip "browser checks" "needs node, /usr/bin/chromium and scripts/npm-deps.sh"
js() { # js FIELD JSONFILE: a field of the driver's JSON line
	python3 -c 'import json,sys; v=json.load(open(sys.argv[2])).get(sys.argv[1]); print(json.dumps(v) if isinstance(v,(list,dict)) else v)' "$1" "$2"
}

# the function to search for, and the percentage of the weight under it
if [ "$HAVE_SYMS" = 1 ]; then term=hot_a; else term='\[outtest\]'; fi
"$S" export -f folded --period -i "$DATA" > "$W/fp"
expect=$(python3 - "$W/fp" "$term" <<'PY'
import re, sys
tot = hit = 0
for l in open(sys.argv[1]):
    stack, c = l.rsplit(' ', 1)
    tot += int(c)
    if any(re.search(sys.argv[2], f) for f in stack.split(';')):
        hit += int(c)
print('%.4f' % (100.0 * hit / tot))
PY
)

# ---- HTML ----
"$S" flame -i "$DATA" -o "$W/f.html" 2> "$W/f.err"
check "flame writes HTML ($(wc -c < "$W/f.html") bytes)" grep -q '<canvas' "$W/f.html"
check "flame HTML is self-contained (no http references)" [ "$(grep -c 'http' "$W/f.html")" = 0 ]
"$S" flame -i "$DATA" -o - > "$W/f2.html"
check "flame -o - writes stdout" cmp -s "$W/f.html" "$W/f2.html"
if [ $browser = 1 ]; then
	node "$TOP/tests/tools/outputs_browser.mjs" flame "$W/f.html" "$term" "$W/shot.png" > "$W/b.json" 2> "$W/b.err"
	check "flame opens in Chromium with no console errors" [ "$(js errors "$W/b.json")" = "[]" ]
	m=$(js matched "$W/b.json")
	ok=$(python3 -c "print(1 if abs(float('${m:-0}') - float('$expect')) < 0.05 else 0)")
	check "flame search '$term' matches $m% (expected $expect%)" [ "$ok" = 1 ]
	check "flame tooltip on hover" [ -n "$(js tooltip "$W/b.json")" ]
	check "flame base (root row) is in view when opened" [ "$(js base_visible "$W/b.json")" = True ]
	check "flame click-zoom to '$term'" [ "$(js zoomed "$W/b.json")" = True ]
	check "flame icicle toggle" [ "$(js icicle "$W/b.json")" = True ]
	check "flame samples in page == $n" [ "$(js samples "$W/b.json")" = "$n" ]
	check "flame screenshot" [ -s "$W/shot.png" ]
fi

# ---- SVG ----
"$S" flame -i "$DATA" -o "$W/f.svg" 2> /dev/null
$CHK svg "flame SVG is well-formed with frames" "$W/f.svg"
[ "$HAVE_SYMS" = 1 ] && check "flame SVG names hot_a" grep -q '<title>hot_a' "$W/f.svg"
"$S" flame --icicle --svg -i "$DATA" -o "$W/icicle.out" 2> /dev/null
$CHK svg "flame --icicle --svg" "$W/icicle.out"

# ---- speedscope ----
"$S" export -f speedscope -i "$DATA" -o "$W/s.json"
period=$("$S" export -f folded --period -i "$DATA" | awk '{ s += $NF } END { printf "%d", s }')
$CHK speedscope "speedscope export follows the file-format schema" "$W/s.json" "$period"
if [ $browser = 1 ]; then
	node "$TOP/tests/tools/outputs_browser.mjs" speedscope "$W/s.json" "outtest (pid" > "$W/ss.json" 2> "$W/ss.err"
	check "speedscope (npm $(python3 -c 'import json;print(json.load(open("'"$TOP"'/build/node_modules/speedscope/package.json"))["version"])')) imports it in Chromium with no errors" \
		[ "$(js errors "$W/ss.json")" = "[]" ]
	check "speedscope shows the thread profile" [ "$(js found "$W/ss.json")" = True ]
fi

# ---- thousands of distinct stacks ----
build_workload many_stacks.c "$W/many" -O0 -fno-omit-frame-pointer
# 2.5 s of CPU and 4 MB rings: ~12,000 samples, kept by perf on a loaded machine too
perf record -q -e cpu-clock -F 4999 -m 1024 -g -o "$W/many.data" -- "$W/many" 2.5 > /dev/null 2>&1
ns=$("$S" export -f folded -i "$W/many.data" | wc -l)
if [ "$HAVE_SYMS" = 1 ]; then
	check "many-stacks recording has thousands of distinct stacks ($ns)" [ "$ns" -ge 2000 ]
else
	skip "distinct stacks" "without symbols they fold into one per DSO: $ns"
fi
# (its time next to script's: bench/run-all.sh)
"$S" flame -i "$W/many.data" -o "$W/many.html" 2> /dev/null
rc=$?
check "flame on $ns stacks (rc $rc)" [ $rc = 0 -a -s "$W/many.html" ]
if [ $browser = 1 ]; then
	node "$TOP/tests/tools/outputs_browser.mjs" flame "$W/many.html" f17 > "$W/m.json" 2> /dev/null
	lm=$(js load_ms "$W/m.json")
	# the load time is printed, not asserted (no timed assertions: the
	# machine may be loaded)
	nn=$(js nodes "$W/m.json")
	check "large flame graph opens with no errors ($nn nodes, ${lm} ms)" \
		[ "$(js errors "$W/m.json")" = "[]" -a "${nn:-0}" -gt 1000 ]
fi
