#!/usr/bin/env python3
"""outputs_check.py: checks for tests/e2e/outputs_*.sh. Each subcommand
prints PASS/FAIL lines (the test's names) and exits 0.

  entries NAME OURS PERF [--top N] [--tol PCT] [--children]
      the top N entries of `perf report --stdio` (>= 0.5%) are in our report
      with the same percentages (within tol)
  pprof NAME PPROF_TOP OURS [--top N] [--tol PCT]
      go tool pprof -top's flat% of its top functions equal our self%
  speedscope NAME FILE TOTAL
      the file follows speedscope's schema (types, index ranges) and its
      weights sum to TOTAL
  svg NAME FILE     well-formed SVG with frames
  width NAME FILE COLS   no line longer than COLS
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

PCT = re.compile(r'^\s*([\d.]+)%\s+(?:([\d.]+)%\s+)?(.*)$')


def ok(name, cond, detail=''):
    print(('PASS ' if cond else 'FAIL ') + name + (' (' + detail + ')' if detail else ''))


def parse_report(path, children):
    """(key, first%, second%) rows; key = tuple of the remaining columns."""
    rows = []
    for line in open(path, errors='replace'):
        if line.startswith('#') or '%' not in line:
            continue
        if line.lstrip().startswith(('|', '`', '-')):
            continue
        m = PCT.match(line)
        if not m:
            continue
        rest = m.group(3).split()
        if not rest:
            continue
        a = float(m.group(1))
        b = float(m.group(2)) if m.group(2) else None
        # comm dso [.] sym...
        if '[.]' in rest or '[k]' in rest:
            i = rest.index('[.]') if '[.]' in rest else rest.index('[k]')
            sym = ' '.join(rest[i + 1:])
            key = tuple(rest[:i]) + (sym,)
        else:
            key = tuple(rest)
        rows.append((key, a, b))
        if len(rows) > 400:
            break
    return rows


def same_key(ours, perf):
    if len(ours) != len(perf):
        return False
    for o, p in zip(ours, perf):
        if o.endswith('..'):
            if not p.startswith(o[:-2]):
                return False
        elif o != p:
            return False
    return True


def entries(args):
    name, ours, perf = args[:3]
    top, tol, children = 10, 0.3, '--children' in args
    if '--top' in args:
        top = int(args[args.index('--top') + 1])
    if '--tol' in args:
        tol = float(args[args.index('--tol') + 1])
    o = parse_report(ours, children)
    p = [r for r in parse_report(perf, children) if r[1] >= 0.5][:top]
    if not p:
        ok(name, False, 'perf report shows no entries')
        return
    bad = []
    for key, a, b in p:
        match = [r for r in o if same_key(r[0], key)]
        if not match:
            bad.append('missing %s %.2f%%' % ('/'.join(key), a))
            continue
        r = match[0]
        if abs(r[1] - a) > tol or (b is not None and r[2] is not None and abs(r[2] - b) > tol):
            bad.append('%s: ours %.2f/%s perf %.2f/%s' % ('/'.join(key), r[1], r[2], a, b))
    ok(name, not bad, '; '.join(bad[:4]) if bad else '%d entries within %.2f%%' % (len(p), tol))


def pprof(args):
    name, ptop, ours = args[:3]
    top, tol = 6, 0.3
    if '--top' in args:
        top = int(args[args.index('--top') + 1])
    rows = []
    started = False
    for line in open(ptop):
        if line.strip().startswith('flat'):
            started = True
            continue
        if not started:
            continue
        f = line.split()
        if len(f) < 6:
            continue
        rows.append((' '.join(f[5:]), float(f[1].rstrip('%'))))
    rows = [r for r in rows if r[1] >= 0.5][:top]
    o = parse_report(ours, False)
    bad = []
    for fn, flat in rows:
        match = [r for r in o if r[0][-1] == fn or (r[0][-1].endswith('..') and fn.startswith(r[0][-1][:-2]))]
        if not match:
            bad.append('missing ' + fn)
        elif abs(match[0][1] - flat) > tol:
            bad.append('%s: pprof %.2f%% ours %.2f%%' % (fn, flat, match[0][1]))
    ok(name, rows and not bad, '; '.join(bad[:4]) if bad else '%d functions within %.2f%%' % (len(rows), tol))


def speedscope(args):
    name, path, total = args[0], args[1], int(args[2])
    d = json.load(open(path))
    errs = []
    if d.get('$schema') != 'https://www.speedscope.app/file-format-schema.json':
        errs.append('$schema')
    frames = d.get('shared', {}).get('frames')
    if not isinstance(frames, list) or not all(isinstance(f.get('name'), str) for f in frames):
        errs.append('shared.frames')
        frames = []
    for f in frames:
        if 'file' in f and not isinstance(f['file'], str):
            errs.append('frame.file')
        if 'line' in f and not isinstance(f['line'], int):
            errs.append('frame.line')
    s = 0
    profs = d.get('profiles', [])
    if not profs:
        errs.append('no profiles')
    for p in profs:
        if p.get('type') != 'sampled' or p.get('unit') not in ('none', 'nanoseconds', 'microseconds', 'milliseconds', 'seconds', 'bytes'):
            errs.append('profile type/unit')
        if not isinstance(p.get('name'), str):
            errs.append('profile name')
        sm, w = p.get('samples', []), p.get('weights', [])
        if len(sm) != len(w):
            errs.append('samples/weights length')
        for st in sm:
            if any((not isinstance(i, int)) or i < 0 or i >= len(frames) for i in st):
                errs.append('frame index out of range')
                break
        if any(x <= 0 for x in w):
            errs.append('weight <= 0')
        if sum(w) != p.get('endValue', 0) - p.get('startValue', 0):
            errs.append('endValue')
        s += sum(w)
    if not isinstance(d.get('activeProfileIndex', 0), int):
        errs.append('activeProfileIndex')
    if s != total:
        errs.append('weights sum %d != %d' % (s, total))
    ok(name, not errs, ', '.join(sorted(set(errs))) if errs else '%d profiles, %d frames, weights %d' % (len(profs), len(frames), s))


def svg(args):
    name, path = args[:2]
    try:
        root = ET.parse(path).getroot()
        ns = '{http://www.w3.org/2000/svg}'
        rects = root.findall('.//%sg/%srect' % (ns, ns))
        titles = root.findall('.//%sg/%stitle' % (ns, ns))
        ok(name, root.tag == ns + 'svg' and len(rects) > 3 and len(rects) == len(titles),
           '%d frames' % len(rects))
    except Exception as e:
        ok(name, False, str(e))


def width(args):
    name, path, cols = args[0], args[1], int(args[2])
    long = [l for l in open(path, encoding='utf-8', errors='replace').read().split('\n') if len(l) > cols]
    ok(name, not long, repr(long[0]) if long else '')


if __name__ == '__main__':
    {'entries': entries, 'pprof': pprof, 'speedscope': speedscope, 'svg': svg,
     'width': width}[sys.argv[1]](sys.argv[2:])
