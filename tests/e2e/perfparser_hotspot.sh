#!/bin/bash
# perfparser_hotspot.sh: hotspot 1.3.0 itself, headless, reading scorch's
# stream. Records the pp_threads workload (DWARF and frame-pointer call
# graphs), runs hotspot with HOTSPOT_PERFPARSER pointing at scorch and
# HOTSPOT_GENERATE_SCRIPT_OUTPUT=1 (hotspot prints its own per-sample view),
# then again with hotspot-perfparser, and checks:
#   - the parser exits 0 and hotspot logs no stream error;
#   - hotspot shows as many samples with scorch as with its own parser, and
#     as perf script prints; the same with scorch's parser on 2 threads;
#   - hotspot's stacks agree with perf script's (function names, inline and
#     kernel frames): the agreement is printed for scorch and for
#     hotspot-perfparser, with the kinds of difference;
#   - on the peer files hotspot-perfparser reads, hotspot shows as many samples
#     with scorch as with its own parser.
# hotspot stays up as a GUI after parsing; a wrapper around the parser marks
# when it exited and the test stops hotspot once its output is complete.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
# all 'TEST' ...: every test holds (check's own locals shadow names: no $n here)
all() { for c in "$@"; do eval "$c" || return 1; done; }
REF=${HOTSPOT_PERFPARSER_REF:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}
PP=$TOP/build/scorch-perfparser
DEC=$TOP/tests/tools/perfparser_decode.py
if ! command -v hotspot > /dev/null || ! command -v perf > /dev/null || [ ! -x "$REF" ]; then
	skip perfparser_hotspot "needs hotspot, perf and $REF"
	exit 0
fi
if ! gcc -O2 -g -fno-omit-frame-pointer -pthread -o "$W/pp_threads" \
	"$TOP/tests/workloads/pp_threads.c" -lm; then
	fail "perfparser_hotspot: build workload"
	exit 0
fi

cat > "$W/wrap.sh" << 'EOF'
#!/bin/sh
"$PP_REAL" "$@"
rc=$?
echo $rc > "$PP_DONE"
exit $rc
EOF
chmod +x "$W/wrap.sh"

# samples OUT: the per-sample lines in hotspot's script view OUT
samples() { grep -c $'^[^\t].*\t[0-9]*\t[0-9]*\.[0-9]*:\t' "$1"; }

# run_hotspot PARSER DATA OUT [N]: hotspot's script view in OUT, parser status
# in OUT.rc. hotspot prints the view while it reads the stream and goes on
# after the parser has exited, so OUT is taken as complete once it holds N
# samples (when N is known; at most 30 s) and its size has stayed the same
# for a second: a busy machine can hold hotspot back for more than a few
# tenths of a second between two writes.
run_hotspot() {
	rm -f "$3.rc"
	PP_REAL=$1 PP_DONE=$3.rc QT_QPA_PLATFORM=offscreen HOTSPOT_PERFPARSER=$W/wrap.sh \
		HOTSPOT_GENERATE_SCRIPT_OUTPUT=1 XDG_RUNTIME_DIR=$W \
		timeout 120 hotspot "$2" > "$3" 2> "$3.err" &
	local hp=$! i prev=-1 s same=0
	for i in $(seq 1 1200); do
		[ -e "$3.rc" ] && break
		kill -0 $hp 2> /dev/null || break
		sleep 0.1
	done
	# the parser is done; wait until hotspot has printed everything
	if [ -n "${4:-}" ]; then
		for i in $(seq 1 300); do
			[ "$(samples "$3")" -ge "$4" ] && break
			kill -0 $hp 2> /dev/null || break
			sleep 0.1
		done
	fi
	for i in $(seq 1 200); do
		s=$(stat -c %s "$3")
		if [ "$s" = "$prev" ] && [ "$s" != 0 ]; then
			same=$((same + 1))
			[ $same -ge 4 ] && break
		else
			same=0
		fi
		kill -0 $hp 2> /dev/null || break
		prev=$s
		sleep 0.25
	done
	kill $hp 2> /dev/null
	wait $hp 2> /dev/null
	[ -e "$3.rc" ] || echo none > "$3.rc"
}

