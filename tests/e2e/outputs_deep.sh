#!/bin/bash
# outputs_deep.sh: a 150-deep recursion (tests/workloads/recurse.c)
# recorded with --call-graph dwarf,32768. The summarizing commands keep
# every frame the recording holds: export folded, report (its entries and
# its call tree), the flame graph in headless Chromium and top reach main
# in as many samples as perf script --max-stack 1024 does. --max-frames 20
# cuts the stacks under a [truncated] frame at their root. script keeps
# perf script's 127 frames, perfparser hotspot-perfparser's 64. The tall
# flame graph opens with its toolbar at the top of a 1400x900 window and
# the graph's base in view, and the toolbar stays there when scrolled.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
S=$SCORCH
D=$W/deep.data
"$S" record -F 999 --call-graph dwarf,32768 -o "$D" -- "$TOP/build/workloads/recurse" 600 150 > /dev/null 2>&1
if [ ! -s "$D" ]; then
	fail "record the 150-deep recursion"
	exit 0
fi
# within_pct A B TOL: |A - B| <= TOL
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= t) }'; }

# ---- the peer: perf script, deep enough for the whole recursion ----
perf script --max-stack 1024 -i "$D" 2> /dev/null |
	awk 'BEGIN { RS = "" } { n++ } / main\+/ { m++ } END { print n + 0, m + 0 }' > "$W/peer"
read -r n_all n_main < "$W/peer"
check "perf script --max-stack 1024: $n_main of $n_all samples reach main" [ "$n_main" -gt $((n_all / 2)) ]
tol=$((n_all / 100 + 1)) # samples: unwinders may differ on a rare sample

# ---- folded ----
"$S" export -f folded -i "$D" > "$W/f"
f_main=$(awk '/;main[; ]/ { s += $NF } END { print s + 0 }' "$W/f")
check "folded: $f_main samples reach main (perf script: $n_main)" within "$f_main" "$n_main" "$tol"
"$S" export -f folded --period -i "$D" > "$W/fp"
# main's share of the weight, from the folded stacks
share() { awk -v re="$2" '{ t += $NF } $0 ~ re { s += $NF } END { printf "%.2f", t ? 100 * s / t : 0 }' "$1"; }
p_main=$(share "$W/fp" ';main[; ]')

# --max-frames 20: [truncated] right under the command, only on stacks
# of more than 20 frames, and every other stack starts where the whole
# one does (frames counted without the inlined ones: the limit counts
# the frames unwound)
"$S" export -f folded --no-inline -i "$D" > "$W/fn"
"$S" export -f folded --no-inline --max-frames 20 -i "$D" > "$W/f20"
bad=$(awk '{ n = split($1, a, ";"); for (i = 3; i <= n; i++) if (a[i] == "[truncated]") print }' "$W/f20" | wc -l)
check "folded --max-frames 20: [truncated] only at the root ($bad elsewhere)" [ "$bad" = 0 ]
bad=$(awk '{ n = split($1, a, ";"); if (a[2] == "[truncated]" ? n - 2 != 20 : n - 1 > 20) print }' "$W/f20" | wc -l)
check "folded --max-frames 20: cut stacks have 20 frames, others at most 20 ($bad not)" [ "$bad" = 0 ]
cut=$(awk '{ n = split($1, a, ";"); if (n - 1 > 20) s += $NF } END { print s + 0 }' "$W/fn")
t20=$(awk '$1 ~ /^[^;]*;\[truncated\];/ { s += $NF } END { print s + 0 }' "$W/f20")
check "folded --max-frames 20: $t20 stacks [truncated] (of more than 20 frames: $cut)" [ "$t20" = "$cut" -a "$t20" -gt 0 ]
roots=$(awk '{ split($1, a, ";"); print a[2] }' "$W/fn" | sort -u | tr '\n' ' ')
bad=$(awk -v r=" $roots" '{ split($1, a, ";"); if (a[2] != "[truncated]" && index(r, " " a[2] " ") == 0) print }' "$W/f20" | wc -l)
check "folded --max-frames 20: each stack starts at [truncated] or a whole stack's root ($bad not)" [ "$bad" = 0 ]
"$S" export -f folded --period --max-frames 20 -i "$D" > "$W/fp20"
p_t20=$(share "$W/fp20" '^[^;]*;\[truncated\];')

# ---- report ----
"$S" report -i "$D" > "$W/r"
r_main=$(awk '$6 == "main" && $5 == "[.]" { sub(/%/, "", $1); print $1; exit }' "$W/r")
check "report: main's children ${r_main:-none}% (folded: $p_main%)" within "$r_main" "$p_main" 0.1
# the self-sorted report's first tree: where work is called from, down
# the recursion to main and on to the process's start
"$S" report --no-children -i "$D" > "$W/rs"
awk '/^[0-9.]+%  work  \(recurse\)  called from:$/ { t = 1; next } t && /^$/ { exit } t' "$W/rs" > "$W/tree"
check "report's tree: work called from descend ... main ($(grep -c 'descend$' "$W/tree") descend lines)" \
	grep -qE '^ +[0-9.]+%  main$' "$W/tree"
