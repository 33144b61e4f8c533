#!/usr/bin/env python3
"""rough-plastic-table.py: the rough plastic's coat tables (Mitsuba 3's `roughplastic`
convention) for its two microfacet distributions, GGX and Beckmann, written once as data
that the CPU and the GPU share:

    python3 scripts/rough-plastic-table.py [--keep ggx|beckmann]   # needs numpy; minutes

(`--keep D` recomputes only the other distribution and copies D's block from the current
generated Rust file.)

writes crates/warpath-core/src/bsdf/rough_plastic_table.rs and
crates/warpath-cuda/kernels/common/rough_plastic_table.cuh with the same numbers
(crates/warpath-core/tests/rough_plastic.rs checks that the two agree).

What Mitsuba 3 computes per material, reproduced here on a grid of materials:
- the coat's external transmittance T(μ) at the 64 cosines μ_k = max(k/63, 10⁻⁶): the
  single-scattering transmittance of a rough interface of relative index η seen from
  outside, ∫ (1 − F(wi·m)) G1(wt, m) D_wi(m) dm over the visible normals m (wt the refracted
  direction, counted only below the surface), integrated with a 32 × 32 Gauss–Legendre rule
  over the square of the distribution's visible-normal sampling routine, 128 × 128 for
  η ≤ 1. GGX: Heitz and d'Eon 2014 with the concentric disk mapping and G1 exact. Beckmann:
  the stretched slope sampled by inverting the visible-slope CDF in the erf domain from the
  θi = π/2 guess with three Newton steps (the numerical inversion Mitsuba uses, continuous in
  the sample), and G1 Mitsuba's rational approximation of Smith's Beckmann masking;
- the coat's internal diffuse reflectance: 2 · mean_k(R(μ_k) μ_k) over the same 64 cosines,
  R the rough interface's reflectance ∫ F(wi·m) G1(wr, m) D_wi(m) dm seen from inside
  (relative index 1/η, with total internal reflection), 128 × 128 nodes for 1/η < 1.
α is clamped to ≥ 10⁻⁴ as Mitsuba does.

The grid: p = √roughness = α^(1/4) uniform on [0.1, 1] (P nodes) and x = 1/η uniform on
[1/3, 1/1.1] (X nodes), each axis with one extra node beyond both ends so that the lookup's
Catmull–Rom interpolation has four nodes everywhere (those ghost nodes are computed with
the same formulas, α not clamped). The internal reflectance has XR x nodes: at small α it
steps in η where the critical angle crosses one of Mitsuba's 64 cosines. Layout:
T[((d · (P + 2) + i) · (X + 2) + j) · 64 + k], R[(d · (P + 2) + i) · (XR + 2) + j], d the
distribution (0 GGX, 1 Beckmann), i the p node, j the x node (both counting the ghost
nodes), k the cosine: a Beckmann coat's p node is its GGX one plus P + 2.
"""
import math
import multiprocessing
import os
import sys

import numpy as np

RES = 64
P_NODES, P_MIN, P_MAX = 33, 0.1, 1.0
X_NODES, ETA_MIN, ETA_MAX = 17, 1.1, 3.0
# The internal reflectance needs a finer x: at small α it follows the critical angle's
# crossings of Mitsuba's 64 cosines, steps in η that are only smoothed by the roughness.
XR_NODES = 129
MU = np.maximum(1e-6, np.linspace(0.0, 1.0, RES))


def fresnel(c, eta):
    """Unpolarized dielectric reflectance at signed cosine c (relative index eta, inside
    where c < 0), the transmitted cosine (signed, opposite side) and the index ratio eta_it."""
    outside = c >= 0
    e = np.where(outside, eta, 1.0 / eta)
    ci = np.abs(c)
    st2 = (1.0 - ci * ci) / (e * e)
    ct = np.sqrt(np.maximum(0.0, 1.0 - st2))
    rs = (ci - e * ct) / (ci + e * ct)
    rp = (e * ci - ct) / (e * ci + ct)
    f = np.where(st2 >= 1.0, 1.0, 0.5 * (rs * rs + rp * rp))
    return f, np.where(outside, -ct, ct), e


