#!/usr/bin/env python3
"""reorder.py IN OUT [NAME]: rewrite a perf.data file (file format) as an old
perf without FINISHED_ROUND would have left it, with the executable's MMAP2
(the first whose file name ends in NAME, default /w) moved to the end of the
data: the ordering queue must put it back in time order (or, with a buffer
too small, count and report the violation)."""
import struct
import sys

d = bytearray(open(sys.argv[1], "rb").read())
d_off, d_size = struct.unpack_from("<QQ", d, 40)
recs = []
pos, end = d_off, d_off + d_size
while pos + 8 <= end:
    typ, misc, size = struct.unpack_from("<IHH", d, pos)
    recs.append((typ, bytes(d[pos:pos + size])))
    pos += size
name = (sys.argv[3] if len(sys.argv) > 3 else "/w").encode() + b"\0"
moved = None
for i, (typ, r) in enumerate(recs):
    if typ == 10 and name in r:  # MMAP2 of the workload binary
        moved = recs.pop(i)
        break
assert moved, "no MMAP2 of the workload"
recs = [x for x in recs if x[0] != 68] + [moved]  # drop FINISHED_ROUND
body = b"".join(r for _, r in recs)
# FINISHED_ROUND records were 8 bytes each: the data shrinks, features move
new_size = len(body)
feat = d[d_off + d_size:]
out = d[:d_off] + body + feat
struct.pack_into("<Q", out, 48, new_size)
# feature section offsets point past the data: shift them
nfeat = sum(bin(struct.unpack_from("<Q", d, 72 + 8 * k)[0]).count("1") for k in range(4))
delta = d_size - new_size
fo = d_off + new_size
for k in range(nfeat):
    off, sz = struct.unpack_from("<QQ", out, fo + 16 * k)
    struct.pack_into("<Q", out, fo + 16 * k, off - delta)
open(sys.argv[2], "wb").write(bytes(out))
