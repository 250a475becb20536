#!/bin/bash
# jitdump.sh: JIT code named from jit-PID.dump directly. Node with
# --perf-prof under scorch record -k monotonic -g: scorch script names every
# JIT frame perf script names after perf inject --jit, with the same name
# and offset (the same recording, line by line), and more are not lost.
# Then a recording without -k, and damaged dumps: one warning naming the
# file (and the offset), exit status 0, only the dump's own frames lost.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS
if ! command -v node > /dev/null; then
	skip jitdump "no node"
	exit 0
fi
if ! command -v perf > /dev/null; then
	skip jitdump "no perf"
	exit 0
fi
export HOME=$W/home
mkdir -p "$HOME"
cd "$W" || exit 1
cat > fib.js <<'JS'
function fibonacciHot(n) { return n < 2 ? n : fibonacciHot(n - 1) + fibonacciHot(n - 2); }
function loop(ms) { const end = Date.now() + ms; let s = 0; while (Date.now() < end) s += fibonacciHot(20); return s; }
console.log(loop(Number(process.argv[2])));
JS
node_rec() { # OUT.data [record options]: node writes jit-PID.dump in $W
	local out=$1; shift
	"$SCORCH" record -q -N "$@" -g -e cpu-clock -o "$out" -- \
		node --perf-prof --no-write-protect-code-memory --interpreted-frames-native-stack fib.js 600 > /dev/null
}
node_rec k.data -k monotonic
dump=$(ls jit-*.dump 2> /dev/null | head -1)
if [ -z "$dump" ]; then
	skip jitdump "node --perf-prof wrote no jit-PID.dump"
	exit 0
fi
"$SCORCH" script -i k.data > s.txt 2> s.err
check jitdump_script_exit test $? = 0
check jitdump_script_no_warning test ! -s s.err
if perf inject --jit -i k.data -o inj.data > inj.log 2>&1; then
	perf script -i inj.data > p.txt 2> /dev/null
	# the same samples in the same order: compare line by line; perf's
	# JIT frames are in jitted-PID-N.so, scorch's in the dump
	read -r np ns same other <<< "$(paste -d '\n' p.txt s.txt | awk '
		function name(l) { sub(/^[ \t]*[0-9a-f]+ /, "", l); sub(/ \([^(]*\)$/, "", l); return l }
		NR % 2 { p = $0; next }
		{
			if (p ~ /jitted-[0-9]+-[0-9]+\.so\)$/) { np++; if (name(p) == name($0)) same++ }
			if ($0 ~ /jit-[0-9]+\.dump\)$/) { ns++; if (p !~ /jitted-/) other++ }
		}
		END { print np + 0, ns + 0, same + 0, other + 0 }')"
	echo "perf inject + script: $np JIT frames; scorch: $ns, $same of perf's with the same name and offset, $other more"
	check jitdump_same_lines test "$(wc -l < p.txt)" = "$(wc -l < s.txt)"
	check jitdump_perf_named_some test "$np" -gt 100
	check jitdump_as_complete_as_perf test "$ns" -ge "$np"
	check jitdump_same_names_as_perf test "$same" = "$np"
else
	skip jitdump_vs_perf_inject "perf inject --jit failed: $(tail -1 inj.log)"
fi
grep -q 'JS:\*fibonacciHot .*fib.js' s.txt
check jitdump_hot_function_named test $? = 0
"$SCORCH" report --stdio --no-children -i k.data 2> /dev/null | grep -m1 -E '^ +[0-9.]+% .*\[\.\] JS:\*fibonacciHot' > top.txt
check jitdump_report_names_hot_function test -s top.txt

# without -k: the functions loaded last name the addresses
mv "$dump" full.dump
node_rec nok.data
"$SCORCH" report --stdio --no-children -i nok.data 2> nok.err | grep -qE '\[\.\] JS:\*fibonacciHot'
check jitdump_without_clockid test $? = 0
check jitdump_without_clockid_no_warning test ! -s nok.err

# damaged dumps: one warning naming the file, exit status 0, the other
# frames as before
n_full=$(grep -c "($W/$dump)" s.txt)
cp full.dump "$dump"
truncate -s $(($(stat -c %s full.dump) / 2)) "$dump"
"$SCORCH" script -i k.data > t.txt 2> t.err
rc=$?
n_cut=$(grep -c "($W/$dump)" t.txt)
echo "truncated: $n_cut of $n_full JIT frames named; $(cat t.err)"
check jitdump_truncated_exit test $rc = 0
check jitdump_truncated_one_warning test "$(grep -c "$dump: offset [0-9]*: " t.err)" = 1 -a "$(wc -l < t.err)" = 1
check jitdump_truncated_keeps_first_half test "$n_cut" -gt 0 -a "$n_cut" -lt "$n_full"
libs() { grep -E '\((/usr/lib/[^)]*|\[kernel\.kallsyms\])\)$' "$1"; }
check jitdump_truncated_other_frames_same cmp <(libs s.txt) <(libs t.txt)
printf 'XXXX' | dd of="$dump" conv=notrunc status=none
"$SCORCH" script -i k.data > b.txt 2> b.err
rc=$?
check jitdump_bad_header_exit test $rc = 0
check jitdump_bad_header_one_warning test "$(grep -c "$dump: offset 0: not a jitdump" b.err)" = 1 -a "$(wc -l < b.err)" = 1
check jitdump_bad_header_no_jit_names test "$(grep -c "($W/$dump)" b.txt)" = 0
rm -f "$dump"
"$SCORCH" script -i k.data > m.txt 2> m.err
check jitdump_missing_exit test $? = 0
check jitdump_missing_one_warning test "$(grep -c "$dump: No such file or directory" m.err)" = 1 -a "$(wc -l < m.err)" = 1
