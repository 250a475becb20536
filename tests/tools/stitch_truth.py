#!/usr/bin/env python3
"""stitch_truth.py: stitched stacks against the ground truth, frame by frame.

  stitch_truth.py WHOLE CUT STITCHED

Three `scorch script` texts of one recording made with a long stack copy:
WHOLE read as recorded, CUT read with --stack-limit (a short copy made from
the long one), STITCHED read with the same limit and --stitch. Samples are
matched by their place (the same file, the same samples in the same
order); frames are compared as printed (address, symbol+offset, DSO).

A sample is stitched when STITCHED has more frames than CUT. A stitched
sample is wrong when its frames are not the first frames of WHOLE's (any
frame differs, or it has more frames); it is whole when they are all of
them. Prints one line of counts:

  samples N cut C stitched S whole W partial P wrong X complete_cut A complete_stitched B complete_whole D

where C counts the samples CUT has fewer frames of than WHOLE, and the
complete_* counts are samples whose outermost user frame is _start,
_dl_start_user, start_thread or clone3 (resolve_compare.py's rule).
"""
import re
import sys

ENTRY = ('_start', '_dl_start_user', 'start_thread', 'clone3', '__clone3')


def parse(path):
    samples = []
    cur = None
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            if not line:
                cur = None
                continue
            if line[0] not in '\t ':
                cur = []
                samples.append(cur)
                continue
            if cur is not None:
                cur.append(line.strip())
    return samples


FRAME = re.compile(r'^[0-9a-f]+ (.*) \(([^()]*)\)$')


def complete(frames):
    user = [f for f in frames if '(' in f and '[kernel' not in f]
    if not user:
        return False
    m = FRAME.match(user[-1])
    if not m:
        return False
    sym = re.sub(r'\+0x[0-9a-f]+$', '', m.group(1))
    return sym in ENTRY


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    whole, cut, sti = (parse(p) for p in sys.argv[1:])
    if not (len(whole) == len(cut) == len(sti)):
        print(f'sample counts differ: {len(whole)} {len(cut)} {len(sti)}', file=sys.stderr)
        return 1
    n = c = s = w = p = x = 0
    cc = cs = cw = 0
    shown = 0
    for a, b, t in zip(whole, cut, sti):
        n += 1
        if len(b) < len(a):
            c += 1
        cc += complete(b)
        cs += complete(t)
        cw += complete(a)
        if len(t) <= len(b):
            continue
        s += 1
        if len(t) > len(a) or t != a[:len(t)]:
            x += 1
            if shown < 3:
                shown += 1
                k = next((i for i in range(min(len(a), len(t))) if a[i] != t[i]), min(len(a), len(t)))
                print(f'wrong sample {n}: frame {k}: whole {a[k] if k < len(a) else "(none)"} '
                      f'stitched {t[k] if k < len(t) else "(none)"}', file=sys.stderr)
        elif len(t) == len(a):
            w += 1
        else:
            p += 1
    print(f'samples {n} cut {c} stitched {s} whole {w} partial {p} wrong {x} '
          f'complete_cut {cc} complete_stitched {cs} complete_whole {cw}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
