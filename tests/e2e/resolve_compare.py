#!/usr/bin/env python3
"""resolve_compare.py: compare `scorch script` with `perf script` sample by
sample.

Usage: resolve_compare.py PERF.txt SCORCH.txt NAME [--min-stack 99]
       [--min-leaf 99.5] [--min-complete PCT] [--perf-gaps 1]

--perf-gaps 1: a sample also agrees when perf's stack is scorch's with some
frames left out (perf's unwinder falls back to the frame-pointer chain in
freshly exec'ed processes of a parallel build and skips frames there).

Samples are matched by their header line (comm pid/tid time period event).
Frames are compared by function name, GCC clone suffixes (.isra.N,
.constprop.N, .part.N, .cold) removed, as far as the shorter stack goes.
Prints the measured agreement and PASS/FAIL lines.
Complete stacks: the outermost user frame is _start (or _dl_start_user, a
label in ld.so's _start code), start_thread or clone3, counted over the
samples that have user frames.
"""
import re
import sys

CLONE = re.compile(r'(\.(isra|constprop|part|cold|lto_priv|localalias)(\.\d+)*)+$')
FRAME = re.compile(r'^\s+([0-9a-f]+) (.*) \((.*)\)$')


def parse(path):
    samples = []
    cur = None
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            if not line:
                cur = None
                continue
            if not line.startswith('\t') and not line.startswith(' '):
                cur = [line.strip(), []]
                samples.append(cur)
                continue
            if cur is None:
                continue
            m = FRAME.match(line)
            if not m:
                continue
            sym, dso = m.group(2), m.group(3)
            inl = dso == 'inlined'
            if sym.endswith(' (inlined)'):
                sym, inl = sym[:-10], True
            sym = re.sub(r'\+0x[0-9a-f]+$', '', sym)
            sym = CLONE.sub('', sym)
            cur[1].append((sym, inl, dso))
    return samples


def subseq(a, b):
    """a is b with some frames left out (perf's libdw walk sometimes falls
    back to the frame-pointer chain and skips frames; it also prints
    [unknown] for frames it could not name)."""
    it = iter(b)
    return all(any(x == y for y in it) for x in a if x != '[unknown]')


def complete(frames):
    user = [f for f in frames if not f[2].startswith('[kernel')]
    if not user:
        return None
    # _dl_start_user is a label inside ld.so's _start (RTLD_START): the
    # process entry while ld.so runs the constructors
    return user[-1][0] in ('_start', 'start_thread', 'clone3', '__clone3', '_dl_start_user')


def main():
    a = sys.argv[1:]
    perf_path, scorch_path, name = a[0], a[1], a[2]
    opts = {'--min-stack': 99.0, '--min-leaf': 99.5, '--min-complete': None}
    i = 3
    while i < len(a):
        opts[a[i]] = float(a[i + 1])
        i += 2
    P = parse(perf_path)
    S = parse(scorch_path)
    if not P:
        print(f'FAIL {name} (perf script gave no samples)')
        return 1
    if not S:
        print(f'FAIL {name} (scorch script gave no samples)')
        return 1
    # match by header, in order
    from collections import defaultdict, deque
    idx = defaultdict(deque)
    for h, fr in S:
        idx[h].append(fr)
    n = matched = stack_ok = leaf_ok = gap_ok = 0
    cp = cs = nu = 0
    bad = []
    for h, pf in P:
        n += 1
        if not idx[h]:
            bad.append((h, pf, None))
            continue
        sf = idx[h].popleft()
        matched += 1
        k = min(len(pf), len(sf))
        same = all(pf[j][0] == sf[j][0] for j in range(k))
        if same and (k > 0 or len(pf) == len(sf)):
            stack_ok += 1
            gap_ok += 1
        else:
            if pf and sf and pf[0][0] == sf[0][0] and subseq([f[0] for f in pf], [f[0] for f in sf]):
                gap_ok += 1
            elif len(bad) < 5:
                bad.append((h, pf, sf))
        if (not pf and not sf) or (pf and sf and pf[0][0] == sf[0][0]):
            leaf_ok += 1
        c = complete(pf)
        if c is not None:
            nu += 1
        if c:
            cp += 1
        c = complete(sf)
        if c:
            cs += 1
    ps = 100.0 * stack_ok / n
    pg = 100.0 * gap_ok / n
    pl = 100.0 * leaf_ok / n
    print(f'{name}: samples {n} matched {matched} stack-agree {ps:.2f}% '
          f'(allowing frames perf skipped {pg:.2f}%) leaf-agree {pl:.2f}% '
          f'complete (of {nu} with user frames) perf {100.0*cp/max(nu,1):.2f}% scorch {100.0*cs/max(nu,1):.2f}%')
    for h, pf, sf in bad[:3]:
        print('  differs:', h)
        if sf is None:
            print('    scorch: missing')
            continue
        # from the first frame that differs (a long C++ chain cut at a
        # fixed width once hid where it was)
        k = next((i for i, (a, b) in enumerate(zip(pf, sf)) if a[0] != b[0]), min(len(pf), len(sf)))
        print(f'    from frame {k} of {len(pf)} (perf) / {len(sf)} (scorch):')
        print('    perf:  ', ' <- '.join(f[0] for f in pf[k:k + 6]))
        print('    scorch:', ' <- '.join(f[0] for f in sf[k:k + 6]))
    rc = 0
    v = pg if opts.get('--perf-gaps') else ps
    ok = v >= opts['--min-stack']
    print(f"{'PASS' if ok else 'FAIL'} {name}-stacks ({v:.2f}% >= {opts['--min-stack']}%"
          f"{', frames perf skipped allowed' if opts.get('--perf-gaps') else ''})")
    rc |= not ok
    ok = pl >= opts['--min-leaf']
    print(f"{'PASS' if ok else 'FAIL'} {name}-leaf ({pl:.2f}% >= {opts['--min-leaf']}%)")
    rc |= not ok
    if opts['--min-complete'] is not None:
        pc = 100.0 * cs / max(nu, 1)
        ok = pc >= opts['--min-complete']
        print(f"{'PASS' if ok else 'FAIL'} {name}-complete ({pc:.2f}% >= {opts['--min-complete']}%)")
        rc |= not ok
    return rc


if __name__ == '__main__':
    sys.exit(main())
