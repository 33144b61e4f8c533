#!/usr/bin/env python3
"""exr-info.py: print size, compression and channels of OpenEXR files, from the header
alone (standard library only; no pixel decoding).

Usage:  python3 scripts/exr-info.py assets/hdri/*.exr
"""
import os
import struct
import sys

COMPRESSION = ["NONE", "RLE", "ZIPS", "ZIP", "PIZ", "PXR24", "B44", "B44A", "DWAA", "DWAB", "HTJ2K"]
PIXEL_TYPE = ["uint", "half", "float"]


def read_header(path):
    with open(path, "rb") as f:
        data = f.read(65536)
    if data[:4] != b"\x76\x2f\x31\x01":
        raise ValueError(f"{path}: not an OpenEXR file")
    pos, attrs = 8, {}
    while data[pos] != 0:
        end = data.index(b"\0", pos)
        name = data[pos:end].decode()
        pos = end + 1
        end = data.index(b"\0", pos)
        kind = data[pos:end].decode()
        (size,) = struct.unpack_from("<i", data, end + 1)
        pos = end + 5
        attrs[name] = (kind, data[pos : pos + size])
        pos += size
    return attrs


def describe(path):
    attrs = read_header(path)
    x0, y0, x1, y1 = struct.unpack("<4i", attrs["dataWindow"][1])
    raw, channels, pos = attrs["channels"][1], [], 0
    while raw[pos] != 0:
        end = raw.index(b"\0", pos)
        (ptype,) = struct.unpack_from("<i", raw, end + 1)
        channels.append(f"{raw[pos:end].decode()}:{PIXEL_TYPE[ptype]}")
        pos = end + 1 + 16
    compression = COMPRESSION[attrs["compression"][1][0]]
    tiled = "tiled" if "tiles" in attrs else "scanline"
    return (f"{os.path.basename(path)}: {x1 - x0 + 1}x{y1 - y0 + 1} {compression} {tiled} "
            f"channels {','.join(channels)} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for p in sys.argv[1:]:
        print(describe(p))
