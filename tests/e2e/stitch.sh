#!/bin/bash
# stitch.sh: stacks cut at the end of their stack copy, stitched from earlier
# samples of the thread (docs/resolve.md, "Stitching"). Programs nobody here
# wrote, recorded by perf 6.1: Debian's clang++ compiling a small C++ file
# and gcc's cc1 on a generated C file.
#  - ground truth: each recorded with a 64 KB copy; read with --stack-limit
#    8192 (the first 8 KB of each copy) and --stitch, every stitched sample
#    is compared frame by frame with the same file read whole: at most 0.1%
#    may have a frame that differs (none while fewer than 1000 are
#    stitched; the count is printed);
#  - the same samples cut to 8 KB in a file (stack_cut.py), read by
#    `scorch perfparser` and by hotspot-perfparser, each against its own
#    reading of the 64 KB file: scorch's complete stacks that are right are
#    at least as many as hotspot-perfparser's (both counts printed, with
#    the complete stacks that are wrong);
#  - at perf's default 8 KB: the complete stacks of `scorch perfparser`
#    (stitching by default) against --no-stitch and against
#    hotspot-perfparser on the same file, read from the streams;
#  - `scorch script` stitches only with --stitch; the outputs are the same
#    at -j 1 and -j 2; stats --unwind and the report header count the
#    stacks the copy cut and those stitched.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
TOOLS=$TOP/tests/tools
if ! perf record -q -o "$W/probe.data" -- true > /dev/null 2>&1; then
	skip stitch "perf record does not work here"
	exit 0
fi
if ! command -v clang++ > /dev/null || ! command -v gcc > /dev/null; then
	skip stitch "no clang++ or gcc (scripts/deps.sh)"
	exit 0
fi
check "stitch: hotspot-perfparser is installed (scripts/deps.sh)" [ -x "$PERFPARSER" ]
cd "$W" || exit 1
cat > t.cpp <<'EOF'
#include <map>
#include <regex>
#include <sstream>
#include <string>
int main(int argc, char **argv) {
	std::map<std::string, int> m;
	std::regex re("([a-z]+)=([0-9]+)");
	std::stringstream ss;
	for (int i = 1; i < argc; i++) {
		std::smatch sm;
		std::string a = argv[i];
		if (std::regex_match(a, sm, re)) m[sm[1]] += std::stoi(sm[2]);
	}
	for (auto &kv : m) ss << kv.first << kv.second;
	return (int)ss.str().size();
}
EOF
# nested expressions: cc1's recursive descent goes deep
python3 - <<'EOF'
import random
random.seed(1)
def expr(d):
    if d == 0:
        return random.choice(['a', 'b', 'c', str(random.randint(1, 9))])
    return '(' + expr(d - 1) + random.choice('+-*^&|') + expr(d - 1) + ')'
fs = [f"int f{i}(int a,int b,int c){{ if (a>{i}) {{ while (b--) {{ c += {expr(6)}; }} }} return c + {expr(5)}; }}"
      for i in range(60)]
fs.append("int main(void){ int s=0; " + " ".join(f"s+=f{i}(s,3,{i});" for i in range(60)) + " return s; }")
open('gen.c', 'w').write("\n".join(fs) + "\n")
EOF
rec() { # NAME SIZE HZ CMD...
	local n=$1 sz=$2 hz=$3; shift 3
	perf record -q -F "$hz" --call-graph "dwarf$sz" -o "$n.data" -- "$@" > /dev/null 2>&1
}
rec clang8 "" 997 clang++ -O2 -c t.cpp -o t.o
rec clang64 ",65528" 997 clang++ -O2 -c t.cpp -o t.o
rec cc18 "" 499 gcc -O2 -c gen.c -o gen.o
rec cc164 ",65528" 499 gcc -O2 -c gen.c -o gen.o
differ() { ! cmp -s "$1" "$2"; }
val() { sed -n "s/.* $1 \([0-9]*\).*/\1/p" ${2:+"$2"}; }
for p in clang cc1; do
	f=${p}64.data g=${p}8.data
	if [ ! -s "$f" ] || [ ! -s "$g" ]; then
		fail "stitch $p: recorded" "perf record of $p failed"
		continue
	fi
	# ground truth
	"$SCORCH" script -i "$f" > "$p.whole" 2> /dev/null
	"$SCORCH" script --stack-limit 8192 -i "$f" > "$p.cut" 2> /dev/null
	"$SCORCH" script --stitch --stack-limit 8192 -i "$f" > "$p.sti" 2> /dev/null
	python3 "$TOOLS/stitch_truth.py" "$p.whole" "$p.cut" "$p.sti" > "$p.truth" 2> "$p.wrong"
	echo "    $p 64 KB read with 8 KB: $(cat "$p.truth")"
	sed 's/^/    /' "$p.wrong"
	cut=$(val cut "$p.truth"); st=$(val stitched "$p.truth"); wr=$(val wrong "$p.truth")
	check "stitch $p: the 8 KB limit cuts stacks the 64 KB copy holds ($cut)" [ "${cut:-0}" -gt 0 ]
	if [ "$p" = clang ]; then
		check "stitch $p: cut stacks stitched ($st)" [ "${st:-0}" -gt 0 ]
	fi
	check "stitch $p: at most 0.1% of stitched samples wrong ($wr of $st)" \
		[ $(( ${wr:-1} * 1000 )) -le "${st:-0}" ]
	# the same samples cut short in a file: hotspot-perfparser and scorch
	# each against its own reading of the whole file
	if [ -x "$PERFPARSER" ] && python3 "$TOOLS/stack_cut.py" "$f" "$p.cut8.data" 8192; then
		"$SCORCH" perfparser --input "$f" --output "$p.w.pp" 2> /dev/null
		"$SCORCH" perfparser --input "$p.cut8.data" --output "$p.c.pp" 2> /dev/null
		"$PERFPARSER" --input "$f" --output "$p.w.ref" 2> /dev/null
		"$PERFPARSER" --input "$p.cut8.data" --output "$p.c.ref" 2> /dev/null
		for x in w.pp c.pp w.ref c.ref; do
			python3 "$TOOLS/perfparser_decode.py" stacks "$p.$x" > "$p.$x.st"
		done
		ours=$(python3 "$TOOLS/stream_truth.py" "$p.w.pp.st" "$p.c.pp.st")
		theirs=$(python3 "$TOOLS/stream_truth.py" "$p.w.ref.st" "$p.c.ref.st")
		echo "    $p cut to 8 KB: scorch perfparser: $ours; hotspot-perfparser: $theirs"
		r1=$(val right <<< "$ours"); r2=$(val right <<< "$theirs")
		check "stitch $p: the same samples at 8 KB, right complete stacks ($r1) >= hotspot-perfparser's ($r2)" \
			[ "${r1:-0}" -ge "${r2:-1}" ]
	fi
	# the unstitched limited reading is the whole reading's first frames
	check "stitch $p: --stack-limit gives the first frames of each whole stack" \
		python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
