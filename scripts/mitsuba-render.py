#!/usr/bin/env python3
"""mitsuba-render.py: render a scene with Mitsuba 3 (the peer renderer) to a linear float
image, and print the wall time and throughput in Msamples/s (= width*height*spp / s / 1e6).

    .venv/bin/python scripts/mitsuba-render.py cornell --resolution 256x256 --spp 64 \\
        --seed 1 --bounces 8 -o out/mitsuba-cornell-1.exr
    .venv/bin/python scripts/mitsuba-render.py scenes/dragon.toml --spp 16 -o out/dragon.exr

`cornell` is Mitsuba's own Cornell box, `mi.cornell_box()`, checked against
shared/scenes/mitsuba3_cornell_box.json, with two changes so that it matches what warpath
renders: the box pixel filter (each sample lands in its own pixel only) and
max_depth = bounces + 1 (Mitsuba counts path vertices; warpath counts bounces).
A path to a warpath .toml scene is translated into a Mitsuba scene dict (camera, meshes,
diffuse/emissive materials, environment map); see scene_from_toml().

The output is .exr (32-bit float RGB, via mi.Bitmap) or .npy (float32 HxWx3).
Make the venv first: scripts/setup-mitsuba.
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np


def _newer_llvm():
    """Dr.Jit's LLVM backend (llvm_ad_rgb) needs LLVM >= 18 here (LLVM 14/15, which it finds
    first on Debian 12, abort on `fminimum`); point it at the newest libLLVM installed."""
    import glob
    import re

    found = []
    for path in glob.glob("/usr/lib/*/libLLVM-*.so*") + glob.glob("/usr/lib/llvm-*/lib/libLLVM*.so*"):
        m = re.search(r"(?:libLLVM-|llvm-)(\d+)", path)
        if m and int(m.group(1)) >= 18:
            found.append((int(m.group(1)), path))
    return max(found)[1] if found else None


if "DRJIT_LIBLLVM_PATH" not in os.environ:
    _llvm = _newer_llvm()
    if _llvm:
        os.environ["DRJIT_LIBLLVM_PATH"] = _llvm

try:
    import mitsuba as mi
    import drjit as dr
except ImportError:
    sys.exit("mitsuba-render: mitsuba is not importable: run scripts/setup-mitsuba and use .venv/bin/python")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORNELL_JSON = os.path.join(os.path.dirname(ROOT), "shared", "scenes", "mitsuba3_cornell_box.json")


def to_plain(value):
    """A scene dict with Mitsuba objects (transforms) turned into nested lists."""
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    if hasattr(value, "matrix"):
        return np.array(value.matrix).tolist()
    return value


def same(a, b, path="scene"):
    """Differences between two plain scene dicts (floats compared to 1e-5)."""
    if isinstance(a, dict) and isinstance(b, dict):
        diffs = [f"{path}.{k}: only in one" for k in set(a) ^ set(b)]
        for k in set(a) & set(b):
            diffs += same(a[k], b[k], f"{path}.{k}")
        return diffs
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return [f"{path}: length {len(a)} != {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in same(x, y, f"{path}[{i}]")]
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return [] if abs(a - b) <= 1e-5 * max(1.0, abs(a), abs(b)) else [f"{path}: {a} != {b}"]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def cornell_scene(width, height, bounces):
    scene = mi.cornell_box()
    if os.path.exists(CORNELL_JSON):
        with open(CORNELL_JSON) as f:
            reference = json.load(f)
        diffs = same(to_plain(scene), reference)
        if diffs:
            sys.exit("mitsuba-render: mi.cornell_box() differs from " + CORNELL_JSON + ":\n  " + "\n  ".join(diffs))
        print(f"mitsuba-render: mi.cornell_box() equals {os.path.relpath(CORNELL_JSON)}")
    else:
        print(f"mitsuba-render: note: {CORNELL_JSON} not found, not checked")
    film = scene["sensor"]["film"]
    film["width"], film["height"] = width, height
    film["rfilter"] = {"type": "box"}
    scene["integrator"]["max_depth"] = bounces + 1
    return scene


def look_at(origin, target, up):
    return mi.ScalarTransform4f().look_at(origin=origin, target=target, up=up)


def scene_from_toml(path, width, height, bounces):
    """Translate a warpath TOML scene (docs/scene-format.md) into a Mitsuba scene dict."""
    import tomllib

    with open(path, "rb") as f:
        doc = tomllib.load(f)
    base = os.path.dirname(os.path.abspath(path))
    where = lambda rel: os.path.normpath(os.path.join(base, rel))

    cam = doc.get("camera", {})
    render = doc.get("render", {})
    width = width or render.get("width", 512)
    height = height or render.get("height", 512)
    # warpath's vertical field of view; Mitsuba's fov_axis "y" matches it.
    sensor = {
        "type": "perspective",
        "fov_axis": "y",
        "fov": float(cam.get("fov", 45.0)),
        "to_world": look_at(cam["position"], cam["look_at"], cam.get("up", [0, 1, 0])),
        "film": {
            "type": "hdrfilm", "width": width, "height": height,
            "rfilter": {"type": "box"}, "pixel_format": "rgb", "component_format": "float32",
        },
        "sampler": {"type": "independent"},
    }
    if cam.get("aperture_radius", 0.0) > 0.0:
        sensor["type"] = "thinlens"
        sensor["aperture_radius"] = cam["aperture_radius"]
        sensor["focus_distance"] = cam["focus_distance"]

    scene = {
        "type": "scene",
        "integrator": {"type": "path", "max_depth": bounces + 1 if bounces is not None
                       else render.get("max_depth", 8) + 1},
        "sensor": sensor,
    }

    materials = {}
    for name, m in doc.get("materials", {}).items():
        materials[name] = bsdf_from_toml(name, m)

    for i, shape in enumerate(doc.get("shapes", [])):
        entry = shape_from_toml(shape, where)
        mat = shape.get("material")
        if mat is not None:
            if mat not in materials:
                sys.exit(f"mitsuba-render: {path}: shape {i} uses unknown material {mat!r}")
            entry["bsdf"] = materials[mat]
        if "emission" in shape:
            entry["emitter"] = {"type": "area", "radiance": {"type": "rgb", "value": shape["emission"]}}
        scene[f"shape{i}"] = entry

    env = doc.get("environment")
    if env is not None:
        if "file" in env:
            # Mitsuba's envmap maps the image with +y up and u=0 at -x... warpath's
            # convention is documented in docs/scene-format.md; the rotation below
            # aligns the two (see docs/mitsuba.md).
            emitter = {"type": "envmap", "filename": where(env["file"]),
                       "scale": float(env.get("scale", 1.0))}
            rotation = float(env.get("rotation", 0.0))
            emitter["to_world"] = mi.ScalarTransform4f().rotate([0, 1, 0], rotation)
            scene["environment"] = emitter
        elif "color" in env:
            scene["environment"] = {"type": "constant", "radiance": {"type": "rgb", "value": env["color"]}}
    return scene, width, height


def bsdf_from_toml(name, m):
    kind = m.get("type", "diffuse")
    if kind == "diffuse":
        return {"type": "diffuse", "reflectance": {"type": "rgb", "value": m.get("albedo", [0.5, 0.5, 0.5])}}
    sys.exit(f"mitsuba-render: material {name!r}: type {kind!r} has no Mitsuba translation here yet")


def shape_from_toml(shape, where):
    kind = shape.get("type")
    if kind == "mesh":
        filename = where(shape["file"])
        ext = os.path.splitext(filename)[1].lower()
        if ext not in (".ply", ".obj"):
            sys.exit(f"mitsuba-render: {filename}: only .ply and .obj meshes are translated")
        entry = {"type": ext[1:], "filename": filename, "face_normals": True}
        if "transform" in shape:
            entry["to_world"] = mi.ScalarTransform4f(shape["transform"])
        return entry
    sys.exit(f"mitsuba-render: shape type {kind!r} has no Mitsuba translation here yet")


def write_image(path, image):
    os.makedirs(os.path.dirname(os.path.abspath(path)) or ".", exist_ok=True)
    if path.endswith(".npy"):
        np.save(path, image.astype(np.float32))
    else:
        mi.Bitmap(image.astype(np.float32), pixel_format=mi.Bitmap.PixelFormat.RGB).write(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scene", help="'cornell' or a path to a warpath .toml scene")
    ap.add_argument("--resolution", default=None, help="WIDTHxHEIGHT (cornell default 256x256)")
    ap.add_argument("--spp", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bounces", type=int, default=None,
                    help="maximum bounces; Mitsuba max_depth = bounces + 1 (default 8, or the scene's)")
    ap.add_argument("--variant", default="scalar_rgb", help="scalar_rgb (default) or llvm_ad_rgb")
    ap.add_argument("--threads", type=int, default=0, help="worker threads (default: all cores)")
    ap.add_argument("-o", "--output", required=True, help=".exr or .npy")
    args = ap.parse_args()

    mi.set_variant(args.variant)
    if args.threads:
        dr.set_thread_count(args.threads)
    width = height = None
    if args.resolution:
        width, height = (int(v) for v in args.resolution.lower().split("x"))

    if args.scene == "cornell":
        bounces = 8 if args.bounces is None else args.bounces
        scene_dict = cornell_scene(width or 256, height or 256, bounces)
        width, height = scene_dict["sensor"]["film"]["width"], scene_dict["sensor"]["film"]["height"]
    else:
        scene_dict, width, height = scene_from_toml(args.scene, width, height, args.bounces)

    t0 = time.perf_counter()
    scene = mi.load_dict(scene_dict)
    t_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    image = mi.render(scene, spp=args.spp, seed=args.seed)
    image = np.array(image)  # forces evaluation on the JIT variants
    t_render = time.perf_counter() - t0
    write_image(args.output, image[:, :, :3])

    msamples = width * height * args.spp / t_render / 1e6
    print(f"mitsuba-render: {args.scene} {args.variant} {width}x{height} {args.spp} spp seed {args.seed} "
          f"max_depth {scene_dict['integrator']['max_depth']}: load {t_load:.2f} s, render {t_render:.2f} s, "
          f"{msamples:.3f} Msamples/s, mean {image[:, :, :3].mean():.6f} -> {args.output}")


if __name__ == "__main__":
    main()
