#!/usr/bin/env python3
"""mitsuba-principled-reference.py: Mitsuba 3's `principled` BSDF evaluated point by point,
as the reference for warpath's (crates/warpath-core/tests/principled_mitsuba.rs, which reads
the committed crates/warpath-core/tests/data/principled-mitsuba.txt).

    $CARGO_TARGET_DIR/oracle-venv/bin/python scripts/mitsuba-principled-reference.py \\
        crates/warpath-core/tests/data/principled-mitsuba.txt

Writes a text file of parameter sets, each a line
`P r g b roughness metallic eta spec_tint sheen sheen_tint clearcoat clearcoat_gloss spec_trans flatness`
(eta the effective index, also where the set gave Mitsuba `specular`), followed by lines
`D wo_x wo_y wo_z wi_x wi_y wi_z f_r f_g f_b pdf` in warpath's naming (wo toward the viewer,
Mitsuba's si.wi; wi toward the light, Mitsuba's wo; local frame, +z the normal): Mitsuba's
eval (f · |cos θi|, radiance transport) and pdf. Half of the directions are uniform on the
sphere, half come from Mitsuba's own sample() so that the peaks are covered. Opaque sets
(no transmission) only look from the front: Mitsuba's pdf there is not zero from behind,
where its eval is (warpath's one-sided convention returns zero for both).
"""
import sys

import numpy as np
import mitsuba as mi


def parameter_sets(rng):
    sets = [
        dict(base_color=[0.8, 0.3, 0.1], roughness=0.5),
        dict(base_color=[0.9, 0.7, 0.2], roughness=0.3, metallic=1.0),
        dict(base_color=[0.2, 0.5, 0.9], roughness=0.2, clearcoat=1.0, clearcoat_gloss=0.8),
        dict(base_color=[0.6, 0.6, 0.6], roughness=0.4, spec_trans=1.0, eta=1.5),
        dict(base_color=[0.3, 0.8, 0.4], roughness=0.7, sheen=1.0, sheen_tint=0.5, flatness=0.6),
        dict(base_color=[0.7, 0.2, 0.5], roughness=0.1, spec_tint=1.0, specular=0.8),
        dict(base_color=[0.5, 0.5, 0.1], roughness=0.6, spec_trans=0.5, metallic=0.3, eta=1.33),
    ]
    for _ in range(17):
        s = dict(base_color=[float(x) for x in rng.uniform(0.02, 1.0, 3)],
                 roughness=float(rng.uniform(0.05, 1.0)))
        for name in ["metallic", "spec_tint", "sheen", "sheen_tint", "clearcoat", "clearcoat_gloss",
                     "spec_trans", "flatness"]:
            if rng.random() < 0.5:
                s[name] = float(rng.uniform(0.0, 1.0))
        if rng.random() < 0.5:
            s["eta"] = float(rng.uniform(1.05, 2.0))
        else:
            s["specular"] = float(rng.uniform(0.05, 1.0))
        sets.append(s)
    return sets


def unit(rng):
    d = rng.normal(size=3)
    return d / np.linalg.norm(d)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    mi.set_variant("scalar_rgb")
    rng = np.random.default_rng(11)
    ctx = mi.BSDFContext()
    lines = []
    for s in parameter_sets(rng):
        d = {"type": "principled"}
        for key, value in s.items():
            d[key] = {"type": "rgb", "value": value} if key == "base_color" else value
        bsdf = mi.load_dict(d)
        if "eta" in s:
            eta = s["eta"]
        else:
            eta = 2.0 / (1.0 - np.sqrt(0.08 * s.get("specular", 0.5))) - 1.0
        metallic, spec_trans = s.get("metallic", 0.0), s.get("spec_trans", 0.0)
        transmissive = (1.0 - metallic) * spec_trans > 0.0
        lines.append("P " + " ".join(repr(float(x)) for x in [
            *s["base_color"], s["roughness"], metallic, eta, s.get("spec_tint", 0.0), s.get("sheen", 0.0),
            s.get("sheen_tint", 0.0), s.get("clearcoat", 0.0), s.get("clearcoat_gloss", 0.0), spec_trans,
            s.get("flatness", 0.0)]))
        count = 0
        while count < 60:
            wo = unit(rng)
            if not transmissive and wo[2] <= 0.0:
                wo[2] = -wo[2]
            if abs(wo[2]) < 1e-3:
                continue
            si = mi.SurfaceInteraction3f()
            si.wi = mi.Vector3f(*wo)
            si.sh_frame = mi.Frame3f(mi.Vector3f(0, 0, 1))
            if count % 2 == 0:
                wi = unit(rng)
            else:
                bs, _ = bsdf.sample(ctx, si, float(rng.random()), mi.Point2f(*rng.random(2)))
                if bs.pdf <= 0.0:
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
