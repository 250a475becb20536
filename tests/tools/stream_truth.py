#!/usr/bin/env python3
"""stream_truth.py: complete stacks of a short stack copy against the long.

  stream_truth.py WHOLE CUT

Two `perfparser_decode.py stacks` texts of the same samples by the same
parser: WHOLE read from a recording with a long stack copy, CUT from the
same recording with each copy cut short (stack_cut.py). A stack is complete
by tests/e2e/resolve_compare.py's rule (its outermost user frame is _start,
_dl_start_user, start_thread or clone3); a complete CUT stack is right when
it is WHOLE's, frame for frame, addresses included.
Prints one line:

  samples N complete C right R wrong W
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'e2e'))
from resolve_compare import parse, complete  # noqa: E402


def stacks(path):
    out = []
    for block in open(path, errors='replace').read().split('\n\n'):
        if block.strip():
            out.append([line.strip() for line in block.strip('\n').split('\n')[1:]])
    return out


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    whole, cut, named = stacks(sys.argv[1]), stacks(sys.argv[2]), parse(sys.argv[2])
    if not (len(whole) == len(cut) == len(named)):
        print(f'sample counts differ: {len(whole)} {len(cut)} {len(named)}', file=sys.stderr)
        return 1
    c = r = 0
    for a, b, (_h, frames) in zip(whole, cut, named):
        if complete(frames):
            c += 1
            r += a == b
    print(f'samples {len(whole)} complete {c} right {r} wrong {c - r}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
