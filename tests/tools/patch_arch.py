#!/usr/bin/env python3
"""patch_arch.py IN OUT NAME: copy a file-format perf.data with its HEADER_ARCH
feature string replaced by NAME (at most as long as the old one), e.g. an
architecture perfparser does not know."""
import struct
import sys

src, dst, name = sys.argv[1], sys.argv[2], sys.argv[3].encode()
b = bytearray(open(src, "rb").read())
assert b[:8] == b"PERFILE2", "not a file-format perf.data"
data_off, data_size = struct.unpack_from("<QQ", b, 40)
flags = int.from_bytes(b[72:104], "little")
HEADER_ARCH = 6
assert flags >> HEADER_ARCH & 1, "no HEADER_ARCH feature"
idx = bin(flags & ((1 << HEADER_ARCH) - 1)).count("1")
off, size = struct.unpack_from("<QQ", b, data_off + data_size + 16 * idx)
n = struct.unpack_from("<I", b, off)[0]
assert len(name) < n <= size - 4, "new name too long"
b[off + 4:off + 4 + n] = name + b"\0" * (n - len(name))
open(dst, "wb").write(b)
