#!/bin/bash
# flame_lines.sh: the flame graph's line panel. tests/workloads/hot_line.c
# (frame pointers, -O1) recorded under perf: in headless Chromium, clicking
# divide()'s frame opens the panel, whose hottest line is the one the
# source marks HOT, with the share `scorch annotate` gives that line; the
# page carries lines only for functions with enough weight in their own
# code, the differential graph none.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
S=$SCORCH
command -v perf > /dev/null || { skip "flame lines" "no perf"; exit 0; }
js() { # js FIELD JSONFILE: a field of the driver's JSON line
	python3 -c 'import json,sys; v=json.load(open(sys.argv[2])).get(sys.argv[1]); print(json.dumps(v) if isinstance(v,(list,dict)) else v)' "$1" "$2"
}

build_workload hot_line.c "$W/fp" -O1 -g -fno-omit-frame-pointer
hot=hot_line.c:$(grep -n "/\* HOT \*/" "$WL_SRC/hot_line.c" | cut -d: -f1)
if ! perf record -q -N -e cpu-clock -F 4000 -g -o "$W/fp.data" "$W/fp" 0.5 > /dev/null 2> "$W/rec.err"; then
	skip "flame lines" "perf record failed: $(head -1 "$W/rec.err")"
	exit 0
fi
"$S" flame -i "$W/fp.data" -o "$W/f.html" 2> /dev/null
# the page's line data: per function [frame, weight, samples, lines]
python3 - "$W/f.html" > "$W/lines.txt" <<'PY'
import json, re, sys
t = open(sys.argv[1]).read()
m = re.search(r'^const DATA = (\{.*?\});$', t, re.M | re.S)
d = json.loads(m.group(1))
total = d['nodes'][2]
for f, w, n, ls in d.get('lines', []):
    print('%s\t%.2f\t%s' % (d['frames'][f][0], 100.0 * w / total, ' | '.join('%s:%d %d' % (l[0].rsplit('/', 1)[-1], l[1], l[3]) for l in ls)))
PY
nf=$(wc -l < "$W/lines.txt")
check "flame: line data for $nf functions ($(cut -f1,2 "$W/lines.txt" | tr '\t\n' ' ;'))" \
	grep -qP '^divide\t' "$W/lines.txt"
check "flame: only functions with >= 0.5% in their own code carry lines" \
	awk -F'\t' '$2 < 0.5 { bad = 1 } END { exit bad }' "$W/lines.txt"
"$S" flame --diff "$W/fp.data" "$W/fp.data" -o "$W/d.html" 2> /dev/null
check "flame --diff: no line data" [ "$(grep -c '^"lines":' "$W/d.html")" = 0 ]

# what scorch annotate says of divide's hottest line (its counts are perf annotate's)
"$S" annotate -i "$W/fp.data" divide > "$W/a.txt" 2> /dev/null
read -r apct aloc < <(awk '/^## hottest lines:/ { h = 1; next } h && /^## / { print $2, $3; exit }' "$W/a.txt")
check "annotate: divide's hottest line is $hot ($apct $aloc)" [ "$aloc" = "$hot" ]

browser=0
if command -v node > /dev/null && [ -x /usr/bin/chromium ]; then
	"$TOP/scripts/npm-deps.sh" --check || "$TOP/scripts/npm-deps.sh" > /dev/null 2>&1
	"$TOP/scripts/npm-deps.sh" --check && browser=1
fi
if [ $browser = 0 ]; then
	skip "flame line panel in Chromium" "needs node, /usr/bin/chromium and scripts/npm-deps.sh"
	exit 0
fi
node "$TOP/tests/tools/outputs_browser.mjs" flamelines "$W/f.html" divide > "$W/b.json" 2> "$W/b.err"
check "flame lines: no console errors ($(js errors "$W/b.json") $(head -c 200 "$W/b.err"))" [ "$(js errors "$W/b.json")" = "[]" ]
check "flame lines: the panel is hidden until a click" [ "$(js hidden_at_load "$W/b.json")" = True ]
check "flame lines: clicking divide opens the panel ($(js heading "$W/b.json"))" [ "$(js shown "$W/b.json")" = True ]
read -r ppct ploc ptext < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["rows"][0]; print(r[0], r[2], r[3])' "$W/b.json")
ok=0
[ "$ploc" = "$hot" ] && [[ $ptext == *"/* HOT */" ]] && ok=1
check "flame lines: divide's hottest line is $hot, its text shown ($ppct $ploc $(echo "$ptext" | cut -c1-40))" [ $ok = 1 ]
check "flame lines: its share equals scorch annotate's ($ppct, annotate $apct)" [ "$ppct" = "$apct" ]
check "flame lines: the panel closes" [ "$(js closed "$W/b.json")" = True ]
