//! The CPU ray casters of isosurfaces, in lattice space (crate::lattice): rays
//! `origin + t·direction`, hits with the cell, t and the gradient normal.
//!
//! * [`cast_reference`]: the spec (issue 14: "a CPU reference ray caster (3D DDA over every
//!   cell, exact trilinear root, no BVH)"). The ray is clipped to the lattice box once; every
//!   cell it crosses is intersected exactly over the part of that clipped segment inside the
//!   cell, in order, and the first root is the hit.
//! * [`cast_bvh`]: the same through the condensed brick tree of the isovalue: near child
//!   first, the DDA only inside valid bricks, each cell's segment computed exactly as the
//!   reference computes it, so the two return the same cell and the same t bit for bit.

use crate::bricks::{BrickBvh, CondensedNode, CondensedTree};
use crate::cell::{CellCubic, gradient};
use crate::lattice::Lattice;

/// A ray's first intersection with an isosurface.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IsoHit {
    /// Ray parameter of the hit (in units of the ray's direction).
    pub t: f64,
    /// The cell holding it.
    pub cell: [u32; 3],
    /// The interpolant's gradient there, normalised (zero where the gradient vanishes).
    pub normal: [f64; 3],
}

/// The t range of the ray inside the box `lo..hi`, clipped to `[t_min, t_max]`.
fn slab(
    origin: [f64; 3],
    direction: [f64; 3],
    lo: [f64; 3],
    hi: [f64; 3],
    t_min: f64,
    t_max: f64,
) -> Option<(f64, f64)> {
    let (mut t0, mut t1) = (t_min, t_max);
    for a in 0..3 {
        if direction[a] == 0.0 {
            if origin[a] < lo[a] || origin[a] > hi[a] {
                return None;
            }
            continue;
        }
        let inv = 1.0 / direction[a];
        let (mut near, mut far) = ((lo[a] - origin[a]) * inv, (hi[a] - origin[a]) * inv);
        if near > far {
            std::mem::swap(&mut near, &mut far);
        }
        t0 = t0.max(near);
        t1 = t1.min(far);
    }
    (t0 <= t1).then_some((t0, t1))
}

/// The ray's segment inside the lattice box, within `[t_min, t_max]`.
fn clip_to_lattice(
    lattice: &Lattice,
    origin: [f64; 3],
    direction: [f64; 3],
    t_min: f64,
    t_max: f64,
) -> Option<(f64, f64)> {
    slab(origin, direction, [0.0; 3], lattice.upper(), t_min, t_max)
}

