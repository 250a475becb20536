#!/bin/bash
# reader_record.sh: record workloads with perf 6.1 (frame pointers + kernel,
# DWARF, threads, fork+exec, pipe mode, system-wide) and require every
# `scorch script` sample header to equal perf script's, byte for byte.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
build_workload leaf_mid.c "$W/w" -O1 -g -fno-omit-frame-pointer -pthread || { fail "build workload"; exit 0; }
rec() { # NAME PERF-RECORD-ARGS... -- workload args
	local n=$1; shift
	perf record -q -o "$W/$n.data" "$@" > /dev/null 2>&1
}
rec fp -e cpu-clock -F 2000 -g "$W/w"
rec dwarf -e cpu-clock -F 1000 --call-graph dwarf "$W/w"
rec threads -e cpu-clock -F 2000 -g "$W/w" threads
rec forkexec -e cpu-clock -F 2000 -g "$W/w" forkexec
rec fixed -e cpu-clock -c 500000 "$W/w"
perf record -q -e cpu-clock -F 2000 -g -o - "$W/w" 2>/dev/null > "$W/pipe.data"
rec sysw -a -e cpu-clock -F 1000 -g -- "$W/w"
rec multi -e cpu-clock -e page-faults -F 1000 "$W/w"
for n in fp dwarf threads forkexec fixed pipe sysw multi; do
	f=$W/$n.data
	if [ ! -s "$f" ]; then fail "record $n with perf"; continue; fi
	perf_headers "$f" > "$W/$n.p"
	"$SCORCH" script --headers-only -i "$f" > "$W/$n.s" 2> "$W/$n.err"
	np=$(wc -l < "$W/$n.p")
	if cmp -s "$W/$n.p" "$W/$n.s" && [ "$np" -gt 50 ]; then
		pass "record/$n: $np sample headers == perf script"
	else
		fail "record/$n: headers differ from perf script ($np perf lines)"
		diff "$W/$n.p" "$W/$n.s" | head -5
	fi
	# sample counts agree with perf report --stats
	ps=$(perf report --stats -i "$f" 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
	ss=$("$SCORCH" stats -i "$f" | sed -n 's/^samples: //p')
	check "record/$n: stats samples $ss == perf report --stats $ps" [ "$ss" = "$ps" ]
	if [ -x "$SCORCH_ASAN" ]; then
		"$SCORCH_ASAN" script -i "$f" > /dev/null 2> "$W/asan" && ! grep -q Sanitizer "$W/asan"
		check "record/$n: ASan+UBSan script clean" [ $? = 0 ]
	fi
done
# comm changes at exec are seen in time order
grep -q ' child\| w ' "$W/forkexec.s"
check "record/forkexec: samples of both processes" [ "$(awk '{print $2}' "$W/forkexec.s" | sort -u | wc -l)" -ge 2 ]

# A file-format perf.data through a pipe (`cat f | scorch script -i -`): its
# features follow the data, so the stream is kept in an unlinked file in
# $TMPDIR and read as the file; memory stays that of the file (the stream
# used to be read whole into memory, at most 512 MiB).
perf record -q -o "$W/big.data" -e cpu-clock -F 4000 --call-graph dwarf "$W/w" 5000 > /dev/null 2>&1
big=$(stat -c %s "$W/big.data" 2>/dev/null || echo 0)
"$SCORCH" script -i "$W/big.data" > "$W/big.file" 2> "$W/big.file.err"
/usr/bin/time -f %M -o "$W/big.rss.file" "$SCORCH" script -i "$W/big.data" > /dev/null 2>&1
cat "$W/big.data" | /usr/bin/time -f %M -o "$W/big.rss.pipe" "$SCORCH" script -i - > "$W/big.pipe" 2> "$W/big.pipe.err"
check "record/stream: file-format through a pipe gives the file's output ($big bytes)" \
	cmp -s "$W/big.file" "$W/big.pipe"
rf=$(cat "$W/big.rss.file"); rp=$(cat "$W/big.rss.pipe")
ok=0; [ "$big" -gt $((30 << 20)) ] && [ "$rp" -le $((rf + 8192)) ] && ok=1
check "record/stream: RSS through a pipe ${rp} KB within the file's ${rf} KB + 8 MB ($((big >> 20)) MB stream)" [ $ok = 1 ]
mkdir -p "$W/tmpd"
cat "$W/big.data" | TMPDIR="$W/tmpd" "$SCORCH" script -i - > /dev/null 2>&1
check "record/stream: no temporary file left in TMPDIR" [ -z "$(ls -A "$W/tmpd")" ]
cat "$W/big.data" | TMPDIR="$W/no-such-dir" "$SCORCH" script -i - > "$W/big.mem" 2>&1
check "record/stream: without a usable TMPDIR the stream is read into memory, same output" \
	cmp -s "$W/big.file" "$W/big.mem"
"$SCORCH" perfparser --input "$W/big.data" --output "$W/big.pp.file" 2>/dev/null
cat "$W/big.data" | "$SCORCH" perfparser --output "$W/big.pp.pipe" 2>/dev/null
check "record/stream: perfparser stream through a pipe == from the file" cmp -s "$W/big.pp.file" "$W/big.pp.pipe"
if mkdir -p "$W/full" && mount -t tmpfs -o size=1m tmpfs "$W/full" 2>/dev/null; then
	cat "$W/big.data" | TMPDIR="$W/full" "$SCORCH" script -i - > /dev/null 2> "$W/full.err"
	rc=$?
	umount "$W/full"
	ok=0; [ $rc = 2 ] && [ "$(wc -l < "$W/full.err")" = 1 ] &&
		grep -q "cannot keep the input stream in $W/full: No space left on device" "$W/full.err" && ok=1
	check "record/stream: a full TMPDIR is exit 2 with one line (rc $rc: $(head -c 120 "$W/full.err"))" [ $ok = 1 ]
else
	fail "record/stream: cannot mount a tmpfs for the full-TMPDIR case"
fi
