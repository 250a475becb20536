#!/bin/bash
# unwind_corpus.sh: DWARF unwinding on real Debian programs, scorch beside
# perf 6.1, hotspot-perfparser and libdwfl's unwinder (build/unwind-diff).
#
#   bench/unwind_corpus.sh [--out DIR] [--only NAME,...] [--no-record]
#                          [--recorders perf,scorch] [--freq HZ]
#
# Records each program of the corpus with `perf record --call-graph dwarf`
# and with `scorch record --call-graph dwarf` (8 KB stack copies, cpu-clock)
# into DIR (default build/bench/unwind), then, per recording:
#   - complete-stack share (tests/tools/complete_share.py: outermost user
#     frame _start / start_thread / clone3) of scorch script, perf script
#     and hotspot-perfparser (its stream decoded by perfparser_decode.py);
#   - build/unwind-diff: samples where libdwfl's unwinder, from the same
#     registers and stack copy, goes further than scorch or disagrees.
# Prints one table row per recording. --no-record reuses DIR's recordings
# (to compare builds). Takes minutes per program on a loaded machine.
set -u
cd "$(dirname "$0")/.." || exit 1
TOP=$PWD
SCORCH=${SCORCH:-$TOP/build/scorch}
DIFF=${UNWIND_DIFF:-$TOP/build/unwind-diff}
HP=${HOTSPOT_PERFPARSER:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}
out=build/bench/unwind only="" record=1 recorders="perf,scorch" freq=999
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift ;;
	--only) only=$2; shift ;;
	--no-record) record=0 ;;
	--recorders) recorders=$2; shift ;;
	--freq) freq=$2; shift ;;
	*) echo "usage: $0 [--out DIR] [--only NAME,...] [--no-record] [--recorders perf,scorch] [--freq HZ]" >&2; exit 2 ;;
	esac
	shift
done
make -s build/scorch build/unwind-diff build/workloads/exceptions || exit 1
unset DEBUGINFOD_URLS
mkdir -p "$out/work"
W=$(cd "$out/work" && pwd)