/// The first root in cell `cell` over the part of `segment` inside it.
fn intersect_cell(
    lattice: &Lattice,
    cell: [u32; 3],
    origin: [f64; 3],
    direction: [f64; 3],
    segment: (f64, f64),
    isovalue: f64,
) -> Option<IsoHit> {
    let lo = cell.map(|c| c as f64);
    let hi = lo.map(|c| c + 1.0);
    let (t0, t1) = slab(origin, direction, lo, hi, segment.0, segment.1)?;
    let corners = lattice.cell_corners(cell);
    if !crate::cell::may_cross(&corners, isovalue) {
        return None;
    }
    // The cubic in s = t − t0 from the ray's entry into the cell: its coefficients are of the
    // order of the cell's values wherever the ray started (in t from a distant origin they
    // cancel, and the root loses digits).
    let local: [f64; 3] = std::array::from_fn(|a| origin[a] + t0 * direction[a] - lo[a]);
    let cubic = CellCubic::new(&corners, local, direction, isovalue);
    cubic.first_root(0.0, t1 - t0).map(|s| {
        let t = t0 + s;
        let p = std::array::from_fn(|a| (local[a] + s * direction[a]).clamp(0.0, 1.0));
        let g = gradient(&corners, p);
        let length = (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
        let normal = if length > 0.0 { g.map(|v| v / length) } else { [0.0; 3] };
        IsoHit { t, cell, normal }
    })
}

/// Walks the cells of `region` (cell index ranges, half-open) along the ray, from where the
/// ray is at `t_start`, until a hit or the region's end. `segment` is the ray's clip to the
/// whole lattice (each cell intersects it, as in the reference).
fn march(
    lattice: &Lattice,
    region: ([u32; 3], [u32; 3]),
    origin: [f64; 3],
    direction: [f64; 3],
    segment: (f64, f64),
    t_start: f64,
    isovalue: f64,
) -> Option<IsoHit> {
    let (lo, hi) = region;
    let p: [f64; 3] = std::array::from_fn(|a| origin[a] + t_start * direction[a]);
    let mut cell: [u32; 3] = std::array::from_fn(|a| (p[a].floor().max(0.0) as u32).clamp(lo[a], hi[a] - 1));
    let limit = (hi[0] - lo[0]) + (hi[1] - lo[1]) + (hi[2] - lo[2]) + 3;
    for _ in 0..limit {
        let hit = intersect_cell(lattice, cell, origin, direction, segment, isovalue);
        if hit.is_some() {
            return hit;
        }
        // The next cell: across the face where the ray leaves this one (the nearest far
        // face; computed as the slab test computes it).
        let far: [f64; 3] = std::array::from_fn(|a| {
            if direction[a] == 0.0 {
                return f64::INFINITY;
            }
            let face = if direction[a] > 0.0 { (cell[a] + 1) as f64 } else { cell[a] as f64 };
            (face - origin[a]) * (1.0 / direction[a])
        });
        let axis = if far[0] <= far[1] && far[0] <= far[2] {
            0
        } else if far[1] <= far[2] {
            1
        } else {
            2
        };
        if far[axis] >= segment.1 {
            return None;
        }
        if direction[axis] > 0.0 {
            if cell[axis] + 1 >= hi[axis] {
                return None;
            }
            cell[axis] += 1;
        } else {
            if cell[axis] == lo[axis] {
                return None;
            }
            cell[axis] -= 1;
        }
    }
    None
}

/// The reference: every cell along the ray (no BVH).
pub fn cast_reference(lattice: &Lattice, origin: [f64; 3], direction: [f64; 3], isovalue: f32) -> Option<IsoHit> {
    let segment = clip_to_lattice(lattice, origin, direction, 0.0, f64::INFINITY)?;
    march(lattice, ([0; 3], lattice.cells()), origin, direction, segment, segment.0, isovalue as f64)
}

/// Through the condensed tree of `isovalue` (`bvh.condense(isovalue)`).
pub fn cast_bvh(
    lattice: &Lattice,
    bvh: &BrickBvh,
    tree: &CondensedTree,
    origin: [f64; 3],
    direction: [f64; 3],
    isovalue: f32,
) -> Option<IsoHit> {
    cast_bvh_within(lattice, bvh, tree, origin, direction, isovalue, (0.0, f64::INFINITY))
}

/// [`cast_bvh`] for the part of the ray with t in `range` (the path tracer's rays:
/// crate::shape).
pub fn cast_bvh_within(
    lattice: &Lattice,
    bvh: &BrickBvh,
    tree: &CondensedTree,
    origin: [f64; 3],
    direction: [f64; 3],
    isovalue: f32,
    range: (f64, f64),
) -> Option<IsoHit> {
    let root = tree.root?;
    let segment = clip_to_lattice(lattice, origin, direction, range.0, range.1)?;
    let node_range = |index: u32, best: f64| {
        let (lo, hi) = crate::bricks::bounds(&tree.nodes, index);
        let (blo, bhi) = bvh.lattice_box(lo, hi);
        slab(origin, direction, blo, bhi, segment.0, segment.1.min(best))
    };
    let mut best: Option<IsoHit> = None;
    let mut stack: Vec<(u32, f64)> = Vec::with_capacity(64);
    if let Some((t0, _)) = node_range(root, f64::INFINITY) {
        stack.push((root, t0));
    }
    while let Some((index, entry)) = stack.pop() {
        if best.is_some_and(|b| entry > b.t) {
            continue;
        }
        match &tree.nodes[index as usize] {
            CondensedNode::Leaf { brick } => {
                let cells = bvh.cell_range(*brick, brick.map(|v| v + 1));
                if let Some(hit) = march(lattice, cells, origin, direction, segment, entry, isovalue as f64)
                    && best.is_none_or(|b| hit.t < b.t)
                {
                    best = Some(hit);
                }
            }
            CondensedNode::Inner { children: [left, right], .. } => {
                let limit = best.map_or(f64::INFINITY, |b| b.t);
                let entry = |c: u32| node_range(c, limit).map(|(t0, _)| (c, t0));
                // The far child pushed first, so the near one is popped first; on a tie the
                // right one is popped first (kernels/isosurface/caster.cuh does the same).
                match (entry(*left), entry(*right)) {
                    (Some(l), Some(r)) if l.1 < r.1 => stack.extend([r, l]),
                    (Some(l), Some(r)) => stack.extend([l, r]),
                    (Some(only), None) | (None, Some(only)) => stack.push(only),
                    (None, None) => {}
                }
            }
        }
    }
    best
}