from stitch_truth import parse
w, c = parse(sys.argv[2]), parse(sys.argv[3])
sys.exit(len(w) != len(c) or any(b != a[:len(b)] for a, b in zip(w, c)))' "$TOOLS" "$p.whole" "$p.cut"
	# 8 KB, the stream hotspot reads
	"$SCORCH" perfparser --input "$g" --output "$p.pp" 2> /dev/null
	"$SCORCH" perfparser --no-stitch --input "$g" --output "$p.pp0" 2> /dev/null
	python3 "$TOOLS/perfparser_decode.py" stacks "$p.pp" > "$p.st"
	python3 "$TOOLS/perfparser_decode.py" stacks "$p.pp0" > "$p.st0"
	ours=$(python3 "$TOOLS/complete_share.py" "$p.st" | awk '{print $7}')
	none=$(python3 "$TOOLS/complete_share.py" "$p.st0" | awk '{print $7}')
	check "stitch $p: perfparser stream, complete stacks stitched ($ours) >= not ($none)" \
		[ "${ours:-0}" -ge "${none:-0}" ]
	if [ "$p" = clang ]; then
		check "stitch $p: perfparser stream, more complete stacks stitched" [ "${ours:-0}" -gt "${none:-0}" ]
	fi
	if [ -x "$PERFPARSER" ]; then
		"$PERFPARSER" --input "$g" --output "$p.ref" 2> /dev/null
		python3 "$TOOLS/perfparser_decode.py" stacks "$p.ref" > "$p.rst"
		echo "    $p 8 KB complete stacks: $(python3 "$TOOLS/complete_share.py" "$p.st" "$p.st0" "$p.rst" | awk '{printf "%s %s; ", $1, $8}')"
	fi
	# script: stitched only when asked; -j parity
	"$SCORCH" script -i "$g" > "$p.s1" 2> /dev/null
	"$SCORCH" script -j 2 -i "$g" > "$p.s2" 2> /dev/null
	"$SCORCH" script --no-stitch -i "$g" > "$p.s3" 2> /dev/null
	check "stitch $p: script without --stitch is unstitched, -j 1 = -j 2" cmp -s "$p.s1" "$p.s2"
	check "stitch $p: script = script --no-stitch" cmp -s "$p.s1" "$p.s3"
	"$SCORCH" script --stitch -i "$g" > "$p.t1" 2> /dev/null
	"$SCORCH" script --stitch -j 2 -i "$g" > "$p.t2" 2> /dev/null
	if [ "$p" = clang ]; then
		check "stitch $p: script --stitch differs from script" differ "$p.s1" "$p.t1"
	fi
	check "stitch $p: script --stitch, -j 1 = -j 2" cmp -s "$p.t1" "$p.t2"
	for c in "report" "export -f folded -o -"; do
		"$SCORCH" $c -j 1 -i "$g" > "$p.r1" 2> /dev/null
		"$SCORCH" $c -j 2 -i "$g" > "$p.r2" 2> /dev/null
		check "stitch $p: ${c%% *}, -j 1 = -j 2" cmp -s "$p.r1" "$p.r2"
	done
	"$SCORCH" perfparser -j 2 --input "$g" --output "$p.ppj" 2> /dev/null
	check "stitch $p: perfparser -j 1 = -j 2" cmp -s "$p.pp" "$p.ppj"
	"$SCORCH" stats --unwind -i "$g" > "$p.stats" 2> /dev/null
	sc=$(sed -n "s/^dwarf stacks cut at the copy's end: //p" "$p.stats")
	ss=$(sed -n 's/^dwarf stacks stitched: //p' "$p.stats")
	check "stitch $p: stats --unwind counts cut ($sc) and stitched ($ss) stacks" \
		[ "${sc:-0}" -gt 0 -a "${ss:-0}" -le "${sc:-0}" ]
	"$SCORCH" report -i "$g" > "$p.rep" 2> /dev/null
	check "stitch $p: report header says how many stacks the copy cut" \
		grep -q "^# Stack copy too short: $sc samples ($ss stitched)" "$p.rep"
done