"$S" report --no-children --max-frames 20 -i "$D" > "$W/rs20"
awk '/^[0-9.]+%  work  \(recurse\)  called from:$/ { t = 1; next } t && /^$/ { exit } t' "$W/rs20" > "$W/tree20"
check "report --max-frames 20: work's callers end at [truncated]" grep -qE '^ +[0-9.]+%  \[truncated\]$' "$W/tree20"
"$S" report --max-frames 20 -i "$D" > "$W/r20"
r_t20=$(awk '$6 == "[truncated]" { sub(/%/, "", $1); print $1; exit }' "$W/r20")
check "report --max-frames 20: a [truncated] entry of ${r_t20:-none}% (folded: $p_t20%)" within "$r_t20" "$p_t20" 0.1

# ---- script and perfparser keep their peers' depths ----
# the most user frames a sample shows (perf script's 127 and scorch
# script's apply to them alone when the sample has kernel frames too)
deepest() { awk 'BEGIN { RS = "" } { n = split($0, l, "\n"); u = 0; for (i = 2; i <= n; i++) if (l[i] !~ /kernel\.kallsyms/) u++; if (u > m) m = u } END { print m + 0 }'; }
ds=$("$S" script -i "$D" 2> /dev/null | deepest)
dp=$(perf script -i "$D" 2> /dev/null | deepest)
check "script prints at most $ds user frames a sample (perf script: $dp)" [ "$ds" = "$dp" -a "$ds" -gt 64 ]
pp=$("$S" perfparser --input "$D" 2> /dev/null | md5sum)
pp64=$("$S" perfparser --input "$D" --max-frames 64 2> /dev/null | md5sum)
ppall=$("$S" perfparser --input "$D" --max-frames -1 2> /dev/null | md5sum)
check "perfparser keeps hotspot's 64 frames by default" [ "$pp" = "$pp64" -a "$pp" != "$ppall" ]

# ---- top: the same program, live ----
"$S" top --stdio -n 2 -d 0.5 --children --since-start -F 999 --call-graph dwarf,32768 -- \
	"$TOP/build/workloads/recurse" 20000 150 > "$W/top" 2> "$W/top.err"
t_main=$(awk '/^# refresh 2/ { b = 1 } b && $NF == "main" { sub(/%/, "", $2); print $2; exit }' "$W/top")
check "top --children: main carries ${t_main:-none}% (whole stacks: nearly all)" \
	awk -v v="${t_main:-0}" 'BEGIN { exit !(v > 80) }'

# ---- the flame graph in Chromium ----
browser=0
if command -v node > /dev/null && [ -x /usr/bin/chromium ]; then
	"$TOP/scripts/npm-deps.sh" --check || "$TOP/scripts/npm-deps.sh" > /dev/null 2>&1
	"$TOP/scripts/npm-deps.sh" --check && browser=1
fi
if [ $browser = 0 ]; then
	skip "flame graph in Chromium" "needs node, /usr/bin/chromium and scripts/npm-deps.sh"
	exit 0
fi
js() { # js FIELD JSONFILE: a field of the driver's JSON line
	python3 -c 'import json,sys; v=json.load(open(sys.argv[2])).get(sys.argv[1]); print(json.dumps(v) if isinstance(v,(list,dict)) else v)' "$1" "$2"
}
"$S" flame -i "$D" -o "$W/deep.html" 2> /dev/null
node "$TOP/tests/tools/outputs_browser.mjs" flametall "$W/deep.html" '^main$' "$W/shot" > "$W/b.json" 2> "$W/b.err"
check "flame opens in Chromium with no errors" [ "$(js errors "$W/b.json")" = "[]" ]
m=$(js matched "$W/b.json")
check "flame: main under ${m}% of the weight (folded: $p_main%)" within "$m" "$p_main" 0.05
for w in load scrolled; do
	check "flame ($w): the toolbar's top edge is the window's ($(js ${w}_bar_top "$W/b.json"))" [ "$(js ${w}_bar_top "$W/b.json")" = 0 ]
	check "flame ($w): the toolbar is drawn there, nothing over it" [ "$(js ${w}_bar_shown "$W/b.json")" = True ]
	check "flame ($w): the page is the window's height ($(js ${w}_page_height "$W/b.json") px)" [ "$(js ${w}_page_height "$W/b.json")" = 900 ]
done
check "flame (load): the graph's base is in view under the toolbar" [ "$(js load_base_shown "$W/b.json")" = True ]
gl=$(js load_graph_scroll "$W/b.json"); gs=$(js scrolled_graph_scroll "$W/b.json")
check "flame: the graph is taller than the window and scrolls (${gl} -> ${gs} px)" [ "${gl%.*}" -gt 0 -a "${gs%.*}" -lt "${gl%.*}" ]
check "flame screenshots" [ -s "$W/shot-load.png" -a -s "$W/shot-scrolled.png" ]

"$S" flame --max-frames 20 -i "$D" -o "$W/d20.html" 2> /dev/null
node "$TOP/tests/tools/outputs_browser.mjs" flametall "$W/d20.html" '^\[truncated\]$' "$W/shot20" > "$W/b20.json" 2> "$W/b20.err"
rows=$(js rows "$W/b20.json")
check "flame --max-frames 20: [truncated] only right above the command ($rows)" \
	python3 -c 'import json,sys; r=json.loads(sys.argv[1]); sys.exit(not (list(r) == ["2"] and abs(r["2"] - float(sys.argv[2])) <= 0.05))' "$rows" "$p_t20"
