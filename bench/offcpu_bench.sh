#!/bin/bash
# offcpu_bench.sh: the cost of recording where a program waits, scorch vs
# perf, side by side in one run, on a switch-heavy workload: bench/pingpong.c
# (two threads ping-ponging a byte over pipes, 200,000 round trips: about
# 800,000 context switches).
#
# Recorders, the same events and call graph for both (default -g):
#   scorch record --off-cpu -g              (cpu-clock + sched:sched_switch
#                                            with stacks + switch records)
#   perf record -e cpu-clock -e sched:sched_switch --switch-events -g
# Prints per recorder the workload's own time (median of REPEATS runs,
# interleaved with unrecorded runs), the slowdown against the unrecorded
# median, the records written (samples, switch records) and the events lost
# (LOST and LOST_SAMPLES records in the file), then the ratio of scorch's
# slowdown to perf's (target <= 1) and the lost events (target 0).
#
# Usage: bench/offcpu_bench.sh [ROUNDS] [REPEATS]   (defaults 200000, 3)
# Env:   SCORCH (binary), CG (call graph option, default -g; e.g.
#        "--call-graph dwarf"), BENCH_DIR (scratch dir, default /tmp)
set -e
cd "$(dirname "$0")/.."
SCORCH=${SCORCH:-$PWD/build/scorch}
ROUNDS=${1:-200000}
REPEATS=${2:-3}
[ -x "$SCORCH" ] || { echo "build first: make" >&2; exit 2; }
command -v perf > /dev/null || { echo "perf not installed" >&2; exit 2; }
D=$(mktemp -d "${BENCH_DIR:-/tmp}/scorch-offcpu-bench.XXXXXX")
trap 'rm -rf "$D"' EXIT
gcc -O2 -g -fno-omit-frame-pointer -pthread -o "$D/pingpong" bench/pingpong.c
export SCORCH ROUNDS REPEATS D CG=${CG:--g}
exec python3 - << 'PY'
import os, shlex, statistics, struct, subprocess, sys

SCORCH, D = os.environ["SCORCH"], os.environ["D"]
ROUNDS, REPEATS = os.environ["ROUNDS"], int(os.environ["REPEATS"])
CG = shlex.split(os.environ["CG"])
WL = [os.path.join(D, "pingpong"), ROUNDS]
RECORDERS = [
    ("scorch", [SCORCH, "record", "-q", "--off-cpu"] + CG),
    ("perf", ["perf", "record", "-q", "-e", "cpu-clock", "-e", "sched:sched_switch",
              "--switch-events"] + CG),
]

def count(path):
    """samples, switch records, lost events: a walk over the data section"""
    with open(path, "rb") as f:
        buf = f.read()
    if buf[:8] != b"PERFILE2":
        raise SystemExit("%s: not a perf.data file" % path)
    off, size = struct.unpack_from("<QQ", buf, 40)
    end = off + size
    samples = switches = lost = 0
    while off + 8 <= end:
        typ, misc, sz = struct.unpack_from("<IHH", buf, off)
        if sz < 8 or off + sz > end:
            break
        if typ == 9:
            samples += 1
        elif typ in (14, 15):
            switches += 1
        elif typ == 2:
            lost += struct.unpack_from("<Q", buf, off + 16)[0]
        elif typ == 13:
            lost += struct.unpack_from("<Q", buf, off + 8)[0]
        off += sz
    return samples, switches, lost

def run(cmd):
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True)
    return float(out.stdout.decode().split()[-1])

base, times, stats = [], {n: [] for n, _ in RECORDERS}, {}
for r in range(REPEATS):
    base.append(run(WL))
    for name, cmd in RECORDERS:
        data = os.path.join(D, name + ".data")
        times[name].append(run(cmd + ["-o", data, "--"] + WL))
        stats[name] = count(data)
        os.unlink(data)
b = statistics.median(base)
print("pingpong %s round trips, call graph %s, median of %d runs" % (ROUNDS, " ".join(CG), REPEATS))
print("%-8s %9s %9s %10s %10s %8s" % ("", "time s", "slowdown", "samples", "switches", "lost"))
print("%-8s %9.3f %9s" % ("alone", b, "1.00x"))
slow = {}
for name, _ in RECORDERS:
    t = statistics.median(times[name])
    slow[name] = t / b
    s, sw, lost = stats[name]
    print("%-8s %9.3f %8.2fx %10d %10d %8d" % (name, t, slow[name], s, sw, lost))
for name, cmd in RECORDERS:
    print("  %s: %s -o FILE -- pingpong %s" % (name, " ".join(os.path.basename(c) if c == SCORCH else c for c in cmd), ROUNDS))
print("ratio: scorch slowdown / perf slowdown = %.2f (target <= 1)" % (slow["scorch"] / slow["perf"]))
print("lost events: scorch %d, perf %d (target 0)" % (stats["scorch"][2], stats["perf"][2]))
PY
