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
diffuse/emissive materials, two-sided unless `one_sided`, environment map); see
scene_from_toml(). A `scene.json` written by `warpath export-mitsuba SCENE --out DIR` (or
DIR itself) is loaded as it is: the scene exactly as warpath loaded it, media and grids
included, rendered with Mitsuba's `volpath`; see scene_from_json().

    warpath export-mitsuba scenes/compare-volume-cloud.toml --out out/cloud-mitsuba
    .venv/bin/python scripts/mitsuba-render.py out/cloud-mitsuba/scene.json --spp 32 -o out/cloud.exr

The output is .exr (32-bit float RGB, via mi.Bitmap) or .npy (float32 HxWx3).
Make the venv first: scripts/setup-mitsuba.
"""
import argparse
import json
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


DEFAULT_ALBEDO = 0.8  # warpath's material for shapes that name none (toml_scene.rs)


def diffuse_bsdf(albedo, one_sided):
    """Mitsuba's diffuse is one-sided (black from behind); warpath's opaque BSDFs are
    two-sided unless the material says `one_sided = true`: wrap it in `twosided` then."""
    bsdf = {"type": "diffuse", "reflectance": {"type": "rgb", "value": albedo}}
    return bsdf if one_sided else {"type": "twosided", "bsdf": bsdf}


def triple(value):
    """A warpath color/scale: a number or a list of three."""
    return [float(value)] * 3 if isinstance(value, (int, float)) else [float(v) for v in value]


def scene_from_toml(path, width, height, bounces):
    """Translate a warpath TOML scene (docs/scene-format.md) into a Mitsuba scene dict.

    Translated: [render] width/height/max_depth; [camera] look_at or to_world, fov,
    fov_axis, aperture_radius/focus_distance; [[material]] of type diffuse (others
    stop with a message; black is diffuse with albedo 0), two-sided by default as warpath's
    (Mitsuba's `twosided` adapter around the diffuse) and a bare one-sided Mitsuba diffuse
    with `one_sided = true`; [[shape]] mesh (.ply/.obj), rectangle, cube, sphere with
    to_world or translate/rotate/scale, emission (one-sided) on the shape or its material
    (diffuse or black); [environment] none, constant, map (with scale and rotate_y; the map
    as it is: both renderers look it up with Mitsuba's bilinear convention). Meshes use face
    normals, as warpath does for meshes without normals."""
    import tomllib

    with open(path, "rb") as f:
        doc = tomllib.load(f)
    base = os.path.dirname(os.path.abspath(path))
    where = lambda rel: os.path.normpath(os.path.join(base, rel))
    T = mi.ScalarTransform4f

    render = doc.get("render", {})
    width = width or render.get("width", 512)
    height = height or render.get("height", 512)
    if bounces is None:
        bounces = render.get("max_depth", 8)

    cam = doc.get("camera")
    if cam is None:
        sys.exit(f"mitsuba-render: {path}: no [camera]: warpath's automatic framing is not translated")
    if "look_at" in cam:
        la = cam["look_at"]
        to_world = T().look_at(origin=la["origin"], target=la["target"], up=la.get("up", [0, 1, 0]))
    else:
        to_world = T(cam["to_world"])
    sensor = {
        "type": "perspective",
        "fov_axis": cam.get("fov_axis", "smaller"),
        "fov": float(cam.get("fov", 40.0)),
        "to_world": to_world,
        "film": {"type": "hdrfilm", "width": width, "height": height, "rfilter": {"type": "box"},
                 "pixel_format": "rgb", "component_format": "float32"},
        "sampler": {"type": "independent"},
    }
    if cam.get("aperture_radius", 0.0) > 0.0:
        sensor["type"] = "thinlens"
        sensor["aperture_radius"] = float(cam["aperture_radius"])
        sensor["focus_distance"] = float(cam["focus_distance"])

    scene = {"type": "scene", "integrator": {"type": "path", "max_depth": bounces + 1}, "sensor": sensor}

    materials = {}
    for m in doc.get("material", []):
        kind = m.get("type")
        if kind not in ("diffuse", "black"):
            sys.exit(f"mitsuba-render: {path}: material {m.get('name')!r}: type {kind!r} is not translated "
                     "to Mitsuba here (only diffuse and black)")
        if "base_color_texture" in m:
            sys.exit(f"mitsuba-render: {path}: material {m['name']!r}: textures are not translated")
        albedo = triple(m.get("base_color", DEFAULT_ALBEDO)) if kind == "diffuse" else [0.0] * 3
        emission = m.get("emission")
        if emission is not None and m.get("two_sided_emission"):
            print(f"mitsuba-render: warning: material {m['name']!r}: two-sided emission is one-sided in Mitsuba")
        materials[m["name"]] = (diffuse_bsdf(albedo, m.get("one_sided", False)), emission)
    default = (diffuse_bsdf([DEFAULT_ALBEDO] * 3, False), None)

    for i, shape in enumerate(doc.get("shape", [])):
        kind = shape["type"]
        if kind == "mesh":
            filename = where(shape["file"])
            ext = os.path.splitext(filename)[1].lower()
            if ext not in (".ply", ".obj"):
                sys.exit(f"mitsuba-render: {path}: {filename}: only .ply and .obj meshes are translated")
            entry = {"type": ext[1:], "filename": filename, "face_normals": True}
        elif kind in ("rectangle", "cube", "sphere"):
            entry = {"type": kind}
        else:
            sys.exit(f"mitsuba-render: {path}: shape type {kind!r} is not translated")
        if "to_world" in shape:
            entry["to_world"] = T(shape["to_world"])
        else:
            m = T()
            if "translate" in shape:
                m = m.translate(shape["translate"])
            if "rotate" in shape:
                m = m @ T().rotate(shape["rotate"]["axis"], shape["rotate"]["angle"])
            if "scale" in shape:
                m = m @ T().scale(triple(shape["scale"]))
            entry["to_world"] = m
        name = shape.get("material")
        if name is not None and name not in materials:
            sys.exit(f"mitsuba-render: {path}: shape {i} uses unknown material {name!r}")
        bsdf, emission = materials.get(name, default)
        entry["bsdf"] = bsdf
        emission = shape.get("emission", emission)
        if emission is not None and max(triple(emission)) > 0:
            if shape.get("two_sided_emission"):
                print(f"mitsuba-render: warning: shape {i}: two-sided emission is one-sided in Mitsuba")
            entry["emitter"] = {"type": "area", "radiance": {"type": "rgb", "value": triple(emission)}}
        scene[f"shape-{i}-{shape.get('name', kind)}"] = entry

    env = doc.get("environment", {"type": "none"})
    scale = float(env.get("scale", 1.0))
    if env["type"] == "constant":
        radiance = [scale * v for v in triple(env.get("radiance", 1.0))]
        scene["environment"] = {"type": "constant", "radiance": {"type": "rgb", "value": radiance}}
    elif env["type"] == "map":
        # Both renderers map a direction d (in the map's frame) to u = atan2(d.x, -d.z) / 2pi,
        # v = acos(d.y) / pi and interpolate bilinearly between texel centres at
        # u = (c + 0.5)/w, v = r/(h - 1); rotate_y is a rotation about +y, as Mitsuba's rotate
        # (checked: crates/warpath-core/tests/mitsuba_envmap.rs). The map goes in as it is,
        # except that the Blender maps hold small negative values (DWAB source data, down to
        # -0.004): Mitsuba would drop every sample that carries one ("Invalid sample value"),
        # so they are clamped to zero here, as warpath's EnvMap::new clamps them.
        pixels = np.array(mi.Bitmap(where(env["file"])), dtype=np.float32)[:, :, :3]
        scene["environment"] = {
            "type": "envmap", "bitmap": mi.Bitmap(np.maximum(pixels, 0.0)), "scale": scale,
            "to_world": T().rotate([0, 1, 0], float(env.get("rotate_y", 0.0))),
        }
    elif env["type"] != "none":
        sys.exit(f"mitsuba-render: {path}: environment type {env['type']!r} is not translated")
    scene["sensor"]["sampler"]["sample_count"] = int(render.get("spp", 64))
    return scene, width, height


def scene_from_json(path, width, height, bounces, spp):
    """Load a scene dict written by `warpath export-mitsuba` (plain JSON): nested-list
    `to_world` matrices (rows) become mi.ScalarTransform4f, `filename`s (relative to the
    JSON's folder) become absolute paths. --resolution, --spp and --bounces override the
    film, the sampler and the integrator (max_depth = bounces + 1 and rr_depth = max_depth,
    as the exporter sets them: Mitsuba's roulette then never fires)."""
    if os.path.isdir(path):
        path = os.path.join(path, "scene.json")
    with open(path) as f:
        doc = json.load(f)
    base = os.path.dirname(os.path.abspath(path))

    def convert(value, key=None):
        if isinstance(value, dict):
            return {k: convert(v, k) for k, v in value.items()}
        if key == "to_world":
            return mi.ScalarTransform4f(value)
        if key == "filename":
            return os.path.join(base, value)
        if isinstance(value, list):
            return [convert(v) for v in value]
        return value

    scene = convert(doc)
    film = scene["sensor"]["film"]
    if width:
        film["width"], film["height"] = width, height
    if bounces is not None:
        scene["integrator"]["max_depth"] = bounces + 1
        scene["integrator"]["rr_depth"] = bounces + 1
    if spp:
        scene["sensor"]["sampler"]["sample_count"] = spp
    return scene, film["width"], film["height"]


def write_image(path, image):
    os.makedirs(os.path.dirname(os.path.abspath(path)) or ".", exist_ok=True)
    if path.endswith(".npy"):
        np.save(path, image.astype(np.float32))
    else:
        mi.Bitmap(image.astype(np.float32), pixel_format=mi.Bitmap.PixelFormat.RGB).write(path)


def timed_renders(args, scene, spp):
    """Renders `scene` args.repeat times; the fastest time and the last image."""
    times = []
    for _ in range(max(1, args.repeat)):
        t0 = time.perf_counter()
        image = mi.render(scene, spp=spp, seed=args.seed)
        image = np.array(image)  # forces evaluation on the JIT variants
        times.append(time.perf_counter() - t0)
    if len(times) > 1:
        print("mitsuba-render: render times " + ", ".join(f"{t:.3f}" for t in times) + " s")
    return min(times), image


def render_xml(args, width, height):
    """A Mitsuba XML scene as Mitsuba loads it: its own film size, sample count and integrator
    (--resolution, --spp and --bounces are not applied: the scene's own settings are what warpath
    imports too)."""
    if width or args.bounces is not None:
        sys.exit("mitsuba-render: --resolution and --bounces do not apply to an .xml scene (its own are used)")
    t0 = time.perf_counter()
    scene = mi.load_file(args.scene)
    t_load = time.perf_counter() - t0
    film = scene.sensors()[0].film()
    width, height = (int(v) for v in film.crop_size())
    spp = args.spp or scene.sensors()[0].sampler().sample_count()
    t_render, image = timed_renders(args, scene, spp)
    write_image(args.output, image[:, :, :3])
    msamples = width * height * spp / t_render / 1e6
    print(f"mitsuba-render: {args.scene} {args.variant} {width}x{height} {spp} spp seed {args.seed}: "
          f"load {t_load:.2f} s, render {t_render:.2f} s, {msamples:.3f} Msamples/s, "
          f"mean {image[:, :, :3].mean():.6f} -> {args.output}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scene", help="'cornell', a path to a warpath .toml scene, a scene.json (or its folder) "
                                  "from `warpath export-mitsuba`, or a Mitsuba .xml scene (loaded by Mitsuba itself)")
    ap.add_argument("--resolution", default=None, help="WIDTHxHEIGHT (cornell default 256x256)")
    ap.add_argument("--spp", type=int, default=None, help="samples per pixel (default 64, or the scene's)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bounces", type=int, default=None,
                    help="maximum bounces; Mitsuba max_depth = bounces + 1 (default 8, or the scene's)")
    ap.add_argument("--variant", default="scalar_rgb", help="scalar_rgb (default) or llvm_ad_rgb")
    ap.add_argument("--threads", type=int, default=0, help="worker threads (default: all cores)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="render this many times and report the fastest (JIT variants compile on the first)")
    ap.add_argument("--wavefront", action="store_true",
                    help="JIT variants: evaluate loops as wavefronts (drjit SymbolicLoops off) instead of one megakernel")
    ap.add_argument("-o", "--output", required=True, help=".exr or .npy")
    args = ap.parse_args()

    mi.set_variant(args.variant)
    if args.threads:
        dr.set_thread_count(args.threads)
    if args.wavefront:
        dr.set_flag(dr.JitFlag.SymbolicLoops, False)
    width = height = None
    if args.resolution:
        width, height = (int(v) for v in args.resolution.lower().split("x"))

    if args.scene.endswith(".xml"):
        return render_xml(args, width, height)
    if args.scene == "cornell":
        bounces = 8 if args.bounces is None else args.bounces
        scene_dict = cornell_scene(width or 256, height or 256, bounces)
        width, height = scene_dict["sensor"]["film"]["width"], scene_dict["sensor"]["film"]["height"]
    elif args.scene.endswith(".json") or os.path.isdir(args.scene):
        scene_dict, width, height = scene_from_json(args.scene, width, height, args.bounces, args.spp)
    else:
        scene_dict, width, height = scene_from_toml(args.scene, width, height, args.bounces)

    spp = args.spp or scene_dict["sensor"].get("sampler", {}).get("sample_count", 64)
    t0 = time.perf_counter()
    scene = mi.load_dict(scene_dict)
    t_load = time.perf_counter() - t0
    t_render, image = timed_renders(args, scene, spp)
    write_image(args.output, image[:, :, :3])

    msamples = width * height * spp / t_render / 1e6
    print(f"mitsuba-render: {args.scene} {args.variant} {width}x{height} {spp} spp seed {args.seed} "
          f"max_depth {scene_dict['integrator']['max_depth']}: load {t_load:.2f} s, render {t_render:.2f} s, "
          f"{msamples:.3f} Msamples/s, mean {image[:, :, :3].mean():.6f} -> {args.output}")


if __name__ == "__main__":
    main()
