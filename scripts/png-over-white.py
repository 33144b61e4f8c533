#!/usr/bin/env python3
"""png-over-white: composite a PNG with transparency over white and write an opaque RGB PNG.

Standard library only (zlib). Reads 8-bit, non-interlaced PNGs of colour type 0 (gray),
2 (RGB), 3 (palette, with or without tRNS), 4 (gray + alpha) or 6 (RGBA), composites every
pixel over white in the file's own (sRGB) values, and writes an 8-bit RGB PNG. warpath's
image loader drops alpha, so a logo's transparent background must be made white first.

    scripts/png-over-white.py logo.png logo-white.png
"""
import struct
import sys
import zlib


def chunks(data):
    pos = 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        yield data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"png-over-white: {path}: not a PNG")
    palette, alpha, idat = None, None, b""
    for kind, body in chunks(data):
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = [tuple(body[i:i + 3]) for i in range(0, len(body), 3)]
        elif kind == b"tRNS":
            alpha = list(body)
        elif kind == b"IDAT":
            idat += body
    if depth != 8 or interlace != 0 or ctype not in (0, 2, 3, 4, 6):
        sys.exit(f"png-over-white: {path}: only 8-bit non-interlaced PNGs are supported")
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        filt, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b, c = prev[x], prev[x - channels] if x >= channels else 0
            line[x] = (line[x] + (0, a, b, (a + b) // 2, paeth(a, b, c))[filt]) & 255
        rows.append(line)
        prev = line
    pixels = []  # (r, g, b, a) per pixel
    for line in rows:
        for x in range(width):
            p = line[x * channels:(x + 1) * channels]
            if ctype == 3:
                r, g, b = palette[p[0]]
                pixels.append((r, g, b, alpha[p[0]] if alpha and p[0] < len(alpha) else 255))
            elif ctype == 0:
                pixels.append((p[0], p[0], p[0], 255))
            elif ctype == 4:
                pixels.append((p[0], p[0], p[0], p[1]))
            elif ctype == 2:
                pixels.append((p[0], p[1], p[2], 255))
            else:
                pixels.append(tuple(p))
    return width, height, pixels


def write_png(path, width, height, rgb):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    raw = b"".join(b"\0" + bytes(rgb[y * width * 3:(y + 1) * width * 3]) for y in range(height))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def main(src, dst):
    width, height, pixels = read_png(src)
    rgb = bytearray()
    for r, g, b, a in pixels:
        rgb += bytes(round((v * a + 255 * (255 - a)) / 255) for v in (r, g, b))
    write_png(dst, width, height, rgb)
    print(f"png-over-white: {dst}: {width}x{height} RGB over white")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
