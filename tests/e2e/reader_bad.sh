#!/bin/bash
# reader_bad.sh: malformed and hostile perf.data files (truncated, corrupted
# sizes, counts and offsets). The ASan+UBSan build must exit 0 or 2, never
# crash or report a sanitizer error, and an error must be one line
# "scorch: FILE: [offset N: ]message" (after any warnings about missing
# binaries).
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
B=$SCORCH_ASAN
[ -x "$B" ] || B=$SCORCH
P=$TOP/tests/data/peer
n=0; crashes=0; badmsg=0; errors=0
for seed in "$P/vector_static_gcc/perf.data.zstd" "$P/probe.data.stream" "$P/probe.data.file" \
	    "$P/vector_static_gcc/perf.lbr.data" "$P/fork_static_gcc/perf.data.zstd"; do
	d=$W/$(basename "$(dirname "$seed")")-$(basename "$seed")
	python3 "$TOP/tests/tools/mutate.py" "$seed" "$d" 40
	for f in "$d"/m*; do
		for cmd in stats script; do
			n=$((n + 1))
			timeout 20 "$B" $cmd -i "$f" > /dev/null 2> "$W/err"
			rc=$?
			if [ $rc != 0 ] && [ $rc != 2 ] || grep -q -E 'Sanitizer|runtime error' "$W/err"; then
				crashes=$((crashes + 1))
				[ $crashes -le 3 ] && { echo "  crash: $cmd $f rc=$rc"; head -5 "$W/err"; cp "$f" /tmp/scorch-crash-$crashes; }
			elif [ $rc = 2 ]; then
				errors=$((errors + 1))
				# one error line about the input, the last line (warnings
				# about missing binaries may come before it)
				if [ "$(grep -c "^scorch: $f: " "$W/err")" != 1 ] ||
				   ! tail -1 "$W/err" | grep -q -E "^scorch: $f: (offset [0-9]+: )?."; then
					badmsg=$((badmsg + 1))
					[ $badmsg -le 3 ] && { echo "  bad message: $f"; head -3 "$W/err"; }
				fi
			fi
		done
	done
done
check "bad input: $n runs, $errors clean errors, $crashes crashes/sanitizer reports" [ $crashes = 0 ]
check "bad input: every error is one located line ($badmsg not)" [ $badmsg = 0 ]
# a few hand-made ones
printf 'PERFILE2' > "$W/short"
"$SCORCH" stats -i "$W/short" 2> "$W/err"; rc=$?
check "8-byte file: exit 2 with offset" [ $rc = 2 ] && grep -q 'offset 0' "$W/err"
head -c 200 /dev/urandom > "$W/rand"
"$SCORCH" stats -i "$W/rand" 2> "$W/err"; rc=$?
check "random bytes: exit 2, bad magic" [ $rc = 2 ] && grep -q 'bad magic' "$W/err"
"$SCORCH" stats -i "$W/missing" 2> "$W/err"; rc=$?
check "missing file: exit 2" [ $rc = 2 ] && grep -q 'cannot open' "$W/err"
