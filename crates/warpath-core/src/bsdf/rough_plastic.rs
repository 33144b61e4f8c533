//! The rough plastic's coat as Mitsuba 3's `roughplastic` has it: the rough interface's
//! external transmittance T(cos θ) (a table over 64 cosines, linearly interpolated between
//! them) and its internal diffuse reflectance, both of which Mitsuba integrates per material.
//! Both depend on the coat's microfacet distribution (GGX, or Beckmann, Mitsuba's default):
//! the tables hold one block of p nodes per distribution, GGX's first, so a Beckmann coat's
//! cell is its GGX cell moved by one block along p (`P_NODES + 2` nodes) and everything else
//! reads alike. warpath looks them up in tables over the coat's (roughness, η) that
//! `scripts/rough-plastic-table.py` computed once with Mitsuba's integration rule
//! ([`rough_plastic_table`](super::rough_plastic_table), shared with the GPU through
//! `common/rough_plastic_table.cuh`): a Catmull–Rom spline across p = √roughness and
//! x = 1/η at each of Mitsuba's 64 cosines, then Mitsuba's linear interpolation in cos θ;
//! the internal reflectance on a finer x grid (at small α it steps in η wherever the critical
//! angle crosses one of Mitsuba's 64 cosines).
//! The tables cover η in [[`ETA_MIN`], [`ETA_MAX`]]; roughness below 0.01 (α < 10⁻⁴) reads
//! as 0.01, as Mitsuba clamps α. Outside that η range [`coat_cell`] returns `None` and the
//! plastic falls back on the smooth interface's transmittance and diffuse reflectance.
//!
//! Same operation order as common/bsdf.cuh (the lockstep tests compare them bit for bit).

use super::rough_plastic_table::{
    COSINES, DISTRIBUTIONS, ETA_MAX, ETA_MIN, INTERNAL_REFLECTANCE, P_MAX, P_MIN, P_NODES, TRANSMITTANCE, X_NODES,
    XR_NODES,
};
pub use super::rough_plastic_table::{ETA_MAX as TABLE_ETA_MAX, ETA_MIN as TABLE_ETA_MIN};

/// Where a coat (roughness, η) lies in the tables: the first of the four p and x nodes its
/// splines read (counting the ghost nodes) and the splines' weights on them; the internal
/// reflectance has its own, finer, x nodes (`r_x_*`).
#[derive(Clone, Copy, Debug)]
pub struct CoatCell {
    pub p_node: usize,
    pub x_node: usize,
    pub r_x_node: usize,
    pub p_weights: [f32; 4],
    pub x_weights: [f32; 4],
    pub r_x_weights: [f32; 4],
}

/// The Catmull–Rom weights of four equally spaced nodes at fraction `f` in [0, 1] of the
/// interval between the middle two.
pub fn catmull_rom_weights(f: f32) -> [f32; 4] {
    let f2 = f * f;
    let f3 = f2 * f;
    [0.5 * (2.0 * f2 - f3 - f), 0.5 * (3.0 * f3 - 5.0 * f2) + 1.0, 0.5 * (4.0 * f2 + f - 3.0 * f3), 0.5 * (f3 - f2)]
}

/// The interval of `u` (a coordinate in node steps, clamped to [0, nodes − 1]) and the
/// spline's weights in it.
fn axis_cell(u: f32, nodes: usize) -> (usize, [f32; 4]) {
    let last = (nodes - 1) as f32;
    let u = u.max(0.0).min(last);
    let i = (u as usize).min(nodes - 2);
    (i, catmull_rom_weights(u - i as f32))
}

/// Whether the tables cover a coat of relative index `eta`: [`ETA_MIN`, `ETA_MAX`].
pub fn tabulated(eta: f32) -> bool {
    eta >= ETA_MIN && eta <= ETA_MAX
}

/// The coat's place in the tables (the Beckmann block with `beckmann`, else GGX's), or `None`
/// where η is outside them ([`tabulated`]).
pub fn coat_cell(roughness: f32, eta: f32, beckmann: bool) -> Option<CoatCell> {
    if !tabulated(eta) {
        return None;
    }
    let p = roughness.max(0.01).min(1.0).sqrt();
    let u = (p - P_MIN) / (P_MAX - P_MIN) * (P_NODES - 1) as f32;
    let x_lo = 1.0 / ETA_MAX;
    let x = (1.0 / eta - x_lo) / (1.0 / ETA_MIN - x_lo);
    let (p_node, p_weights) = axis_cell(u, P_NODES);
    // The distribution's block: Beckmann's p nodes follow GGX's.
    let p_node = if beckmann { p_node + (P_NODES + 2) } else { p_node };
    let (x_node, x_weights) = axis_cell(x * (X_NODES - 1) as f32, X_NODES);
    let (r_x_node, r_x_weights) = axis_cell(x * (XR_NODES - 1) as f32, XR_NODES);
    Some(CoatCell { p_node, x_node, r_x_node, p_weights, x_weights, r_x_weights })
}

/// The spline over 4 × 4 nodes (from p node `cell.p_node` and x node `x_node` of a table
/// with `x_nodes` x nodes and `stride` entries a node), entry `k` of each.
fn spline(
    cell: &CoatCell,
    x_node: usize,
    x_weights: &[f32; 4],
    x_nodes: usize,
    table: &[f32],
    stride: usize,
    k: usize,
) -> f32 {
    let mut sum = 0.0;
    for a in 0..4 {
        let row = ((cell.p_node + a) * (x_nodes + 2) + x_node) * stride + k;
        let mut across = 0.0;
        for b in 0..4 {
            across += x_weights[b] * table[row + b * stride];
        }
        sum += cell.p_weights[a] * across;
    }
    sum
}

const _: () = assert!(DISTRIBUTIONS == 2);

/// The coat's external transmittance at `cos_theta` in (0, 1] (Mitsuba's linear
/// interpolation between its 64 cosines).
pub fn coat_transmittance(cell: &CoatCell, cos_theta: f32) -> f32 {
    let x = cos_theta * (COSINES - 1) as f32;
    let k = (x as usize).min(COSINES - 2);
    let w = x - k as f32;
    let v0 = spline(cell, cell.x_node, &cell.x_weights, X_NODES, &TRANSMITTANCE, COSINES, k);
    let v1 = spline(cell, cell.x_node, &cell.x_weights, X_NODES, &TRANSMITTANCE, COSINES, k + 1);
    (1.0 - w) * v0 + w * v1
}

/// The coat's internal diffuse reflectance (light inside the coat, reflected back down).
pub fn coat_internal_reflectance(cell: &CoatCell) -> f32 {
    spline(cell, cell.r_x_node, &cell.r_x_weights, XR_NODES, &INTERNAL_REFLECTANCE, 1, 0)
}
