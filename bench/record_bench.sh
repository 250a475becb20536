#!/bin/bash
# record_bench.sh: scorch record vs perf record, side by side, on the same
# CPU-bound workload (build/workloads/record_spin, one thread) in one run.
#
# Settings:  stress  = -e cpu-clock -F 20000 --call-graph dwarf,16384 -m 8
#            default = -e cpu-clock -F 4000 --call-graph dwarf,8192 (perf's
#                      defaults; both recorders copy the same stack)
# Recorders: scorch (io_uring), scorch --aio, scorch --aio=4, scorch --io sync,
#            perf, perf --aio, perf --aio=4, perf --threads
# Prints per run: samples, samples per CPU-second of the workload, lost
# samples (LOST/LOST_SAMPLES records) and lost %, the recorder's own CPU
# seconds (its rusage minus the workload's); then the ratios the issue
# targets: stress loss vs perf's best mode (<= 0.25) and recorder CPU vs that
# mode's (<= 1), default loss (0) and CPU vs perf (<= 0.5); and samples kept
# per recorder CPU-second for each recorder.
#
# Usage: bench/record_bench.sh [SECONDS] [REPEATS]   (defaults 3, 1)
# Env:   SCORCH (binary), BENCH_DIR (scratch dir, default /tmp)
set -e
cd "$(dirname "$0")/.."
SCORCH=${SCORCH:-$PWD/build/scorch}
SPIN=$PWD/build/workloads/record_spin
SECS=${1:-3}
REPEATS=${2:-1}
[ -x "$SCORCH" ] && [ -x "$SPIN" ] || { echo "build first: make" >&2; exit 2; }
command -v perf >/dev/null || { echo "perf not installed" >&2; exit 2; }
export SCORCH SPIN SECS REPEATS BENCH_DIR=${BENCH_DIR:-/tmp}
exec python3 - <<'PY'
import glob, mmap, os, shutil, struct, subprocess, sys, tempfile, time

SCORCH, SPIN = os.environ["SCORCH"], os.environ["SPIN"]
SECS, REPEATS = float(os.environ["SECS"]), int(os.environ["REPEATS"])
SETTINGS = {
    "stress": ["-e", "cpu-clock", "-F", "20000", "--call-graph", "dwarf,16384", "-m", "8"],
    "default": ["-e", "cpu-clock", "-F", "4000", "--call-graph", "dwarf,8192"],
}
RECORDERS = [
    ("scorch", [SCORCH, "record"], []),
    ("scorch --aio", [SCORCH, "record"], ["--aio"]),
    ("scorch --aio=4", [SCORCH, "record"], ["--aio=4"]),
    ("scorch --io sync", [SCORCH, "record"], ["--io", "sync"]),
    ("perf", ["perf", "record"], []),
    ("perf --aio", ["perf", "record"], ["--aio"]),
    ("perf --aio=4", ["perf", "record"], ["--aio=4"]),
    ("perf --threads", ["perf", "record"], ["--threads"]),
]

def scan(buf, start, end, acc):
    off = start
    while off + 8 <= end:
        typ, misc, size = struct.unpack_from("<IHH", buf, off)
        if size < 8 or off + size > end:
            break
        if typ == 9:
            acc[0] += 1
        elif typ == 2:
            acc[1] += struct.unpack_from("<Q", buf, off + 16)[0]
        elif typ == 13:
            acc[1] += struct.unpack_from("<Q", buf, off + 8)[0]
        off += size

def count(path):
    """(samples, lost samples) of a perf.data file or directory."""
    acc = [0, 0]
    head = os.path.join(path, "data") if os.path.isdir(path) else path
    with open(head, "rb") as f:
        buf = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        data_off, data_size = struct.unpack_from("<QQ", buf, 40)
        scan(buf, data_off, data_off + data_size, acc)
    if os.path.isdir(path):
        for p in sorted(glob.glob(os.path.join(path, "data.*"))):
            if os.path.getsize(p) == 0:
                continue
            with open(p, "rb") as f:
                b = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
                scan(b, 0, len(b), acc)
    return acc

