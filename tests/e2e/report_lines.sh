#!/bin/bash
# report_lines.sh: scorch report's call trees with source-line nodes
# (-g ...,address and -g ...,srcline) against perf 6.1's `perf report
# --stdio -g` on a recording made here of tests/workloads/line_tree.c
# (-O2 -g, frame pointers; two hot lines in work(), called from two
# addresses of one line of run()): the tree of the outer entry in caller
# order (children) and of work in callee order (--no-children), every node
# >= 1% (its path of "function file:line" labels and its percentage) equal
# to perf's; the option's words and its errors.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
CHK="python3 $TOP/tests/tools/calltree_check.py"
S=$SCORCH
command -v perf > /dev/null || { skip "report lines" "no perf"; exit 0; }

build_workload line_tree.c "$W/lt" -O2 -g -fno-omit-frame-pointer
D=$W/lt.data
if ! perf record -q -e cpu-clock -F 2000 -g -o "$D" "$W/lt" 150 > /dev/null 2> "$W/rec.err"; then
	skip "report lines" "perf record failed: $(head -1 "$W/rec.err")"
	exit 0
fi
# the outer entry of the workload's stacks: the caller of main
outer=$(perf script -i "$D" -F ip,sym 2>/dev/null | awk '$2 == "main" { getline; print $2; exit }')
for k in address srcline; do
	"$S" report -i "$D" -g caller,$k > "$W/s.c" 2> "$W/s.err"
	check "report -g caller,$k runs (exit $?, $(wc -l < "$W/s.err") lines on stderr)" [ ! -s "$W/s.err" ]
	perf report -i "$D" --stdio --children -g caller,$k > "$W/p.c" 2> /dev/null
	r=$($CHK "$W/s.c" "$W/p.c" "$outer" --files line_tree.c)
	check "report -g caller,$k: the tree of $outer == perf's (${r:0:300})" [ $? = 0 ]
	"$S" report -i "$D" --no-children -g callee,$k > "$W/s.n"
	perf report -i "$D" --stdio --no-children -g callee,$k > "$W/p.n" 2> /dev/null
	r=$($CHK "$W/s.n" "$W/p.n" work --files line_tree.c)
	check "report --no-children -g callee,$k: the tree of work == perf's (${r:0:300})" [ $? = 0 ]
done
# the lines themselves: A, B and the loop's under work; run's call line
# twice with the address key (two return addresses), once with srcline
ln() { grep -n "$1" "$WL_SRC/line_tree.c" | head -1 | cut -d: -f1; }
la=$(ln '/\* A \*/') lb=$(ln '/\* B \*/') lr=$(ln 'sink = work(50000)')
for l in $la $lb; do
	check "report -g srcline: work line_tree.c:$l under run" grep -qE "^ +[|\` -]*[0-9.]+%  work line_tree.c:$l\$" "$W/s.c"
done
"$S" report -i "$D" -g caller,address > "$W/s.a"
check "report -g address: run line_tree.c:$lr twice (two return addresses)" \
	[ "$(grep -cE "[0-9.]+%  run line_tree.c:$lr\$" "$W/s.a")" = 2 ]
check "report -g srcline: run line_tree.c:$lr once" \
	[ "$(grep -cE "[0-9.]+%  run line_tree.c:$lr\$" "$W/s.c")" = 1 ]
# the option: perf's words as prefixes, -g alone, none, values, errors
"$S" report -i "$D" > "$W/plain"
"$S" report -i "$D" -g > "$W/g"
check "report -g alone == no -g" cmp -s "$W/plain" "$W/g"
"$S" report -i "$D" --call-graph=graph,0.5,function,percent > "$W/gf"
"$S" report -i "$D" --tree-limit 0.5 > "$W/tl"
check "report --call-graph=graph,0.5,function,percent == --tree-limit 0.5" cmp -s "$W/gf" "$W/tl"
"$S" report -i "$D" -g ca,addr > "$W/pre"
check "report -g ca,addr (prefixes) == -g caller,address" cmp -s "$W/pre" "$W/s.a"
"$S" report -i "$D" -g none > "$W/none"
check "report -g none: no call trees" [ "$(grep -c '^# Call trees' "$W/none")" = 0 ]
"$S" report -i "$D" -g caller,address,count > "$W/cnt"
n=$(grep -cE '^ +[|` -]*[0-9]+  (run|work) line_tree.c:[0-9]+$' "$W/cnt")
check "report -g ...,count: sample counts on the nodes ($n)" [ "$n" -gt 0 ]
for bad in flat caller,bogus branch 1,5; do
	"$S" report -i "$D" -g "$bad" > /dev/null 2> "$W/e"
	rc=$?
	check "report -g $bad: exit 2 with one line ($(head -1 "$W/e"))" [ "$rc" = 2 -a "$(wc -l < "$W/e")" = 1 ]
done
