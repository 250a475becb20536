#!/bin/bash
# reader_peer.sh: the perf.data files recorded elsewhere (tests/data/peer,
# from perfparser's test suite: perf 4.x/5.x, zstd, pipe, LBR, tracepoints).
# Each sample's pid, tid, time, period and sampled ip must equal perfparser's
# expected output; sample headers must equal perf script's where perf 6.1
# reads the file; the ASan build must read every file cleanly.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
D=$TOP/tests/data/peer
cd "$D" || exit 1
for exp in */*.expected.txt; do
	f=${exp%.expected.txt}
	"$SCORCH" script --raw -i "$f" > "$W/raw" 2> "$W/err"
	python3 "$TOP/tests/tools/compare_peer.py" "$exp" "$W/raw" "peer/$f"
	n=$(grep -cP '^\S.*\t\d+\t\d+\t[\d.]+$' "$exp")
	s=$("$SCORCH" stats -i "$f" | sed -n 's/^samples: //p')
	check "peer/$f stats samples ($s) == expected ($n)" [ "$s" = "$n" ]
done
for f in */*.data* *.data*; do
	case $f in *.txt) continue ;; esac
	if perf script -i "$f" > /dev/null 2>&1; then
		perf_headers "$f" > "$W/p"
		"$SCORCH" script --headers-only -i "$f" > "$W/s"
		check "peer/$f headers == perf script ($(wc -l < "$W/s") samples)" cmp -s "$W/p" "$W/s"
	else
		# perf 6.1 cannot read it (cpp-inlining, perf 6.6: 'incompatible file
		# format') and Debian's hotspot-perfparser has no zstd. Check that
		# every compressed record decodes to whole records, in time order, all
		# samples of the workload's thread.
		"$SCORCH" stats -i "$f" > "$W/st" 2>&1
		"$SCORCH" script --raw -i "$f" > "$W/raw"
		s=$(sed -n 's/^samples: //p' "$W/st")
		v=$(sed -n 's/^time violations: //p' "$W/st")
		other=$(awk -F'\t' '$1 != "cpp-inlining"' "$W/raw" | wc -l)
		if [ "${s:-0}" -gt 500 ] && [ "$v" = 0 ] && [ "$other" = 0 ]; then
			pass "peer/$f (perf 6.1 cannot read it): $s samples, 0 violations, all of cpp-inlining"
		else
			fail "peer/$f: samples=$s violations=$v foreign=$other"
		fi
	fi
	if [ -x "$SCORCH_ASAN" ]; then
		"$SCORCH_ASAN" script -i "$f" > /dev/null 2> "$W/asan"
		rc=$?
		grep -q -E 'Sanitizer|runtime error' "$W/asan"; g=$?
		check "peer/$f asan script (rc $rc)" [ $rc = 0 -a $g = 1 ]
	fi
done
# the pipe stream through stdin
"$SCORCH" stats -i - < probe.data.stream > "$W/st"
check "peer/probe.data.stream via stdin" grep -q '^samples: 1$' "$W/st"
cat probe.data.stream | "$SCORCH" script --raw -i - > "$W/raw"
check "peer/probe.data.stream via a pipe" [ "$(wc -l < "$W/raw")" = 1 ]