def run(name, base, extra, setting, tmp):
    out = os.path.join(tmp, "bench.data")
    rep = os.path.join(tmp, "spin.cpu")
    for p in (out, rep):
        if os.path.isdir(p):
            shutil.rmtree(p)
        elif os.path.exists(p):
            os.unlink(p)
    cmd = base + ["-q", "-o", out] + SETTINGS[setting] + extra + ["--", SPIN, str(SECS), "1"]
    env = dict(os.environ, RECORD_SPIN_REPORT=rep)
    t0 = time.time()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.time() - t0
    err = p.stderr.read().decode(errors="replace").strip()
    if status != 0:
        print(f"  {name}: exit status {status}: {err[:200]}", file=sys.stderr)
        return None
    work = float(open(rep).read())
    cpu = ru.ru_utime + ru.ru_stime - work
    samples, lost = count(out)
    return dict(samples=samples, lost=lost, work=work, cpu=cpu, wall=wall)

def main():
    tmp = tempfile.mkdtemp(prefix="scorch-bench.", dir=os.environ.get("BENCH_DIR", "/tmp"))
    results = {}
    try:
        for setting in SETTINGS:
            print(f"== {setting}: {' '.join(SETTINGS[setting])}  (workload {SECS:g} s, {REPEATS} run(s) each)")
            print(f"  {'recorder':<18} {'samples':>9} {'samples/cpu-s':>13} {'lost':>9} {'lost%':>7} {'rec cpu-s':>9} {'kept/rec-cpu-s':>14} {'wall s':>7}")
            for name, base, extra in RECORDERS:
                runs = [r for r in (run(name, base, extra, setting, tmp) for _ in range(REPEATS)) if r]
                if not runs:
                    continue
                s = sum(r["samples"] for r in runs); l = sum(r["lost"] for r in runs)
                w = sum(r["work"] for r in runs); c = sum(r["cpu"] for r in runs) / len(runs)
                wall = sum(r["wall"] for r in runs) / len(runs)
                pct = 100.0 * l / (s + l) if s + l else 0.0
                results[(setting, name)] = dict(lost_pct=pct, lost=l, cpu=c)
                kept = (s / len(runs)) / c if c > 0 else float("inf")
                print(f"  {name:<18} {s // len(runs):>9} {s / w if w else 0:>13.0f} {l // len(runs):>9} {pct:>6.2f}% {c:>9.3f} {kept:>14.0f} {wall:>7.2f}")
        print("== ratios")
        perf_modes = [n for n, _, _ in RECORDERS if n.startswith("perf")]
        best = min((results[("stress", m)]["lost_pct"], m) for m in perf_modes if ("stress", m) in results)
        sc = results.get(("stress", "scorch"))
        if sc:
            ratio = sc["lost_pct"] / best[0] if best[0] else float("inf") if sc["lost_pct"] else 0.0
            print(f"  stress: scorch lost {sc['lost_pct']:.2f}% vs perf's best ({best[1]}) {best[0]:.2f}%: ratio {ratio:.3f} (target <= 0.25)")
            bc = results[("stress", best[1])]["cpu"]
            print(f"  stress: recorder CPU scorch {sc['cpu']:.3f} s vs {best[1]} {bc:.3f} s: ratio {sc['cpu'] / bc if bc > 0 else float('inf'):.3f} (target <= 1)")
        sd, pd = results.get(("default", "scorch")), results.get(("default", "perf"))
        if sd and pd:
            print(f"  default: scorch lost {sd['lost']} samples (target 0); recorder CPU scorch {sd['cpu']:.3f} s vs perf {pd['cpu']:.3f} s: ratio {sd['cpu'] / pd['cpu'] if pd['cpu'] > 0 else float('inf'):.3f} (target <= 0.5)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

main()
PY
