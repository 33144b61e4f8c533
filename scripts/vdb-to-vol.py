#!/usr/bin/env python3
"""vdb-to-vol: densify a float grid of an OpenVDB file into a Mitsuba 3 .vol file.

Needs OpenVDB's Python module (Debian: apt-get install python3-openvdb; run it with Debian's
/usr/bin/python3, whose numpy the module is built against). Reads GRID (default: the first
float grid), takes the bounding box of its active voxels in index space, and writes the
values of its active voxels and tiles over that box, x fastest, as a 1-channel .vol; every
other voxel holds the grid's background value (warpath's read_vdb does the same). The .vol bounding box is the index-space box [min, max + 1), so
one voxel is one unit; warpath and Mitsuba place the grid on the unit cube with the
medium's to_world.

    /usr/bin/python3 scripts/vdb-to-vol.py cloud.vdb cloud.vol [GRID]
"""
import struct
import sys

import numpy as np
import pyopenvdb as vdb


def main(src, dst, name=None):
    grids, _ = vdb.readAll(src)
    floats = [g for g in grids if isinstance(g, vdb.FloatGrid) and (name is None or g.name == name)]
    if not floats:
        sys.exit(f"vdb-to-vol: {src}: no float grid{' named ' + name if name else ''} "
                 f"(grids: {', '.join(f'{g.name} ({type(g).__name__})' for g in grids)})")
    grid = floats[0]
    lo, hi = grid.evalActiveVoxelBoundingBox()
    shape = tuple(h - l + 1 for l, h in zip(lo, hi))
    if min(shape) < 1:
        sys.exit(f"vdb-to-vol: {src}: grid '{grid.name}' has no active voxels")
    dense = np.full(shape, grid.background, dtype=np.float32)  # indexed [x, y, z]
    for item in grid.iterOnValues():  # active voxels and tiles, each with its index box
        a = [max(item.min[n], lo[n]) - lo[n] for n in range(3)]
        b = [min(item.max[n], hi[n]) - lo[n] + 1 for n in range(3)]
        dense[a[0]:b[0], a[1]:b[1], a[2]:b[2]] = item.value
    with open(dst, "wb") as f:
        f.write(b"VOL" + bytes([3]) + struct.pack("<iiiii", 1, *shape, 1))
        f.write(struct.pack("<6f", *lo, *(h + 1 for h in hi)))
        f.write(dense.transpose(2, 1, 0).astype("<f4").tobytes())  # x fastest
    print(f"vdb-to-vol: {dst}: grid '{grid.name}', {shape[0]}x{shape[1]}x{shape[2]} voxels from index "
          f"{tuple(lo)}, {grid.activeVoxelCount()} active, values {dense.min():g}..{dense.max():g}")


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(*sys.argv[1:])
