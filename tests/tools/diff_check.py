#!/usr/bin/env python3
"""diff_check.py: checks for tests/e2e/diff.sh against perf. Prints PASS/FAIL
lines and exits 0.

  report CSV PERF_BASE PERF_NEW FUNC [--tol P] [--top N]
      `scorch diff -f csv`'s rows against `perf report --stdio --no-children
      --sort dso,sym` of each side: for FUNC and the top N entries (>= 1%)
      of each side, scorch's base and new shares and its delta are within
      P points (2) of perf report's; FUNC's delta is positive
  perfdiff CSV PERF_DIFF [--top N]
      the first N rows of `perf diff` with a delta agree in sign with
      scorch's delta of the same (dso, symbol) (rows under 0.05 points on
      both sides are noise and only counted); perf's row of a DSO's samples
      without a symbol (named by an address) is scorch's [DSO] row
  folded FILE BASE_SAMPLES NEW_SAMPLES FUNC
      difffolded lines "stack count_base count_new": the columns sum to
      each side's samples and FUNC's stacks grew
"""
import csv
import re
import sys

CLONE = re.compile(r'(\.(cold|isra|part|constprop|lto_priv|clone|localalias|llvm|specialized|mergedfunc)(\.\d+)*)+$')
REPORT_ROW = re.compile(r'^\s+([\d.]+)%\s+(\S+)\s+\[.\]\s+(.*?)\s*$')
RAW_ADDR = re.compile(r'^0x[0-9a-f]+$')
DIFF_ROW = re.compile(r'^\s+(?:[\d.]+%)?\s+([+-][\d.]+)%\s+(\S+)\s+\[.\]\s+(.*?)\s*$')


def ok(name, cond, detail=''):
    print(('PASS ' if cond else 'FAIL ') + name + (' (' + detail + ')' if detail else ''))


def fold(sym):
    return CLONE.sub('', sym)


def opt(args, name, default):
    if name in args:
        i = args.index(name)
        v = args[i + 1]
        del args[i:i + 2]
        return type(default)(v)
    return default


def read_csv(path):
    rows = {}
    with open(path) as f:
        r = csv.DictReader(f)
        for row in r:
            rows[(row['dso'], row['symbol'])] = row
    return rows


def perf_report(path):
    """{(dso, folded sym): percent}, in perf's order"""
    out = {}
    with open(path) as f:
        for line in f:
            if line.startswith('#'):
                continue
            m = REPORT_ROW.match(line)
            if m:
                k = (m.group(2), fold(m.group(3)))
                out[k] = out.get(k, 0.0) + float(m.group(1))
    return out


def report(args):
    tol = opt(args, '--tol', 2.0)
    top = opt(args, '--top', 5)
    csvp, pb, pn, func = args
    ours = read_csv(csvp)
    base, new = perf_report(pb), perf_report(pn)
    keys = []
    for side in (base, new):
        for k, v in sorted(side.items(), key=lambda kv: -kv[1])[:top]:
            if v >= 1.0 and k not in keys:
                keys.append(k)
    fk = [k for k in ours if k[1] == func]
    ok('scorch diff has a row for %s' % func, len(fk) == 1)
    if not fk:
        return
    if fk[0] not in keys:
        keys.insert(0, fk[0])
    for k in keys:
        b, n = base.get(k, 0.0), new.get(k, 0.0)
        row = ours.get(k)
        if row is None:
            ok('scorch diff has %s (%s) from perf report' % (k[1], k[0]), False)
            continue
        ob, on, od = float(row['base_pct']), float(row['new_pct']), float(row['delta_pct'])
        good = abs(ob - b) <= tol and abs(on - n) <= tol and abs(od - (n - b)) <= tol
        ok('%s (%s): delta %+.2f, base %.2f%%, new %.2f%%; perf report %+.2f (%.2f%% -> %.2f%%)'
           % (k[1], k[0], od, ob, on, n - b, b, n), good)
    od = float(ours[fk[0]]['delta_pct'])
    ok('%s grew: delta %+.2f points' % (func, od), od > 5)


def perfdiff(args):
    top = opt(args, '--top', 10)
    csvp, pd = args
    ours = read_csv(csvp)
    seen = agree = noise = 0
    bad = []
    with open(pd) as f:
        for line in f:
            if line.startswith('#') or seen >= top:
                continue
            m = DIFF_ROW.match(line)
            if not m:
                continue
            seen += 1
            d = float(m.group(1))
            k = (m.group(2), fold(m.group(3)))
            if RAW_ADDR.match(k[1]):
                # samples of a DSO with no symbol there: perf diff shows them
                # as one row named by an address, scorch diff as [DSO]
                k = (k[0], '[%s]' % k[0])
            row = ours.get(k)
            if row is None:
                bad.append('%s missing' % k[1])
                continue
            od = float(row['delta_pct'])
            if abs(d) < 0.05 and abs(od) < 0.05:
                noise += 1
            elif (d > 0) == (od > 0):
                agree += 1
            else:
                bad.append('%s: perf %+.2f, scorch %+.2f' % (k[1], d, od))
    ok('perf diff top %d rows agree in sign with scorch diff (%d agree, %d under 0.05 points)'
       % (seen, agree, noise), seen >= 4 and not bad, '; '.join(bad))


def folded(args):
    path, nb, nn, func = args
    sb = sn = fb = fn = bad = 0
    with open(path) as f:
        for line in f:
            parts = line.rstrip('\n').rsplit(' ', 2)
            if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
                bad += 1
                continue
            b, n = int(parts[1]), int(parts[2])
            sb += b
            sn += n
            if parts[0].split(';')[-1] == func:
                fb += b
                fn += n
    ok('difffolded lines are "stack count_base count_new" (%d bad)' % bad, bad == 0)
    ok('difffolded columns sum to the samples (%d = %s, %d = %s)' % (sb, nb, sn, nn),
       sb == int(nb) and sn == int(nn))
    ok('difffolded: %s %d -> %d samples' % (func, fb, fn), fn > fb > 0)


if __name__ == '__main__':
    {'report': report, 'perfdiff': perfdiff, 'folded': folded}[sys.argv[1]](sys.argv[2:])
