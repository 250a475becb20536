#!/usr/bin/env python3
"""stream_truth.py: complete stacks of a short stack copy against the long.

  stream_truth.py WHOLE CUT

Two `perfparser_decode.py stacks` texts of the same samples by the same
parser: WHOLE read from a recording with a long stack copy, CUT from the
same recording with each copy cut short (stack_cut.py). A stack is complete
when its outermost frame is _start, _dl_start_user, start_thread, clone or
clone3; a complete CUT stack is right when it is WHOLE's, frame for frame.
Prints one line:

  samples N complete C right R wrong W
"""
import re
import sys

ENTRY = re.compile(r' (_start|_dl_start_user|start_thread|clone3?|__clone3)[ (]')


def stacks(path):
    out = []
    for block in open(path, errors='replace').read().split('\n\n'):
        if block.strip():
            out.append([line.strip() for line in block.strip('\n').split('\n')[1:]])
    return out


def complete(frames):
    return bool(frames) and ENTRY.search(frames[-1] + ' ') is not None


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    whole, cut = stacks(sys.argv[1]), stacks(sys.argv[2])
    if len(whole) != len(cut):
        print(f'sample counts differ: {len(whole)} {len(cut)}', file=sys.stderr)
        return 1
    c = r = 0
    for a, b in zip(whole, cut):
        if complete(b):
            c += 1
            r += a == b
    print(f'samples {len(whole)} complete {c} right {r} wrong {c - r}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
