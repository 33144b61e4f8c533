#!/usr/bin/env python3
"""make-compare-volume.py: writes the grids of scenes/compare-volume-cloud.toml as Mitsuba 3
`.vol` files (the format both warpath and Mitsuba's `gridvolume` read):

- scenes/volumes/compare-cloud-density.vol: 32x24x32, 1 channel, a smooth lumpy cloud
  (a sum of Gaussian blobs, modulated by a slow ripple, fading to zero toward the cube's
  faces), values in [0, 1];
- scenes/volumes/compare-cloud-albedo.vol: 12x12x12, 3 channels, an RGB albedo that goes
  from a warm white at the bottom to a blue-green at the top, varying across x too.

    .venv/bin/python scripts/make-compare-volume.py     # or any python3 with numpy

Deterministic (no random numbers); the files are checked in (about 118 KB together), so
this script documents how they were made. Layout of a .vol (version 3): b"VOL", 3, int32
encoding 1 (float32), int32 x, y, z resolution, int32 channels, 6 float32 of a bounding
box (the unit cube here: the scene places it), then the values x fastest, channels
interleaved; little endian.
"""
import os
import struct

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "scenes", "volumes")


def write_vol(path, data):
    """data: float array of shape (z, y, x, channels)."""
    nz, ny, nx, channels = data.shape
    header = b"VOL" + bytes([3]) + struct.pack("<iiiii", 1, nx, ny, nz, channels)
    header += struct.pack("<6f", 0, 0, 0, 1, 1, 1)
    with open(path, "wb") as f:
        f.write(header)
        f.write(np.ascontiguousarray(data, dtype="<f4").tobytes())
    print(f"make-compare-volume: {os.path.relpath(path, ROOT)}: {nx}x{ny}x{nz}x{channels}, "
          f"values {data.min():.4f}..{data.max():.4f}, mean {data.mean():.4f}")


def centres(n):
    """Cell centres (i + 1/2)/n of an axis of n voxels."""
    return (np.arange(n) + 0.5) / n


def density(nx=32, ny=24, nz=32):
    z, y, x = np.meshgrid(centres(nz), centres(ny), centres(nx), indexing="ij")
    blobs = [  # (centre, radius, weight)
        ((0.35, 0.40, 0.45), 0.22, 1.0),
        ((0.65, 0.55, 0.55), 0.20, 0.9),
        ((0.50, 0.30, 0.70), 0.16, 0.7),
        ((0.55, 0.70, 0.35), 0.14, 0.6),
    ]
    d = np.zeros_like(x)
    for (cx, cy, cz), r, w in blobs:
        d += w * np.exp(-((x - cx) ** 2 + (y - cy) ** 2 + (z - cz) ** 2) / (2 * r * r))
    d *= 0.75 + 0.25 * np.sin(9.0 * x + 4.0 * y) * np.cos(7.0 * z - 2.0 * y)
    # Fade to zero toward the faces (smoothstep over the outer 15%).
    for c in (x, y, z):
        t = np.clip(np.minimum(c, 1.0 - c) / 0.15, 0.0, 1.0)
        d *= t * t * (3.0 - 2.0 * t)
    d /= d.max()
    return d[..., None]


def albedo(n=12):
    z, y, x = np.meshgrid(centres(n), centres(n), centres(n), indexing="ij")
    r = 0.95 - 0.45 * y
    g = 0.80 + 0.12 * y - 0.10 * x
    b = 0.55 + 0.40 * y * (0.6 + 0.4 * z)
    return np.clip(np.stack([r, g, b], axis=-1), 0.0, 1.0)


def main():
    os.makedirs(OUT, exist_ok=True)
    write_vol(os.path.join(OUT, "compare-cloud-density.vol"), density())
    write_vol(os.path.join(OUT, "compare-cloud-albedo.vol"), albedo())


if __name__ == "__main__":
    main()
