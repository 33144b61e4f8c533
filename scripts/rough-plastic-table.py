#!/usr/bin/env python3
"""rough-plastic-table.py: the rough plastic's coat tables (Mitsuba 3's `roughplastic`
convention), written once as data that the CPU and the GPU share:

    python3 scripts/rough-plastic-table.py   # needs numpy; a few minutes

writes crates/warpath-core/src/bsdf/rough_plastic_table.rs and
crates/warpath-cuda/kernels/common/rough_plastic_table.cuh with the same numbers
(crates/warpath-core/tests/rough_plastic.rs checks that the two agree).

What Mitsuba 3 computes per material, reproduced here on a grid of materials:
- the coat's external transmittance T(μ) at the 64 cosines μ_k = max(k/63, 10⁻⁶): the
  single-scattering transmittance of a rough GGX interface of relative index η seen from
  outside, ∫ (1 − F(wi·m)) G1(wt, m) D_wi(m) dm over the visible normals m (wt the refracted
  direction, counted only below the surface), integrated with a 32 × 32 Gauss–Legendre rule
  over the square of the visible-normal sampling routine (Heitz and d'Eon 2014, with the
  concentric disk mapping), 128 × 128 for η ≤ 1;
- the coat's internal diffuse reflectance: 2 · mean_k(R(μ_k) μ_k) over the same 64 cosines,
  R the rough interface's reflectance ∫ F(wi·m) G1(wr, m) D_wi(m) dm seen from inside
  (relative index 1/η, with total internal reflection), 128 × 128 nodes for 1/η < 1.
α is clamped to ≥ 10⁻⁴ as Mitsuba does.

The grid: p = √roughness = α^(1/4) uniform on [0.1, 1] (P nodes) and x = 1/η uniform on
[1/3, 1/1.1] (X nodes), each axis with one extra node beyond both ends so that the lookup's
Catmull–Rom interpolation has four nodes everywhere (those ghost nodes are computed with
the same formulas, α not clamped). The internal reflectance has XR x nodes: at small α it
steps in η where the critical angle crosses one of Mitsuba's 64 cosines. Layout:
T[(i · (X + 2) + j) · 64 + k], R[i · (XR + 2) + j], i the p node, j the x node (both
counting the ghost nodes), k the cosine.
"""
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


def smith_g1(v, m, alpha):
    xy = alpha * alpha * (v[..., 0] ** 2 + v[..., 1] ** 2)
    with np.errstate(divide="ignore", invalid="ignore"):
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


def visible_normals(mu, alpha, sx, sy):
    """Microfacet normals sampled from the visible normals seen from (√(1 − μ²), 0, μ)."""
    wx, wz = alpha * np.sqrt(1.0 - mu * mu), mu
    n = np.sqrt(wx * wx + wz * wz)
    ct = wz / n
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


def transmittance(alpha, eta):
    """T at the 64 cosines of a coat (α, η)."""
    mu = MU[:, None]
    wi = np.stack(np.broadcast_arrays(np.sqrt(1.0 - mu * mu), 0.0 * mu, mu), -1)
    sx, sy, w = gauss_legendre_square(32 if eta > 1.0 else 128)
    m = visible_normals(mu, alpha, sx[None, :], sy[None, :])
    c = (wi * m).sum(-1)
    f, cos_t, eta_it = fresnel(c, eta)
    eta_ti = 1.0 / eta_it
    wt = m * (c * eta_ti + cos_t)[..., None] - wi * eta_ti[..., None]
    t = np.where(wt[..., 2] * wi[..., 2] >= 0.0, 0.0, smith_g1(wt, m, alpha) * (1.0 - f))
    return (t * w).sum(-1)


def internal_reflectance(alpha, eta):
    """The internal diffuse reflectance of a coat (α, η)."""
    mu = MU[:, None]
    wi = np.stack(np.broadcast_arrays(np.sqrt(1.0 - mu * mu), 0.0 * mu, mu), -1)
    inv_eta = 1.0 / eta
    sx, sy, w = gauss_legendre_square(32 if inv_eta > 1.0 else 128)
    m = visible_normals(mu, alpha, sx[None, :], sy[None, :])
    c = (wi * m).sum(-1)
    f, _, _ = fresnel(c, inv_eta)
    wr = 2.0 * c[..., None] * m - wi
    r = np.where((wr[..., 2] <= 0.0) | (wi[..., 2] <= 0.0), 0.0, smith_g1(wr, m, alpha) * f)
    return 2.0 * np.mean((r * w).sum(-1) * MU)


def node_alpha(p):
    """α at a p node: p⁴, clamped to Mitsuba's 10⁻⁴ except at the ghost node below P_MIN."""
    return max(p ** 4, 1e-4) if P_MIN <= p else p ** 4


def transmittance_row(p):
    return [transmittance(node_alpha(p), 1.0 / x) for x in axis(1.0 / ETA_MAX, 1.0 / ETA_MIN, X_NODES)]


def internal_row(p):
    return [internal_reflectance(node_alpha(p), 1.0 / x) for x in axis(1.0 / ETA_MAX, 1.0 / ETA_MIN, XR_NODES)]


def axis(lo, hi, n):
    h = (hi - lo) / (n - 1)
    return lo + h * np.arange(-1, n + 1)


def f32(v):
    """The shortest decimal that reads back as the same f32 (in Rust and in C++ alike)."""
    s = str(np.float32(v))
    return s if ("e" in s or "." in s) else s + ".0"


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    ps = axis(P_MIN, P_MAX, P_NODES)
    with multiprocessing.Pool() as pool:
        rows = [t for row in pool.map(transmittance_row, ps) for t in row]
        internal = [r for row in pool.map(internal_row, ps) for r in row]
    n_t, n_r = len(rows) * RES, len(internal)
    consts = [
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
    rs.append(f"/// T[(i · (X_NODES + 2) + j) · COSINES + k]: the coat's external transmittance.")
    rs.append("#[rustfmt::skip]")
    rs.append(f"pub static TRANSMITTANCE: [f32; {n_t}] = [")
    rs += ["    " + ", ".join(f32(v) for v in row) + "," for row in rows]
    rs += ["];", "/// R[i · (XR_NODES + 2) + j]: the coat's internal diffuse reflectance.", "#[rustfmt::skip]", f"pub static INTERNAL_REFLECTANCE: [f32; {n_r}] = ["]
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
    with open(os.path.join(root, "crates/warpath-core/src/bsdf/rough_plastic_table.rs"), "w") as f:
        f.write("\n".join(rs) + "\n")
    with open(os.path.join(root, "crates/warpath-cuda/kernels/common/rough_plastic_table.cuh"), "w") as f:
        f.write("\n".join(cu) + "\n")


if __name__ == "__main__":
    main()
