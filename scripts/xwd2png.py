#!/usr/bin/env python3
"""xwd2png.py: convert an X window dump (xwd, 24/32-bit ZPixmap) to PNG.
Usage: xwd -root -silent | scripts/xwd2png.py OUT.png [X Y W H]"""
import struct
import sys
import zlib


def main():
    data = sys.stdin.buffer.read()
    f = struct.unpack(">25I", data[:100])
    (hsize, _ver, fmt, _depth, width, height, _xoff, byte_order, _bu, _bbo, _pad, bpp, bpl,
     _vc, rmask, gmask, bmask, _bprgb, _cme, ncolors) = f[:20]
    if fmt != 2 or bpp not in (24, 32):
        sys.exit("xwd2png: only 24/32-bit ZPixmap dumps")
    off = hsize + ncolors * 12
    x0, y0, w, h = 0, 0, width, height
    if len(sys.argv) >= 6:
        x0, y0, w, h = (int(v) for v in sys.argv[2:6])
    step = bpp // 8

    def shift(m):
        s = 0
        while m and not (m & 1):
            m >>= 1
            s += 1
        return s
    rs, gs, bs = shift(rmask), shift(gmask), shift(bmask)
    rows = []
    for y in range(y0, y0 + h):
        line = data[off + y * bpl: off + (y + 1) * bpl]
        out = bytearray(b"\0")
        for x in range(x0, x0 + w):
            px = line[x * step:(x + 1) * step]
            v = int.from_bytes(px, "little" if byte_order == 0 else "big")
            out += bytes(((v & rmask) >> rs, (v & gmask) >> gs, (v & bmask) >> bs))
        rows.append(bytes(out))
    raw = b"".join(rows)

    def chunk(t, d):
        c = struct.pack(">I", len(d)) + t + d
        return c + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    with open(sys.argv[1], "wb") as fo:
        fo.write(png)


if __name__ == "__main__":
    main()