for cg in dwarf fp; do
	d=$W/$cg.data
	if ! perf record -q -e cpu-clock --call-graph $cg -o "$d" "$W/pp_threads" 300 > /dev/null 2>&1; then
		fail "perfparser_hotspot $cg: perf record"
		continue
	fi
	perf script -i "$d" --ns --inline -F pid,tid,time,ip,sym,dso > "$W/$cg.ps" 2> /dev/null
	nperf=$(grep -c '^ *[0-9]*/[0-9]* ' "$W/$cg.ps")
	run_hotspot "$PP" "$d" "$W/$cg.ours" "$nperf"
	run_hotspot "$REF" "$d" "$W/$cg.ref" "$nperf"
	check "perfparser_hotspot $cg: scorch parser exit $(cat "$W/$cg.ours.rc")" [ "$(cat "$W/$cg.ours.rc")" = 0 ]
	# the parser on two threads (what `scorch hotspot -j 2` asks for)
	SCORCH_PERFPARSER_JOBS=2 run_hotspot "$PP" "$d" "$W/$cg.j2" "$nperf"
	check "perfparser_hotspot $cg: hotspot shows the same with SCORCH_PERFPARSER_JOBS=2 (exit $(cat "$W/$cg.j2.rc"))" \
		all '[ "$(cat "$W/$cg.j2.rc")" = 0 ]' 'cmp -s "$W/$cg.ours" "$W/$cg.j2"'
	if ! cmp -s "$W/$cg.ours" "$W/$cg.j2"; then
		echo "  -j 1 vs -j 2 view ($(wc -c < "$W/$cg.ours") and $(wc -c < "$W/$cg.j2") bytes, $(samples "$W/$cg.ours") and $(samples "$W/$cg.j2") samples):"
		diff "$W/$cg.ours" "$W/$cg.j2" | head -20 | sed 's/^/    /'
	fi
	errs=$(grep -ciE 'hotspot\.perfparser|failed to read header magic|invalid event type|did not consume all bytes|unexpected attribute id' "$W/$cg.ours.err")
	check "perfparser_hotspot $cg: hotspot logs no stream error ($errs)" [ "$errs" = 0 ]
	nours=$(samples "$W/$cg.ours")
	nref=$(samples "$W/$cg.ref")
	check "perfparser_hotspot $cg: hotspot shows $nours samples with scorch, $nref with hotspot-perfparser, perf script $nperf" \
		all '[ "$nours" = "$nref" ]' '[ "$nours" = "$nperf" ]' '[ "$nours" -gt 100 ]'
	python3 "$DEC" hotspot-vs-script "$W/$cg.ours" "$W/$cg.ps" > "$W/$cg.cmp.ours"
	python3 "$DEC" hotspot-vs-script "$W/$cg.ref" "$W/$cg.ps" > "$W/$cg.cmp.ref"
	po=$(sed -n 's/^same stacks: .*(\(.*\)%)$/\1/p' "$W/$cg.cmp.ours")
	pr=$(sed -n 's/^same stacks: .*(\(.*\)%)$/\1/p' "$W/$cg.cmp.ref")
	echo "  scorch vs perf script:"
	sed 's/^/    /' "$W/$cg.cmp.ours"
	echo "  hotspot-perfparser vs perf script:"
	sed 's/^/    /' "$W/$cg.cmp.ref"
	if ! grep -qvP '^\t[0-9a-f]+ \[unknown\] ' <(grep -P '^\t' "$W/$cg.ours"); then
		skip "perfparser_hotspot $cg: stacks" "this build has no symbolizer: every frame [unknown]"
	else
		check "perfparser_hotspot $cg: stacks agree with perf script (scorch ${po}%, hotspot-perfparser ${pr}%)" \
			awk -v a="$po" -v b="$pr" 'BEGIN { exit !(a >= 90 || (a >= b && a >= 50)) }'
	fi
done

# the peer files hotspot-perfparser can read (not zstd): same sample count
# through hotspot with either parser, no stream error
# (one of each kind: a DWARF file; a pipe with a tracepoint)
for f in vector_static_gcc/perf.data probe.data.stream; do
	d=$TOP/tests/data/peer/$f
	n=$(echo "$f" | tr / _)
	run_hotspot "$PP" "$d" "$W/$n.ours"
	run_hotspot "$REF" "$d" "$W/$n.ref"
	nours=$(samples "$W/$n.ours")
	nref=$(samples "$W/$n.ref")
	errs=$(grep -ciE 'hotspot\.perfparser|failed to read header magic|invalid event type|did not consume all bytes|unexpected attribute id' "$W/$n.ours.err")
	prc=$(cat "$W/$n.ours.rc")
	check "perfparser_hotspot peer/$f: parser exit $prc, $errs stream errors, $nours samples (hotspot-perfparser: $nref)" \
		all '[ "$prc" = 0 ]' '[ "$errs" = 0 ]' '[ "$nours" = "$nref" ]' '[ "$nours" -gt 0 ]'
done
