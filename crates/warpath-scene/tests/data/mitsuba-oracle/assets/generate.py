#!/usr/bin/env python3
"""Writes the meshes and images of the Mitsuba oracle scenes (run once; the outputs are
committed): a UV sphere as OBJ (positions, normals, uvs), a torus as ASCII PLY (positions
only: shaded with face normals), an 8x8 sRGB PNG texture, a 32x32 normal map (a PNG read
raw), a 32x32 height map and a 16x16 roughness/metallic texture (PNGs read raw), a 16x16 grey
opacity map, a 32x16 EXR environment map, a Mitsuba .serialized file of two meshes (a wavy sheet
with normals and uvs; the torus with neither) and a 16x12x16 density grid as a Mitsuba .vol
file.
Needs numpy and mitsuba (for the EXR):  python3 generate.py"""
import math
import os
import struct
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def uv_sphere_obj(path, n_u=16, n_v=10):
    lines = ["# UV sphere (generate.py): radius 1, poles on +-y"]
    for j in range(n_v + 1):
        theta = math.pi * j / n_v
        for i in range(n_u + 1):
            phi = 2 * math.pi * i / n_u
            x, y, z = math.sin(theta) * math.cos(phi), math.cos(theta), -math.sin(theta) * math.sin(phi)
            lines.append(f"v {x:.6f} {y:.6f} {z:.6f}")
            lines.append(f"vn {x:.6f} {y:.6f} {z:.6f}")
            lines.append(f"vt {i / n_u:.6f} {1 - j / n_v:.6f}")
    idx = lambda i, j: j * (n_u + 1) + i + 1
    for j in range(n_v):
        for i in range(n_u):
            a, b, c, d = idx(i, j), idx(i + 1, j), idx(i + 1, j + 1), idx(i, j + 1)
            # Counter-clockwise seen from outside.
            if j > 0:
                lines.append(f"f {a}/{a}/{a} {d}/{d}/{d} {b}/{b}/{b}")
            if j < n_v - 1:
                lines.append(f"f {b}/{b}/{b} {d}/{d}/{d} {c}/{c}/{c}")
    open(path, "w").write("\n".join(lines) + "\n")


def torus_ply(path, n_u=24, n_v=12, big=1.0, small=0.35):
    verts, faces = [], []
    for j in range(n_v):
        t = 2 * math.pi * j / n_v
        for i in range(n_u):
            p = 2 * math.pi * i / n_u
            r = big + small * math.cos(t)
            verts.append((r * math.cos(p), small * math.sin(t), -r * math.sin(p)))
    for j in range(n_v):
        for i in range(n_u):
            a = j * n_u + i
            b = j * n_u + (i + 1) % n_u
            c = ((j + 1) % n_v) * n_u + (i + 1) % n_u
            d = ((j + 1) % n_v) * n_u + i
            faces.append((a, b, c))
            faces.append((a, c, d))
    out = ["ply", "format ascii 1.0", "comment torus (generate.py)", f"element vertex {len(verts)}",
           "property float x", "property float y", "property float z", f"element face {len(faces)}",
           "property list uchar int vertex_indices", "end_header"]
    out += [f"{x:.6f} {y:.6f} {z:.6f}" for x, y, z in verts]
    out += [f"3 {a} {b} {c}" for a, b, c in faces]
    open(path, "w").write("\n".join(out) + "\n")


def png(path, rgb):
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[y].astype(np.uint8).tobytes() for y in range(h))
    chunk = lambda tag, data: struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    data += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    open(path, "wb").write(data)


def texture_png(path):
    rng = np.random.default_rng(7)
    rgb = rng.integers(30, 250, size=(8, 8, 3))
    rgb[0, :, :] = (240, 40, 40)  # a red top row: shows which way v runs
    png(path, rgb)


