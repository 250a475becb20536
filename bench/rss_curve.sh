#!/bin/bash
# rss_curve.sh: how the peak RSS follows the part of a recording read so far,
# within one run of each analyzer.
#
#   bench/rss_curve.sh FILE [MARKS]
#
# Runs `scorch script` (to /dev/null), `scorch perfparser` (to /dev/null)
# and hotspot-perfparser (REF_RUNS=0 skips it) on FILE, one after the other,
# each RUNS times (default 3), and reads every 10 ms the analyzer's peak RSS
# so far (VmHWM in /proc/PID/status) and the bytes it has read
# (rchar in /proc/PID/io). Prints the peak RSS, median of the runs, at the
# moment each analyzer had first read MARKS bytes (default: 0.2, 0.5, 1, 1.5
# and 2 GB, those below the file's size, then the whole file), and the
# growth over the second half of the file: peak at the end minus the peak
# when half the file had been read.
#
# Why within one run: separate recordings of 0.2, 1 and 2 GB differ in more
# than their size (sampling rate, which programs ran: a build links at its
# end, and the linker's libraries come with it), while the prefixes of one
# recording differ in their size only. The peak RSS when X bytes have been
# read is at most what a run on the first X bytes would have peaked at.
#
# rchar counts every read: the perf.data file, and the few files read with
# read(2) besides (kallsyms, /proc). scorch reads the file with pread, ahead
# of its analysis by at most a chunk (256 KB) and the ordering window.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
RUNS=${RUNS:-3}
[ $# -ge 1 ] || { echo "usage: bench/rss_curve.sh FILE [MARKS]" >&2; exit 2; }
F=$1
[ -s "$F" ] || { echo "rss_curve: $F: no such file" >&2; exit 1; }
bench_peer_tools rss_curve
SIZE=$(stat -c %s "$F")
MARKS=${2:-"200000000 500000000 1000000000 1500000000 2000000000"}
W=$(mktemp -d /tmp/scorch-rsscurve.XXXXXX)
trap 'rm -rf "$W"' EXIT

# trace NAME CMD...: runs CMD under /usr/bin/time in the background and
# appends one line to $W/NAME: "bytes:peak_kb" every 10 ms, then "end:KB"
# (time's %M: the peak of the whole run)
trace() {
	local n=$1
	shift
	cat "$F" > /dev/null
	/usr/bin/time -f %M -o "$W/m" "$@" > /dev/null 2>&1 &
	local t=$! p="" line="" r h
	while kill -0 $t 2> /dev/null; do
		[ -n "$p" ] || p=$(cat /proc/$t/task/$t/children 2> /dev/null | tr -d " ")
		if [ -n "$p" ]; then
			r=$(awk '/^rchar/ {print $2}' /proc/$p/io 2> /dev/null)
			h=$(awk '/^VmHWM/ {print $2}' /proc/$p/status 2> /dev/null)
			[ -n "$r" ] && [ -n "$h" ] && line="$line $r:$h"
		fi
		sleep 0.01
	done
	wait $t
	echo "$line end:$(tail -1 "$W/m")" >> "$W/$n"
}

echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); file $F, $SIZE bytes"
for i in $(seq "$RUNS"); do
	trace script "$SC" script -i "$F"
	trace perfparser "$SC" perfparser --input "$F" --output /dev/null
done
for i in $(seq "$REF_RUNS"); do
	trace hotspot-perfparser "$REF" --input "$F" --output /dev/null
done

python3 - "$W" "$SIZE" $MARKS << 'EOF'
import os, statistics, sys
w, size = sys.argv[1], int(sys.argv[2])
marks = [int(m) for m in sys.argv[3:] if int(m) < size]
cols = [(f"{m / 1e9:g} GB", m) for m in marks] + [("half", size // 2)]
print(f"peak RSS (MB) when the first bytes had been read; median of the runs")
print(f"  {'analyzer':<20}" + "".join(f"{c:>9}" for c, _ in cols) + f"{'end':>9}{'2nd half':>10}")
for name in ("script", "perfparser", "hotspot-perfparser"):
    p = os.path.join(w, name)
    if not os.path.exists(p):
        continue
    rows = []
    for line in open(p):
        pts, end = [], None
        for tok in line.split():
            a, b = tok.split(":")
            if a == "end":
                end = int(b)
            else:
                pts.append((int(a), int(b)))
        at = []
        for _, m in cols:
            # the peak so far at the first reading past m bytes
            v = next((kb for r, kb in pts if r >= m), end)
            at.append(v)
        rows.append(at + [end])
    med = [statistics.median(c) / 1024 for c in zip(*rows)]
    print(f"  {name:<20}" + "".join(f"{v:>9.1f}" for v in med) + f"{med[-1] - med[-2]:>+10.1f}")
EOF
