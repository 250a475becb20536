#!/usr/bin/env python3
"""compare_peer.py EXPECTED.txt SCORCH_RAW.txt

Compares perfparser's expected test output (per sample: comm pid tid time,
then "attr: period", then frame lines "addr rel ...") with `scorch script
--raw` (comm pid tid time period ip cpu event). Checks, sample by sample:
pid, tid, time (ns), period and the sampled ip (the first frame perfparser
printed: the first call chain entry where there is one); counts comm differences separately (perfparser names a sample
taken before an exec with the post-exec comm, perf script does not).
Prints PASS/FAIL lines; exits 1 on any mismatch but comm.
"""
import re
import sys

def parse_expected(path):
    samples = []
    cur = None
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        m = re.match(r"^(\S[^\t]*)\t(-?\d+)\t(-?\d+)\t(\d+)\.(\d{9})$", line)
        if m:
            cur = {"comm": m.group(1), "pid": int(m.group(2)), "tid": int(m.group(3)),
                   "time": int(m.group(4)) * 1000000000 + int(m.group(5)), "ip": None, "period": None}
            samples.append(cur)
            continue
        if cur is None:
            continue
        m = re.match(r"^\t([^\t:]+): (\d+)$", line)
        if m and cur["period"] is None:
            cur["period"] = int(m.group(2))
            continue
        m = re.match(r"^\t([0-9a-f]+) [0-9a-f]+\t", line)
        if m and cur["ip"] is None and cur["period"] is not None:
            cur["ip"] = int(m.group(1), 16)
    return samples

def parse_raw(path):
    out = []
    for line in open(path, encoding="utf-8", errors="replace"):
        f = line.rstrip("\n").split("\t")
        if len(f) < 8:
            continue
        out.append({"comm": f[0], "pid": int(f[1]), "tid": int(f[2]), "time": int(f[3]),
                    "period": int(f[4]), "ip": int(f[5], 16),
                    "ip0": int(f[8] if len(f) > 8 else f[5], 16)})
    return out

def main():
    exp, got = parse_expected(sys.argv[1]), parse_raw(sys.argv[2])
    name = sys.argv[3] if len(sys.argv) > 3 else sys.argv[1]
    bad = 0
    if len(exp) != len(got):
        print(f"FAIL {name}: sample count {len(got)} != expected {len(exp)}")
        return 1
    comm_diff = 0
    for i, (e, g) in enumerate(zip(exp, got)):
        for k in ("pid", "tid", "time", "period", "ip"):
            if k == "ip" and e[k] == g["ip0"]:
                continue  # perfparser's first frame: the first call chain entry
            if e[k] is not None and e[k] != g[k]:
                if bad < 5:
                    print(f"  sample {i}: {k} {g[k]} != expected {e[k]}")
                bad += 1
        if e["comm"][:15] != g["comm"][:15]:
            comm_diff += 1
    status = "PASS" if bad == 0 else "FAIL"
    print(f"{status} {name}: {len(got)} samples, {bad} field mismatches, "
          f"{comm_diff} comm differences (perfparser's post-exec naming)")
    return 0 if bad == 0 else 1

sys.exit(main())
