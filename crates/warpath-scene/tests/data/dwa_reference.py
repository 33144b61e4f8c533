"""Reference data for tests/image_io.rs, made with the reference OpenEXR library.

    python3 -m venv /tmp/exrvenv && /tmp/exrvenv/bin/pip install OpenEXR numpy
    /tmp/exrvenv/bin/python dwa_reference.py tiny  tests/data
    /tmp/exrvenv/bin/python dwa_reference.py decode /tmp/dwa_ref  FILE.exr...

`tiny` writes small DWAA/DWAB files (37x21: partial 8x8 blocks; half and float RGB,
RGB + alpha) and OpenEXR's decode of each as raw little-endian f32 RGB, top row first.
`decode` writes that raw decode of existing files (e.g. Blender's studio lights) next to
a link to each file, for WARPATH_DWA_REFERENCE_DIR.
"""
import os
import sys

import numpy as np
import OpenEXR


def decode_rgb(path):
    with OpenEXR.File(path) as f:
        ch = f.channels()
        for key in ("RGBA", "RGB"):
            if key in ch:
                return ch[key].pixels[..., :3].astype("<f4")
        return np.stack([ch["R"].pixels, ch["G"].pixels, ch["B"].pixels], -1).astype("<f4")


def tiny(out):
    w, h = 37, 21
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    r = 0.02 + 0.9 * x / w + 0.1 * np.sin(y)
    g = 0.5 * (y / h) ** 2 + (x > 20) * 0.3
    b = np.exp(0.2 * (x - 18) / 2.0) * 0.05
    b[5:9, 10:14] = 150.0  # a small HDR highlight with hard edges
    rgb = np.stack([r, g, b], -1)
    for name, comp, dtype, alpha in [
        ("dwab_half", OpenEXR.DWAB_COMPRESSION, np.float16, False),
        ("dwaa_half_alpha", OpenEXR.DWAA_COMPRESSION, np.float16, True),
        ("dwab_float", OpenEXR.DWAB_COMPRESSION, np.float32, False),
    ]:
        header = {"compression": comp, "type": OpenEXR.scanlineimage}
        channels = {c: rgb[..., i].astype(dtype) for i, c in enumerate("RGB")}
        if alpha:
            channels["A"] = (x / w).astype(dtype)
        path = os.path.join(out, name + ".exr")
        with OpenEXR.File(header, channels) as f:
            f.write(path)
        decode_rgb(path).tofile(os.path.join(out, name + ".reference.f32"))


def decode(out, files):
    os.makedirs(out, exist_ok=True)
    for path in files:
        name = os.path.basename(path)
        link = os.path.join(out, name)
        if not os.path.exists(link):
            os.symlink(os.path.abspath(path), link)
        decode_rgb(path).tofile(link[:-4] + ".f32")


if __name__ == "__main__":
    if sys.argv[1] == "tiny":
        tiny(sys.argv[2])
    else:
        decode(sys.argv[2], sys.argv[3:])