def normalmap_png(path):
    """A tangent-space normal map, RGB = (n + 1) / 2: ridges across u (x leans of up to
    ~60 degrees, so that grazing light meets invalid normals and the shadow-terminator term),
    a y lean that grows with v (which way the tangent frame's t points shows), and a flat
    band (the unperturbed normal)."""
    n = 32
    u = (np.arange(n) + 0.5) / n
    v = 1 - (np.arange(n) + 0.5) / n  # rows top first: v = 1 at the top
    x = 1.6 * np.sin(2 * np.pi * 3 * u)[None, :] * np.ones((n, 1))
    y = (0.9 * v - 0.2)[:, None] * np.ones((1, n))
    x[:, : n // 8] = 0.0
    y[:, : n // 8] = 0.0
    normal = np.stack([x, y, np.ones((n, n))], axis=-1)
    normal /= np.linalg.norm(normal, axis=-1, keepdims=True)
    png(path, np.round((normal + 1) * 0.5 * 255))


def height_png(path):
    """A 32x32 height map (gray, read raw): bumps of a sine product over u and v, a ramp
    along u in one quarter (a constant tilt) and a flat band (no gradient)."""
    n = 32
    u = (np.arange(n) + 0.5) / n
    v = 1 - (np.arange(n) + 0.5) / n  # rows top first: v = 1 at the top
    h = 0.5 + 0.35 * np.sin(2 * np.pi * 2 * u)[None, :] * np.cos(2 * np.pi * 2 * v)[:, None]
    h[: n // 4, :] = 0.1 + 0.8 * u[None, :]
    h[:, : n // 8] = 0.5
    g = np.round(np.clip(h, 0, 1) * 255)
    png(path, np.stack([g, g, g], axis=-1))


def roughness_png(path):
    """A 16x16 data texture (read raw): red a ramp along u (0.03 to 0.3), green stripes
    along v (0.04, 0.25), blue a checker of 0 and 1, all three distinct so that the channel
    read shows; its luminance stays below 0.32 (as GGX alpha: where warpath's rough conductor
    agrees with Mitsuba's)."""
    n = 16
    u = (np.arange(n) + 0.5) / n
    r = (0.03 + 0.27 * u)[None, :] * np.ones((n, 1))
    g = np.where((np.arange(n) // 4) % 2 == 0, 0.04, 0.25)[:, None] * np.ones((1, n))
    b = ((np.arange(n)[:, None] // 4 + np.arange(n)[None, :] // 4) % 2).astype(float)
    png(path, np.round(np.stack([r, g, b], axis=-1) * 255))


def leaf_mask_png(path):
    """A 16x16 grey opacity map (R = G = B): an opaque disc with a soft rim and four holes,
    transparent corners, and a band of mid-grey along the bottom rows."""
    n = 16
    c = (np.arange(n) + 0.5) / n - 0.5
    r = np.hypot(c[None, :], c[:, None])
    a = np.clip((0.45 - r) / 0.1, 0.0, 1.0)
    for hx, hy in ((4, 4), (11, 5), (5, 10), (10, 11)):
        a[hy, hx] = 0.0
    a[-2:, :] = 0.5
    grey = np.round(a * 255)
    png(path, np.stack([grey, grey, grey], axis=-1))


def envmap_exr(path):
    import mitsuba as mi
    mi.set_variant("scalar_rgb")
    h, w = 16, 32
    v = (np.arange(h) + 0.5) / h
    u = (np.arange(w) + 0.5) / w
    sky = 0.3 + 0.9 * np.clip(np.cos(np.pi * v), 0, None)[:, None] * np.ones((1, w))
    img = np.stack([0.6 * sky, 0.8 * sky, 1.0 * sky], axis=-1)
    img[h // 2:, :, :] = (0.25, 0.2, 0.15)  # ground
    img[3:5, 5:8, :] = (12.0, 10.0, 7.0)  # a small bright sun
    img += 0.15 * np.sin(2 * np.pi * u)[None, :, None]  # varies with azimuth: rotations show
    mi.Bitmap(img.astype(np.float32), pixel_format=mi.Bitmap.PixelFormat.RGB).write(path)


def serialized_mesh(name, positions, faces, normals=None, uvs=None):
    """One mesh of a .serialized file (version 4, single precision): its header and zlib stream."""
    flags = 0x1000 | (0x0001 if normals is not None else 0) | (0x0002 if uvs is not None else 0)
    body = struct.pack("<I", flags) + name.encode() + b"\0"
    body += struct.pack("<QQ", len(positions), len(faces))
    body += np.asarray(positions, dtype="<f4").tobytes()
    if normals is not None:
        body += np.asarray(normals, dtype="<f4").tobytes()
    if uvs is not None:
        body += np.asarray(uvs, dtype="<f4").tobytes()
    body += np.asarray(faces, dtype="<u4").tobytes()
    return struct.pack("<HH", 0x041C, 4) + zlib.compress(body, 9)


def meshes_serialized(path, n=12):
    # A wavy sheet over [-1, 1]^2 in the xy-plane (normal +z, counter-clockwise seen from +z),
    # z = 0.15 sin(2x) cos(3y), with its analytic normals and uvs (u along x, v along y).
    pos, nrm, uv, faces = [], [], [], []
    for j in range(n + 1):
        for i in range(n + 1):
            x, y = -1 + 2 * i / n, -1 + 2 * j / n
            z = 0.15 * math.sin(2 * x) * math.cos(3 * y)
            dzdx, dzdy = 0.3 * math.cos(2 * x) * math.cos(3 * y), -0.45 * math.sin(2 * x) * math.sin(3 * y)
            nv = np.array([-dzdx, -dzdy, 1.0])
            pos.append((x, y, z))
            nrm.append(tuple(nv / np.linalg.norm(nv)))
            uv.append((i / n, j / n))
    for j in range(n):
        for i in range(n):
            a, b = j * (n + 1) + i, j * (n + 1) + i + 1
            c, d = b + n + 1, a + n + 1
            faces += [(a, b, c), (a, c, d)]
    sheet = serialized_mesh("sheet", pos, faces, nrm, uv)
    # The torus of torus_ply, without normals (Mitsuba computes smooth ones) or uvs.
    tverts, tfaces = [], []
    n_u, n_v, big, small = 24, 12, 1.0, 0.35
    for j in range(n_v):
        t = 2 * math.pi * j / n_v
        for i in range(n_u):
            p = 2 * math.pi * i / n_u
            r = big + small * math.cos(t)
            tverts.append((r * math.cos(p), small * math.sin(t), -r * math.sin(p)))
    for j in range(n_v):
        for i in range(n_u):
            a, b = j * n_u + i, j * n_u + (i + 1) % n_u
            c, d = ((j + 1) % n_v) * n_u + (i + 1) % n_u, ((j + 1) % n_v) * n_u + i
            tfaces += [(a, b, c), (a, c, d)]
    torus = serialized_mesh("torus", tverts, tfaces)
    data = sheet + torus + struct.pack("<QQI", 0, len(sheet), 2)
    open(path, "wb").write(data)


def density_vol(path, res=(16, 12, 16)):
    # A soft blob with a denser core, off centre, x fastest: Mitsuba's gridvolume layout.
    nx, ny, nz = res
    z, y, x = np.meshgrid((np.arange(nz) + 0.5) / nz, (np.arange(ny) + 0.5) / ny, (np.arange(nx) + 0.5) / nx,
                          indexing="ij")
    r2 = ((x - 0.45) / 0.4) ** 2 + ((y - 0.5) / 0.45) ** 2 + ((z - 0.55) / 0.4) ** 2
    d = np.clip(1.0 - r2, 0.0, None) ** 1.5 + 0.3 * np.exp(-((x - 0.7) ** 2 + (z - 0.3) ** 2) / 0.01)
    header = b"VOL" + bytes([3]) + struct.pack("<iiiii", 1, nx, ny, nz, 1) + struct.pack("<6f", 0, 0, 0, 1, 1, 1)
    open(path, "wb").write(header + d.astype("<f4").tobytes())


if __name__ == "__main__":
    uv_sphere_obj(os.path.join(HERE, "ball.obj"))
    torus_ply(os.path.join(HERE, "torus.ply"))
    texture_png(os.path.join(HERE, "tiles.png"))
    normalmap_png(os.path.join(HERE, "waves-normal.png"))
    height_png(os.path.join(HERE, "bumps-height.png"))
    roughness_png(os.path.join(HERE, "roughness.png"))
    leaf_mask_png(os.path.join(HERE, "leaf-mask.png"))
    envmap_exr(os.path.join(HERE, "sky.exr"))
    meshes_serialized(os.path.join(HERE, "meshes.serialized"))
    density_vol(os.path.join(HERE, "blob.vol"))
