#!/bin/bash
# fuzz.sh: run every libFuzzer harness for a bounded time (FUZZ_SECONDS, 45 s
# in all by default) from the seed corpus (tests/data/peer and
# tests/fuzz/corpus; text parsers: their own corpus). A crash, leak or sanitizer report fails the test; the
# reproducer is kept under tests/fuzz/findings/.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
total=${FUZZ_SECONDS:-45}
cd "$TOP" || exit 1
make -s -j"$(nproc)" fuzz > "$W/build.log" 2>&1 || { fail "fuzz: build harnesses"; tail -5 "$W/build.log"; exit 0; }
harnesses=(build/fuzz/fuzz_*)
per=$((total / ${#harnesses[@]}))
[ $per -lt 5 ] && per=5
for h in "${harnesses[@]}"; do
	n=$(basename "$h")
	c=$W/corpus-$n
	mkdir -p "$c"
	# seeds: every small perf.data we have, once per input path (mode byte);
	# the harnesses of text parsers (symbol names, kallsyms, perf maps) take
	# their own corpus only, as is (and the disassembler: code bytes)
	i=0
	perfdata="tests/data/peer/*.data* tests/data/peer/*/*.data*"
	case $n in
	fuzz_demangle | fuzz_kallsyms | fuzz_perfmap | fuzz_jitdump | fuzz_dwline | fuzz_dwdie | fuzz_unwind | fuzz_disasm | fuzz_archive | fuzz_kcore)
		cp tests/fuzz/corpus/$n/* "$c/"
		perfdata=/nonexistent ;;
	esac
	for f in $perfdata tests/fuzz/corpus/$n/*; do
		[ "$perfdata" = /nonexistent ] && break
		[ -f "$f" ] || continue
		case $f in *.txt) continue ;; esac
		[ "$(stat -c %s "$f")" -gt 1000000 ] && continue
		modes="0 1 2 3"
		# fuzz_reader: 8, 9: blocks against one pipeline; 17: a pipe with
		# no usable temporary directory (a file-format stream read into
		# memory); fuzz_header: the file alone (its mode byte is skipped)
		[ $n = fuzz_reader ] && modes="0 1 2 3 8 9 17"
		[ $n = fuzz_header ] && modes="0"
		for m in $modes; do
			{ printf "\\x$(printf %02x "$m")"; cat "$f"; } > "$c/seed-$i-$m"
		done
		i=$((i + 1))
	done
	mkdir -p tests/fuzz/findings
	"$h" -max_total_time=$per -max_len=1048577 -timeout=20 -rss_limit_mb=2048 \
		-artifact_prefix=tests/fuzz/findings/$n- "$c" > "$W/$n.log" 2>&1
	rc=$?
	runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$W/$n.log" | awk '{print $2}')
	[ -z "$runs" ] && runs=$(grep -oE '#[0-9]+' "$W/$n.log" | tail -1)
	if [ $rc = 0 ]; then
		pass "fuzz/$n: ${per}s, $runs executions, no crash"
	else
		fail "fuzz/$n: exit $rc"
		grep -E 'ERROR|SUMMARY|Test unit written' "$W/$n.log" | head -5
	fi
done