# The corpus: NAME and the command recorded (a few seconds each).
prepare() {
	[ -s "$W/gen.c" ] || python3 - > "$W/gen.c" <<'PY'
import random
r = random.Random(15)
print("struct s { int a, b; long c; unsigned char d[8]; };\nextern int ext(int);")
for i in range(300):
    k = r.randint(1, 9)
    print(f"int f{i}(int x, int y, struct s *p) {{ int acc = {r.randint(0, 99)};")
    print(f"  for (int i = 0; i < (x & 63) + {k}; i++) {{")
    print(f"    if (i > y - {k}) acc += (i * {r.randint(2, 17)}) >> {r.randint(1, 5)};")
    print(f"    else if (acc < {r.randint(100, 900)}) acc ^= p->d[i & 7] + {r.randint(1, 50)};")
    print(f"    else acc -= (unsigned)(x % {r.randint(2, 11)}) * p->b;")
    print(f"    if (acc > {r.randint(1000, 5000)} && (y & {1 << r.randint(0, 6)})) acc = ext(acc) & 0xfff; }}")
    print(f"  switch (acc & 7) {{ case 0: p->c += x; break; case 3: p->a = y * {k}; break; default: p->b ^= acc; }}")
    if i:
        print(f"  if (x > {r.randint(0, 200)}) acc += f{r.randint(0, i - 1)}(y, x - 1, p);")
    print("  return acc; }")
PY
	[ -s "$W/xz.in" ] || cat /usr/lib/x86_64-linux-gnu/libstdc++.so.6 /usr/bin/perl /usr/lib/x86_64-linux-gnu/libc.so.6 > "$W/xz.in"
}
cmd_for() {
	case $1 in
	cc1) echo "gcc -O2 -c -o $W/gen.o $W/gen.c" ;;
	cc1plus) echo "g++ -O2 -c -o $W/cxx.o $TOP/tests/workloads/cxx.cpp" ;;
	python3) echo "/usr/bin/python3 -c 'import json,re;d=[{\"k\":i,\"v\":str(i)*3} for i in range(150000)];s=json.dumps(d);print(len(re.findall(r\"[0-9]+\",s)),sum(x[\"k\"] for x in json.loads(s)))'" ;;
	perl) echo "perl -e 'my %h; for my \$i (1..400000) { my \$s = \"k\$i\" x 3; \$s =~ s/(\\d)/\$1x/g; \$h{\$i % 5000} .= substr(\$s,0,4); } print scalar(keys %h), \"\\n\"'" ;;
	xz) echo "xz -6 -T1 -c $W/xz.in" ;;
	git) echo "sh -c 'for i in 1 2 3 4; do git -C $TOP log -p -n 400 >/dev/null; git -C $TOP grep -c -e static -e struct >/dev/null; done'" ;;
	sqlite3) echo "sqlite3 :memory: 'CREATE TABLE t(a INTEGER, b TEXT); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<300000) INSERT INTO t SELECT x, hex(x*7919) FROM c; CREATE INDEX i ON t(b); SELECT count(*), sum(length(b)) FROM t WHERE b LIKE \"%A%\"; SELECT a FROM t ORDER BY b DESC LIMIT 1;'" ;;
	bash) echo "bash -c 'i=0; s=; while [ \$i -lt 60000 ]; do s=\"\${s:0:40}\$i\"; case \$s in *99*) s=x;; esac; i=\$((i+1)); done; echo \$s'" ;;
	ripgrep) echo "sh -c 'for i in 1 2 3; do rg -c -e \"static [a-z]+ \\*?[a-z_]+\\(\" -e \"struct [a-z]+\" /usr/include /usr/share/perl >/dev/null; done'" ;;
	exceptions) echo "$TOP/build/workloads/exceptions 60000" ;;
	esac
}
ALL="cc1 cc1plus python3 perl xz git sqlite3 bash ripgrep exceptions"
[ -n "$only" ] && ALL=${only//,/ }
prepare
printf '%-11s %-7s %8s %9s %9s %11s %16s %9s\n' program rec samples scorch% perf% perfparser% libdwfl-further disagree
for name in $ALL; do
	for rec in ${recorders//,/ }; do
		data=$out/$name.$rec.data
		if [ $record = 1 ]; then
			cmd=$(cmd_for "$name")
			[ -n "$cmd" ] || { echo "unknown program $name" >&2; continue; }
			if [ $rec = perf ]; then
				perf record -q -F "$freq" -e cpu-clock --call-graph dwarf -o "$data" -- sh -c "$cmd" > /dev/null 2> "$W/$name.$rec.rec.err"
			else
				"$SCORCH" record -q -F "$freq" -e cpu-clock --call-graph dwarf -o "$data" -- sh -c "$cmd" > /dev/null 2> "$W/$name.$rec.rec.err"
			fi
		fi
		[ -s "$data" ] || { echo "$name $rec: no recording ($(tail -1 "$W/$name.$rec.rec.err" 2>/dev/null))" >&2; continue; }
		b=$W/$name.$rec
		"$SCORCH" script -i "$data" > "$b.scorch" 2> /dev/null
		perf script -i "$data" > "$b.perf" 2> /dev/null
		pp=-
		if [ -x "$HP" ]; then
			"$HP" --input "$data" --output "$b.stream" > /dev/null 2>&1
			python3 tests/tools/perfparser_decode.py stacks "$b.stream" > "$b.pp" 2> /dev/null
		fi
		python3 tests/tools/complete_share.py "$b.scorch" "$b.perf" "$b.pp" > "$b.share" 2> /dev/null
		"$DIFF" -i "$data" --list 50 > "$b.diff" 2>&1
		pct() { awk -v f="$1" '$1 == f { print $NF }' "$b.share"; }
		val() { awk -v k="$1:" '$1 == k { print $2 }' "$b.diff"; }
		samples=$(awk -v f="$b.scorch" '$1 == f { print $5 }' "$b.share")
		printf '%-11s %-7s %8s %9s %9s %11s %16s %9s\n' "$name" "$rec" "$samples" "$(pct "$b.scorch")" \
			"$(pct "$b.perf")" "$(pct "$b.pp")" "$(val libdwfl_further)" "$(val disagree)"
	done
done
echo "(details: $W/NAME.REC.{diff,share}; samples = those with user frames)"
