#!/bin/bash
# perfparser_peer.sh: `scorch perfparser` on the peer files (tests/data/peer,
# from perfparser's test suite) against Debian's hotspot-perfparser on the
# same input. For each file: both exit 0, scorch's stream decodes strictly
# (framing, ids defined before use, nothing left over), and the decoded
# samples (pid, tid, time, cpu, cost), threads, commands, lost events,
# context switches, attributes and features are the same; the stream's stacks
# are the ones `scorch script` prints. Stack differences
# are listed by kind with counts (informational: the reference's quirks and
# symbols it cannot find). Also: --print-stats prints hotspot-perfparser's
# figures for the same file, and the ASan build writes every stream cleanly.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
REF=${HOTSPOT_PERFPARSER_REF:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}
PP=$TOP/build/scorch-perfparser
DEC=$TOP/tests/tools/perfparser_decode.py
D=$TOP/tests/data/peer
cd "$D" || exit 1
if [ ! -x "$REF" ]; then
	skip perfparser_peer "no $REF"
	exit 0
fi
for f in */*.data* *.data*; do
	case $f in *.txt) continue ;; esac
	n=peer/$f
	"$PP" --input "$f" --output "$W/ours" 2> "$W/ours.err"
	rc=$?
	"$REF" --input "$f" --output "$W/ref" 2> /dev/null
	rrc=$?
	check "perfparser $n: exit 0 (reference $rrc)" [ "$rc" = 0 ]
	"$SCORCH" script --ip --max-frames 64 -i "$f" > "$W/script" 2> /dev/null
	python3 "$DEC" verify "$W/ours" "$W/ref" "$W/script" > "$W/v" 2>&1
	if grep -q '^RESULT check ok' "$W/v"; then
		pass "perfparser $n: stream decodes strictly ($(sed -n 's/^RESULT check ok //p' "$W/v"))"
	else
		fail "perfparser $n: stream decodes strictly"
		cat "$W/v"
		continue
	fi
	if grep -q '^RESULT compare ok' "$W/v"; then
		pass "perfparser $n: same samples/threads/commands/lost/features as hotspot-perfparser"
	else
		fail "perfparser $n: differs from hotspot-perfparser"
	fi
	grep -E '^(DIFF|note|  )' "$W/v" | sed 's/^/    /'
	if grep -q '^RESULT stacks ok' "$W/v"; then
		pass "perfparser $n: stream stacks == scorch script ($(sed -n 's/^samples: stream/stream/p' "$W/v"))"
	else
		fail "perfparser $n: stream stacks != scorch script"
		grep -E '^(samples:|kind|  example)' "$W/v" | sed 's/^/    /'
	fi
	# --print-stats: hotspot-perfparser's figures. Debian's is built without
	# zstd: on a compressed file it says so and reads no sample, and there is
	# nothing to compare (SKIP, with its words); reading nothing for any
	# other reason fails
	"$PP" --input "$f" --print-stats > "$W/s.ours" 2> /dev/null
	"$REF" --input "$f" --print-stats > "$W/s.ref" 2> "$W/s.ref.err"
	if grep -q '^samples: 0$' "$W/s.ref" && ! grep -q '^samples: 0$' "$W/s.ours"; then
		why=$(grep -m1 'zstd decompression support not available' "$W/s.ref.err")
		if [ -n "$why" ]; then
			skip "perfparser $n: --print-stats" "hotspot-perfparser reads no sample: $why"
		else
			fail "perfparser $n: --print-stats" "hotspot-perfparser reads no sample, scorch $(head -1 "$W/s.ours")"
			grep -v 'not properly read' "$W/s.ref.err" | head -5
		fi
	elif cmp -s "$W/s.ours" "$W/s.ref"; then
		pass "perfparser $n: --print-stats == hotspot-perfparser's"
	else
		fail "perfparser $n: --print-stats differs"
		diff "$W/s.ours" "$W/s.ref" | head -20
	fi
	if [ -x "$SCORCH_ASAN" ]; then
		if "$SCORCH_ASAN" perfparser --input "$f" --output "$W/asan" 2> "$W/asan.err" &&
			cmp -s "$W/asan" "$W/ours"; then
			pass "perfparser $n: ASan build, same stream"
		else
			fail "perfparser $n: ASan build"
			tail -20 "$W/asan.err"
		fi
	fi
done
