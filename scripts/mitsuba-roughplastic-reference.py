#!/usr/bin/env python3
"""mitsuba-roughplastic-reference.py: Mitsuba 3's `roughplastic` BSDF evaluated point by
point, as the reference for warpath's rough plastic (crates/warpath-core/tests/rough_plastic.rs,
which reads the committed crates/warpath-core/tests/data/roughplastic-mitsuba.txt for GGX and
roughplastic-beckmann-mitsuba.txt for Beckmann).

    $CARGO_TARGET_DIR/oracle-venv/bin/python scripts/mitsuba-roughplastic-reference.py \\
        crates/warpath-core/tests/data/roughplastic-mitsuba.txt
    $CARGO_TARGET_DIR/oracle-venv/bin/python scripts/mitsuba-roughplastic-reference.py \\
        crates/warpath-core/tests/data/roughplastic-beckmann-mitsuba.txt beckmann

Beckmann's coat is evaluated with `sample_visible` false: its pdf is then that of D(h) cos θh
sampling, which is how warpath samples a Beckmann lobe (the eval, and the coat's tables, do
not depend on it).

Writes a text file of parameter sets, each a line
`P alpha eta nonlinear dr dg db sr sg sb` (the diffuse and specular reflectances; eta the
relative index int_ior / ext_ior), followed by lines
`D wo_x wo_y wo_z wi_x wi_y wi_z f_r f_g f_b pdf` in warpath's naming (wo toward the viewer,
Mitsuba's si.wi; wi toward the light, Mitsuba's wo; local frame, +z the normal): Mitsuba's
eval (f · cos θi) and pdf, both directions above the surface. Half of the directions are
cosine-distributed, half come from Mitsuba's own sample() so that the coat's peak is covered;
a quarter of the views are grazing (cos θ < 0.1), where the rough coat's transmittance
departs most from the smooth one's.
"""
import sys

import numpy as np
import mitsuba as mi


def parameter_sets(rng):
    sets = [
        dict(alpha=0.1, eta=1.49, diffuse=[0.1, 0.25, 0.7]),
        dict(alpha=0.3, eta=1.5, diffuse=[0.8, 0.8, 0.8]),
        dict(alpha=0.01, eta=1.33, diffuse=[0.5, 0.2, 0.1], nonlinear=True),
        dict(alpha=0.7, eta=2.4, diffuse=[0.9, 0.9, 0.2], specular=[0.5, 0.7, 1.0]),
        dict(alpha=1.0, eta=1.1, diffuse=[0.3, 0.6, 0.3]),
        dict(alpha=0.002, eta=3.0, diffuse=[0.05, 0.05, 0.05], nonlinear=True),
    ]
    for _ in range(18):
        s = dict(alpha=float(10 ** rng.uniform(-2.7, 0.0)), eta=float(1.0 / rng.uniform(1 / 3.0, 1 / 1.1)),
                 diffuse=[float(x) for x in rng.uniform(0.0, 1.0, 3)], nonlinear=bool(rng.random() < 0.3))
        if rng.random() < 0.3:
            s["specular"] = [float(x) for x in rng.uniform(0.1, 1.0, 3)]
        sets.append(s)
    return sets


def cosine_direction(rng, grazing):
    u1, u2 = rng.random(2)
    cos = u1 * 0.1 if grazing else np.sqrt(u1)
    sin = np.sqrt(1.0 - cos * cos)
    phi = 2.0 * np.pi * u2
    return np.array([sin * np.cos(phi), sin * np.sin(phi), max(cos, 1e-4)])


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["ggx"], ["beckmann"]):
        sys.exit(__doc__)
    distribution = sys.argv[2] if len(sys.argv) == 3 else "ggx"
    mi.set_variant("scalar_rgb")
    rng = np.random.default_rng(23)
    ctx = mi.BSDFContext()
    lines = []
    for s in parameter_sets(rng):
        d = {"type": "roughplastic", "distribution": distribution, "alpha": s["alpha"], "int_ior": s["eta"],
             "sample_visible": distribution == "ggx",
             "ext_ior": 1.0, "nonlinear": s.get("nonlinear", False),
             "diffuse_reflectance": {"type": "rgb", "value": s["diffuse"]}}
        if "specular" in s:
            d["specular_reflectance"] = {"type": "rgb", "value": s["specular"]}
        bsdf = mi.load_dict(d)
        spec = s.get("specular", [1.0, 1.0, 1.0])
        lines.append("P " + " ".join(repr(float(x)) for x in [
            s["alpha"], s["eta"], 1.0 if s.get("nonlinear", False) else 0.0, *s["diffuse"], *spec]))
        count = 0
        while count < 60:
            wo = cosine_direction(rng, count % 4 == 0)
            wo /= np.linalg.norm(wo)
            si = mi.SurfaceInteraction3f()
            si.wi = mi.Vector3f(*wo)
            si.sh_frame = mi.Frame3f(mi.Vector3f(0, 0, 1))
            if count % 2 == 0:
                wi = cosine_direction(rng, count % 8 == 2)
                wi /= np.linalg.norm(wi)
            else:
                bs, _ = bsdf.sample(ctx, si, float(rng.random()), mi.Point2f(*rng.random(2)))
                if bs.pdf <= 0.0 or bs.wo.z <= 0.0:
                    continue
                wi = np.array([bs.wo.x, bs.wo.y, bs.wo.z])
            wi_m = mi.Vector3f(*wi)
            value = bsdf.eval(ctx, si, wi_m)
            pdf = bsdf.pdf(ctx, si, wi_m)
            lines.append("D " + " ".join(repr(float(x)) for x in [*wo, *wi, value[0], value[1], value[2], pdf]))
            count += 1
    with open(sys.argv[1], "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
