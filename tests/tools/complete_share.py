#!/usr/bin/env python3
"""complete_share.py: the share of complete user stacks in perf-script-style
text (perf script, scorch script, perfparser_decode.py stacks).

  complete_share.py FILE...     one line per file:
                                FILE samples N user U complete C PCT%

A stack is complete when its outermost user frame is _start (or
_dl_start_user), start_thread or clone3 (tests/e2e/resolve_compare.py's
rule, shared with the resolve tests); the share is over the samples that
have user frames.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'e2e'))
from resolve_compare import parse, complete  # noqa: E402


def main():
    for path in sys.argv[1:]:
        n = u = c = 0
        for _h, frames in parse(path):
            n += 1
            k = complete(frames)
            if k is None:
                continue
            u += 1
            c += bool(k)
        print(f'{path} samples {n} user {u} complete {c} {100.0 * c / max(u, 1):.2f}%')
    return 0


if __name__ == '__main__':
    sys.exit(main())
