#!/usr/bin/env python3
"""mitsuba-envmap-reference.py: Mitsuba 3's `envmap` emitter evaluated on a random map, as a
reference for warpath's EnvMap (crates/warpath-core/tests/mitsuba_envmap.rs).

    .venv/bin/python scripts/mitsuba-envmap-reference.py out/mitsuba-envmap.txt
    WARPATH_MITSUBA_ENVMAP=$PWD/out/mitsuba-envmap.txt cargo test -p warpath-core --test mitsuba_envmap -- --ignored

Writes a text file: `size W H`, then W*H lines `P r g b` (the map, row-major, top row
first), then 2000 lines `D x y z r g b pdf`: random unit directions d with Mitsuba's
radiance seen looking along d (eval with si.wi = -d) and its solid-angle pdf_direction.
The map is random with one bright texel, rotated by `rotate_y` degrees about +y as
scripts/mitsuba-render.py rotates maps (`size` line: `W H rotate_y`).
"""
import sys

import numpy as np
import mitsuba as mi


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    mi.set_variant("scalar_rgb")
    rng = np.random.default_rng(3)
    width, height, rotate_y = 16, 8, 30.0
    image = rng.uniform(0.0, 2.0, size=(height, width, 3)).astype(np.float32)
    image[2, 5] = [30.0, 20.0, 10.0]
    emitter = mi.load_dict({
        "type": "envmap", "bitmap": mi.Bitmap(image),
        "to_world": mi.ScalarTransform4f().rotate([0, 1, 0], rotate_y),
    })
    lines = [f"size {width} {height} {rotate_y!r}"]
    lines += ["P %r %r %r" % tuple(float(x) for x in p) for p in image.reshape(-1, 3)]
    for _ in range(2000):
        d = rng.normal(size=3)
        d /= np.linalg.norm(d)
        si = mi.SurfaceInteraction3f()
        si.wi = mi.Vector3f(*(-d))
        radiance = emitter.eval(si)
        ds = mi.DirectionSample3f()
        ds.d = mi.Vector3f(*d)
        pdf = emitter.pdf_direction(mi.Interaction3f(), ds)
        lines.append("D %r %r %r %r %r %r %r" % (float(d[0]), float(d[1]), float(d[2]), float(radiance[0]),
                                               float(radiance[1]), float(radiance[2]), float(pdf)))
    with open(sys.argv[1], "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"mitsuba-envmap-reference: {len(lines)} lines -> {sys.argv[1]}")


if __name__ == "__main__":
    main()
