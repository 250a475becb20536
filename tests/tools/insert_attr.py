#!/usr/bin/env python3
"""insert_attr.py IN OUT N [samples]: copy a file-format perf.data with a
HEADER_ATTR record (a copy of its first attr, under a new id) put into the
data section after its first N records (with "samples": after its Nth
sample record, however many other records come between): attrs that change after records were delivered,
as perf never writes them (scorch's blocks must write what was delivered
before with the attrs of before). Feature and id sections after the
insertion move with it."""
import struct
import sys

src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
samples_only = len(sys.argv) > 4 and sys.argv[4] == "samples"
b = bytearray(open(src, "rb").read())
assert b[:8] == b"PERFILE2", "not a file-format perf.data"
hsize, attr_size = struct.unpack_from("<QQ", b, 8)
attrs_off, attrs_size = struct.unpack_from("<QQ", b, 24)
data_off, data_size = struct.unpack_from("<QQ", b, 40)
flags = int.from_bytes(b[72:104], "little")
asz = attr_size - 16  # each attrs entry: the attr, then its ids {offset, size}
attr = bytes(b[attrs_off:attrs_off + asz])
pos, k = data_off, 0
while k < n and pos < data_off + data_size:
    rtype = struct.unpack_from("<I", b, pos)[0]
    pos += struct.unpack_from("<H", b, pos + 6)[0]
    k += 1 if not samples_only or rtype == 9 else 0  # PERF_RECORD_SAMPLE
assert k == n, "fewer records than N"
rec = attr + struct.pack("<Q", 0x5c0cc4a77e000001)
rec = struct.pack("<IHH", 64, 0, 8 + len(rec)) + rec  # PERF_RECORD_HEADER_ATTR
ins = len(rec)
# sections after the insertion point move
for i in range(attrs_size // attr_size):
    at = attrs_off + i * attr_size + asz
    off, size = struct.unpack_from("<QQ", b, at)
    if off >= pos:
        struct.pack_into("<Q", b, at, off + ins)
feat_at = data_off + data_size
for i in range(bin(flags).count("1")):
    at = feat_at + 16 * i
    off, size = struct.unpack_from("<QQ", b, at)
    if off >= pos:
        struct.pack_into("<Q", b, at, off + ins)
struct.pack_into("<Q", b, 48, data_size + ins)
b[pos:pos] = rec
open(dst, "wb").write(b)