def smith_g1(v, m, alpha, beckmann):
    xy = alpha * alpha * (v[..., 0] ** 2 + v[..., 1] ** 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        if beckmann:
            # Mitsuba's rational approximation of Smith's Beckmann masking (a = 1/(α tan θ)).
            a = 1.0 / np.sqrt(xy / v[..., 2] ** 2)
            g = np.where(a >= 1.6, 1.0, (3.535 * a + 2.181 * a * a) / (1.0 + 2.276 * a + 2.577 * a * a))
        else:
            g = 2.0 / (1.0 + np.sqrt(1.0 + xy / v[..., 2] ** 2))
    g = np.where(xy == 0.0, 1.0, g)
    return np.where((v * m).sum(-1) * v[..., 2] <= 0.0, 0.0, g)


def concentric_disk(sx, sy):
    x, y = 2.0 * sx - 1.0, 2.0 * sy - 1.0
    swap = np.abs(x) < np.abs(y)
    r = np.where(swap, y, x)
    rp = np.where(swap, x, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        phi = 0.25 * np.pi * rp / r
    phi = np.where(swap, 0.5 * np.pi - phi, phi)
    phi = np.where((x == 0.0) & (y == 0.0), 0.0, phi)
    return r * np.cos(phi), r * np.sin(phi)


_ERF = np.frompyfunc(math.erf, 1, 1)


def erf(x):
    return _ERF(x).astype(np.float64)


def erfinv(y):
    """The inverse error function: Giles's single-precision polynomials as the start, then two
    Newton steps on erf (double precision away from ±1)."""
    y = np.asarray(y, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = -np.log((1.0 - y) * (1.0 + y))
        lo = w - 2.5
        p_lo = 2.81022636e-08
        for c in [3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                  -0.00417768164, 0.246640727, 1.50140941]:
            p_lo = c + p_lo * lo
        hi = np.sqrt(w) - 3.0
        p_hi = -0.000200214257
        for c in [0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                  0.00943887047, 1.00167406, 2.83297682]:
            p_hi = c + p_hi * hi
        x = np.where(w < 5.0, p_lo, p_hi) * y
        for _ in range(2):
            x = x - (erf(x) - y) / (2.0 / math.sqrt(math.pi) * np.exp(-x * x))
    return x


def beckmann_visible_slopes(ct, sx, sy):
    """Slopes of the α = 1 Beckmann surface's visible normals seen at cos θ = ct (azimuth 0):
    the x slope by inverting its CDF (in the erf domain, from the θ = π/2 guess, three Newton
    steps), the y slope a Gaussian's."""
    st = np.sqrt(np.maximum(0.0, 1.0 - ct * ct))
    with np.errstate(divide="ignore", invalid="ignore"):
        tan = st / ct
        cot = 1.0 / tan
    maxval = erf(cot)
    sx = np.clip(sx, 1e-6, 1.0 - 1e-6)
    sy = np.clip(sy, 1e-6, 1.0 - 1e-6)
    x = maxval - (maxval + 1.0) * erf(np.sqrt(-np.log(sx)))
    inv_sqrt_pi = 1.0 / math.sqrt(math.pi)
    target = sx * (1.0 + maxval + inv_sqrt_pi * tan * np.exp(-cot * cot))
    for _ in range(3):
        slope = erfinv(x)
        value = 1.0 + x + inv_sqrt_pi * tan * np.exp(-slope * slope) - target
        x = x - value / (1.0 - slope * tan)
    return erfinv(x), erfinv(2.0 * sy - 1.0)


def visible_normals(mu, alpha, sx, sy, beckmann):
    """Microfacet normals sampled from the visible normals seen from (√(1 − μ²), 0, μ)."""
    wx, wz = alpha * np.sqrt(1.0 - mu * mu), mu
    n = np.sqrt(wx * wx + wz * wz)
    ct = wz / n
    if beckmann:
        u, v = beckmann_visible_slopes(ct, sx, sy)
        slope_x, slope_y = alpha * u, alpha * v
    else:
        st = np.sqrt(np.maximum(0.0, 1.0 - ct * ct))
        px, py = concentric_disk(sx, sy)
        s = 0.5 * (1.0 + ct)
        py = (1.0 - s) * np.sqrt(np.maximum(0.0, 1.0 - px * px)) + s * py
        pz = np.sqrt(np.maximum(0.0, 1.0 - px * px - py * py))
        norm = 1.0 / (st * py + ct * pz)
        slope_x, slope_y = alpha * (ct * py - st * pz) * norm, alpha * px * norm
    m = np.stack(np.broadcast_arrays(-slope_x, -slope_y, np.ones_like(slope_x)), -1)
    return m / np.linalg.norm(m, axis=-1, keepdims=True)


def gauss_legendre_square(n):
    x, w = np.polynomial.legendre.leggauss(n)
    gx, gy = np.meshgrid(x, x)
    wx, wy = np.meshgrid(w, w)
    return gx.ravel() * 0.5 + 0.5, gy.ravel() * 0.5 + 0.5, (wx * wy).ravel() * 0.25


class Coat:
    """One roughness of one distribution, with its visible normals at Mitsuba's 64 cosines for
    each quadrature rule (computed once, shared by every η)."""

    def __init__(self, alpha, beckmann):
        self.alpha, self.beckmann, self.rules = alpha, beckmann, {}
        mu = MU[:, None]
        self.wi = np.stack(np.broadcast_arrays(np.sqrt(1.0 - mu * mu), 0.0 * mu, mu), -1)

    def normals(self, n):
        if n not in self.rules:
            sx, sy, w = gauss_legendre_square(n)
            m = visible_normals(MU[:, None], self.alpha, sx[None, :], sy[None, :], self.beckmann)
            self.rules[n] = (m, w, (self.wi * m).sum(-1))
        return self.rules[n]

    def transmittance(self, eta):
        """T at the 64 cosines of the coat at relative index η."""
        m, w, c = self.normals(32 if eta > 1.0 else 128)
        f, cos_t, eta_it = fresnel(c, eta)
        eta_ti = 1.0 / eta_it
        wt = m * (c * eta_ti + cos_t)[..., None] - self.wi * eta_ti[..., None]
        g = smith_g1(wt, m, self.alpha, self.beckmann)
        t = np.where(wt[..., 2] * self.wi[..., 2] >= 0.0, 0.0, g * (1.0 - f))
        return (t * w).sum(-1)

    def internal_reflectance(self, eta):
        """The internal diffuse reflectance of the coat at relative index η."""
        inv_eta = 1.0 / eta
        m, w, c = self.normals(32 if inv_eta > 1.0 else 128)
        f, _, _ = fresnel(c, inv_eta)
        wr = 2.0 * c[..., None] * m - self.wi
        g = smith_g1(wr, m, self.alpha, self.beckmann)
        r = np.where((wr[..., 2] <= 0.0) | (self.wi[..., 2] <= 0.0), 0.0, g * f)
        return 2.0 * np.mean((r * w).sum(-1) * MU)


def node_alpha(p):
    """α at a p node: p⁴, clamped to Mitsuba's 10⁻⁴ except at the ghost node below P_MIN."""
    return max(p ** 4, 1e-4) if P_MIN <= p else p ** 4


def transmittance_row(job):
    p, beckmann = job
    coat = Coat(node_alpha(p), beckmann)
    return [coat.transmittance(1.0 / x) for x in axis(1.0 / ETA_MAX, 1.0 / ETA_MIN, X_NODES)]


def internal_row(job):
    p, beckmann = job
    coat = Coat(node_alpha(p), beckmann)
    return [coat.internal_reflectance(1.0 / x) for x in axis(1.0 / ETA_MAX, 1.0 / ETA_MIN, XR_NODES)]


def axis(lo, hi, n):
    h = (hi - lo) / (n - 1)
    return lo + h * np.arange(-1, n + 1)


def f32(v):
    """The shortest decimal that reads back as the same f32 (in Rust and in C++ alike)."""
    s = str(np.float32(v))
    return s if ("e" in s or "." in s) else s + ".0"


DISTRIBUTIONS = ["ggx", "beckmann"]
RUST_TABLE = "crates/warpath-core/src/bsdf/rough_plastic_table.rs"
CUDA_TABLE = "crates/warpath-cuda/kernels/common/rough_plastic_table.cuh"


def kept_block(root, name, d):
    """Distribution d's block of the committed Rust table `name` (a table of one block, GGX's,
    before Beckmann joined it, is its block 0)."""
    text = open(os.path.join(root, RUST_TABLE)).read()
    start = text.index(f"pub static {name}:")
    body = text[text.index("= [", start) + 3:text.index("];", start)]
    values = np.array([float(v) for v in body.replace("\n", " ").split(",") if v.strip()])
    per = (P_NODES + 2) * (X_NODES + 2) * RES if name == "TRANSMITTANCE" else (P_NODES + 2) * (XR_NODES + 2)
    if len(values) % per != 0 or (len(values) // per) <= d:
        sys.exit(f"{RUST_TABLE}: {name} has no block {d} to keep")
    return values[d * per:(d + 1) * per]


def main():
    args = sys.argv[1:]
    keep = None
    if args[:1] == ["--keep"] and len(args) == 2 and args[1] in DISTRIBUTIONS:
        keep = args[1]
    elif args:
        sys.exit(__doc__)
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    ps = axis(P_MIN, P_MAX, P_NODES)
    rows, internal = [], []
    for d, name in enumerate(DISTRIBUTIONS):
        if name == keep:
            rows += list(kept_block(root, "TRANSMITTANCE", d).reshape(-1, RES))
            internal += list(kept_block(root, "INTERNAL_REFLECTANCE", d))
            continue
        jobs = [(p, name == "beckmann") for p in ps]
        with multiprocessing.Pool() as pool:
            rows += [t for row in pool.map(transmittance_row, jobs) for t in row]
            internal += [r for row in pool.map(internal_row, jobs) for r in row]
    n_t, n_r = len(rows) * RES, len(internal)
    consts = [
        ("DISTRIBUTIONS", len(DISTRIBUTIONS), "GGX (0) and Beckmann (1): one block of P_NODES + 2 p nodes each"),
        ("P_NODES", P_NODES, "p = √roughness nodes on [P_MIN, P_MAX] (plus a ghost node at each end)"),
        ("X_NODES", X_NODES, "x = 1/η nodes on [1/ETA_MAX, 1/ETA_MIN] (plus a ghost node at each end)"),
        ("XR_NODES", XR_NODES, "x nodes of the internal reflectance on [1/ETA_MAX, 1/ETA_MIN] (plus the ghosts)"),
        ("COSINES", RES, "cosines k/63 (k = 0: 10⁻⁶) per (p, x) node"),
    ]
    fconsts = [("P_MIN", P_MIN), ("P_MAX", P_MAX), ("ETA_MIN", ETA_MIN), ("ETA_MAX", ETA_MAX)]
    header = "generated by scripts/rough-plastic-table.py (do not edit): the rough plastic's coat tables"
    rs = [f"//! {header};", "//! the lookup and the conventions are in `super::rough_plastic`.", "#![allow(clippy::all)]", ""]
    for name, v, doc in consts:
        rs += [f"/// {doc}", f"pub const {name}: usize = {v};"]
    for name, v in fconsts:
        rs.append(f"pub const {name}: f32 = {f32(v)};")
    rs.append("/// T[((d · (P_NODES + 2) + i) · (X_NODES + 2) + j) · COSINES + k]: the coat's external transmittance.")
    rs.append("#[rustfmt::skip]")
    rs.append(f"pub static TRANSMITTANCE: [f32; {n_t}] = [")
    rs += ["    " + ", ".join(f32(v) for v in row) + "," for row in rows]
    rs += ["];", "/// R[(d · (P_NODES + 2) + i) · (XR_NODES + 2) + j]: the coat's internal diffuse reflectance.", "#[rustfmt::skip]", f"pub static INTERNAL_REFLECTANCE: [f32; {n_r}] = ["]
    for i in range(0, n_r, XR_NODES + 2):
        rs.append("    " + ", ".join(f32(v) for v in internal[i:i + XR_NODES + 2]) + ",")
    rs.append("];")
    cu = [f"// common/rough_plastic_table.cuh — {header}", "// (warpath_core::bsdf::rough_plastic_table; the lookup is in common/bsdf.cuh).", "#pragma once", ""]
    for name, v, doc in consts:
        cu.append(f"#define ROUGH_PLASTIC_{name} {v}u  // {doc}")
    for name, v in fconsts:
        cu.append(f"#define ROUGH_PLASTIC_{name} {f32(v)}f")
    cu.append(f"__device__ const float ROUGH_PLASTIC_TRANSMITTANCE[{n_t}] = {{")
    cu += ["    " + ", ".join(f32(v) + "f" for v in row) + "," for row in rows]
    cu += ["};", f"__device__ const float ROUGH_PLASTIC_INTERNAL_REFLECTANCE[{n_r}] = {{"]
    for i in range(0, n_r, XR_NODES + 2):
        cu.append("    " + ", ".join(f32(v) + "f" for v in internal[i:i + XR_NODES + 2]) + ",")
    cu.append("};")
    with open(os.path.join(root, RUST_TABLE), "w") as f:
        f.write("\n".join(rs) + "\n")
    with open(os.path.join(root, CUDA_TABLE), "w") as f:
        f.write("\n".join(cu) + "\n")


if __name__ == "__main__":
    main()
