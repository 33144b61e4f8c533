#!/usr/bin/env python3
"""mitsuba-conductor-reference.py: Mitsuba 3's conductors (exact Fresnel of eta + ik, tinted by
specular_reflectance) and its Beckmann rough BSDFs evaluated point by point, as the reference
for warpath's (crates/warpath-core/tests/conductor_beckmann.rs, which reads the committed
crates/warpath-core/tests/data/conductor-mitsuba.txt).

    $CARGO_TARGET_DIR/oracle-venv/bin/python scripts/mitsuba-conductor-reference.py \\
        crates/warpath-core/tests/data/conductor-mitsuba.txt

Writes parameter sets, each a line
`C kind eta_r eta_g eta_b k_r k_g k_b s_r s_g s_b alpha ior` (kind: 0 `conductor`, 1
`roughconductor`, 2 `roughdielectric`, both rough ones with Mitsuba's default distribution,
Beckmann; eta/k/s the conductor's index and specular_reflectance as Mitsuba loaded them, a
named material's included; ior the dielectric's int_ior / ext_ior), followed by lines
`D wo_x wo_y wo_z wi_x wi_y wi_z v_r v_g v_b` in warpath's naming (wo toward the viewer,
Mitsuba's si.wi; wi toward the light, Mitsuba's wo; local frame): for the smooth conductor the
weight of Mitsuba's sample (wi its mirror direction), for the rough ones Mitsuba's eval
(f · |cos θi|, radiance transport) at directions half uniform, half from Mitsuba's sample().
"""
import sys

import numpy as np
import mitsuba as mi


def parameter_sets():
    rgb = lambda v: {"type": "rgb", "value": v}
    return [
        (0, {"type": "conductor"}),
        (0, {"type": "conductor", "material": "Au"}),
        (0, {"type": "conductor", "material": "Cu", "specular_reflectance": rgb([0.9, 0.5, 0.3])}),
        (0, {"type": "conductor", "material": "Al"}),
        (0, {"type": "conductor", "eta": rgb([0.2, 1.1, 2.5]), "k": rgb([3.9, 2.4, 1.0])}),
        (0, {"type": "conductor", "eta": 1.5, "k": 0.0}),
        (1, {"type": "roughconductor", "alpha": 0.1}),
        (1, {"type": "roughconductor", "material": "Au", "alpha": 0.3}),
        (1, {"type": "roughconductor", "material": "Cr", "alpha": 0.6,
             "specular_reflectance": rgb([0.4, 0.8, 0.6])}),
        (1, {"type": "roughconductor", "eta": rgb([1.6, 0.9, 0.5]), "k": rgb([9.2, 6.3, 4.8]), "alpha": 0.05}),
        (1, {"type": "roughconductor", "material": "Ag", "alpha": 1.0}),
        (2, {"type": "roughdielectric", "alpha": 0.2, "int_ior": 1.5, "ext_ior": 1.0}),
        (2, {"type": "roughdielectric", "alpha": 0.5, "int_ior": 1.33, "ext_ior": 1.0}),
        (2, {"type": "roughdielectric", "alpha": 0.05, "int_ior": 2.4, "ext_ior": 1.0}),
    ]


def unit(rng):
    d = rng.normal(size=3)
    return d / np.linalg.norm(d)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    mi.set_variant("scalar_rgb")
    rng = np.random.default_rng(7)
    ctx = mi.BSDFContext()
    lines = []
    for kind, d in parameter_sets():
        bsdf = mi.load_dict(d)
        params = mi.traverse(bsdf)
        def get(key, default):
            if key not in params.keys():
                return [default] * 3
            v = params[key]
            return [float(x) for x in v] if hasattr(v, "__len__") and len(v) == 3 else [float(v)] * 3
        eta, k, s = get("eta.value", 0.0), get("k.value", 0.0), get("specular_reflectance.value", 1.0)
        alpha = d.get("alpha", 0.0)
        ior = d.get("int_ior", 1.0) / d.get("ext_ior", 1.0)
        lines.append("C " + " ".join(repr(float(x)) for x in [kind, *eta, *k, *s, alpha, ior]))
        count = 0
        while count < 40:
            wo = unit(rng)
            if kind != 2 and wo[2] <= 0.0:
                wo[2] = -wo[2]
            if abs(wo[2]) < 1e-3:
                continue
            si = mi.SurfaceInteraction3f()
            si.wi = mi.Vector3f(*wo)
            si.sh_frame = mi.Frame3f(mi.Vector3f(0, 0, 1))
            if kind == 0:
                bs, weight = bsdf.sample(ctx, si, float(rng.random()), mi.Point2f(*rng.random(2)))
                wi = np.array([bs.wo.x, bs.wo.y, bs.wo.z])
                value = weight
            else:
                if count % 2 == 0:
                    wi = unit(rng)
                else:
                    bs, _ = bsdf.sample(ctx, si, float(rng.random()), mi.Point2f(*rng.random(2)))
                    if bs.pdf <= 0.0:
                        continue
                    wi = np.array([bs.wo.x, bs.wo.y, bs.wo.z])
                value = bsdf.eval(ctx, si, mi.Vector3f(*wi))
            lines.append("D " + " ".join(repr(float(x)) for x in [*wo, *wi, value[0], value[1], value[2]]))
            count += 1
    with open(sys.argv[1], "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
