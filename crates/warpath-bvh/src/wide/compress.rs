//! Compression of a collapsed tree into [`WideNode`]s: octant slot assignment, quantized child
//! boxes, and the node / triangle array layout.

use super::collapse::{CKind, Collapsed};
use super::{WIDTH, WideNode};
use glam::Vec3;
use rayon::prelude::*;
use warpath_core::math::Aabb;

/// The smallest and largest exponent a node stores: `2^e` is a normal `f32` (its bits are
/// `(e + 127) << 23`) and `q * 2^e` is exact for every 8-bit `q`.
pub(crate) const MIN_EXPONENT: i32 = -126;
pub(crate) const MAX_EXPONENT: i32 = 127;

/// `2^e` as the traversal computes it: the float with bits `(e + 127) << 23`.
#[inline(always)]
pub(crate) fn scale_of(e: i8) -> f32 {
    f32::from_bits(((e as i32 + 127) as u32) << 23)
}

/// A quantized plane decoded exactly as the traversal does: `p + q * 2^e` (the product is exact,
/// so a fused multiply-add gives the same float).
#[inline(always)]
pub(crate) fn decode(p: f32, q: u8, scale: f32) -> f32 {
    p + q as f32 * scale
}

/// The per-axis exponent for a node spanning `[lo, hi]`: the least `e` with `255 * 2^e >= hi - lo`
/// (in exact arithmetic), clamped to the normal range.
fn exponent(lo: f32, hi: f32) -> i8 {
    let extent = hi as f64 - lo as f64;
    if extent.is_nan() || extent <= 0.0 {
        return MIN_EXPONENT as i8;
    }
    let mut e = (extent / 255.0).log2().ceil() as i32;
    e = e.clamp(MIN_EXPONENT, MAX_EXPONENT);
    while e > MIN_EXPONENT && 255.0 * 2f64.powi(e - 1) >= extent {
        e -= 1;
    }
    while e < MAX_EXPONENT && 255.0 * 2f64.powi(e) < extent {
        e += 1;
    }
    e as i8
}

/// The largest `q` whose decoded plane is `<= lo` (`q = 0` decodes to `p <= lo`).
fn quantize_lo(p: f32, scale: f32, lo: f32) -> u8 {
    // An estimate (`1 / scale` is exact), corrected by the exact decode below.
    let estimate = ((lo - p) * (1.0 / scale)).floor().clamp(0.0, 255.0) as i32;
    let mut q = estimate;
    while q > 0 && decode(p, q as u8, scale) > lo {
        q -= 1;
    }
    while q < 255 && decode(p, (q + 1) as u8, scale) <= lo {
        q += 1;
    }
    q as u8
}

/// The smallest `q` whose decoded plane is `>= hi`.
fn quantize_hi(p: f32, scale: f32, hi: f32) -> u8 {
    let estimate = ((hi - p) * (1.0 / scale)).ceil().clamp(0.0, 255.0) as i32;
    let mut q = estimate;
    while q < 255 && decode(p, q as u8, scale) < hi {
        q += 1;
    }
    while q > 0 && decode(p, (q - 1) as u8, scale) >= hi {
        q -= 1;
    }
    assert!(decode(p, q as u8, scale) >= hi, "quantization grid does not reach {hi} (p {p}, scale {scale})");
    q as u8
}

/// Direction of slot `s` from the node's centre: `+1` on axis `a` when bit `a` of `s` is set.
fn slot_direction(s: usize) -> Vec3 {
    Vec3::new(
        if s & 1 != 0 { 1.0 } else { -1.0 },
        if s & 2 != 0 { 1.0 } else { -1.0 },
        if s & 4 != 0 { 1.0 } else { -1.0 },
    )
}

/// The 8-bit masks grouped by popcount (0 to 8), ascending.
static MASKS_BY_POPCOUNT: std::sync::LazyLock<[Vec<u32>; WIDTH + 1]> = std::sync::LazyLock::new(|| {
    let mut groups: [Vec<u32>; WIDTH + 1] = Default::default();
    for mask in 0u32..(1 << WIDTH) {
        groups[mask.count_ones() as usize].push(mask);
    }
    groups
});

/// Assigns children (by their centres) to the 8 slots minimizing the summed cost
/// `-dot(child centre - node centre, slot direction)`: an exact assignment by dynamic programming
/// over the sets of used slots. Returns `slot_of[child]`.
pub(crate) fn assign_slots(node_center: Vec3, centers: &[Vec3]) -> [usize; WIDTH] {
    let k = centers.len();
    debug_assert!(k <= WIDTH);
    let mut cost = [[0.0f32; WIDTH]; WIDTH];
    for (c, &center) in centers.iter().enumerate() {
        let d = center - node_center;
        for (s, entry) in cost[c].iter_mut().enumerate() {
            *entry = -d.dot(slot_direction(s));
            if !entry.is_finite() {
                *entry = 0.0;
            }
        }
    }
    // best[mask] for masks of popcount c: least cost of giving children 0..c the slots in mask.
    let mut best = [f32::INFINITY; 1 << WIDTH];
    let mut last = [0u8; 1 << WIDTH];
    best[0] = 0.0;
    for c in 0..k {
        for &mask in &MASKS_BY_POPCOUNT[c] {
            let base = best[mask as usize];
            let mut free = !mask & 0xff;
            while free != 0 {
                let s = free.trailing_zeros() as usize;
                free &= free - 1;
                let next = mask as usize | (1 << s);
                let total = base + cost[c][s];
                if total < best[next] {
                    best[next] = total;
                    last[next] = s as u8;
                }
            }
        }
    }
    let full = MASKS_BY_POPCOUNT[k]
        .iter()
        .copied()
        .min_by(|&a, &b| best[a as usize].total_cmp(&best[b as usize]))
        .unwrap_or(0) as usize;
    let mut slot_of = [usize::MAX; WIDTH];
    let mut mask = full;
    for c in (0..k).rev() {
        let s = last[mask] as usize;
        slot_of[c] = s;
        mask &= !(1 << s);
    }
    slot_of
}

/// The compressed tree, and each node's children's exact boxes by slot (for the tests).
pub(crate) struct Compressed {
    pub nodes: Vec<WideNode>,
    pub prim_indices: Vec<u32>,
    #[cfg_attr(not(test), allow(dead_code))] // checked by the unit tests
    pub exact_boxes: Vec<[Option<Aabb>; WIDTH]>,
}

/// Lays out `collapsed`: node 0 is the root; a node's internal children are contiguous from
/// `child_base` in slot order, its leaves' triangles contiguous from `tri_base` in slot order,
/// children blocks allocated depth first. Slot assignment and quantization run in parallel.
pub(crate) fn compress(collapsed: &Collapsed) -> Compressed {
    // Per collapsed node: the child (index into its `children`) in each slot.
    let slots: Vec<[Option<u8>; WIDTH]> = collapsed
        .nodes
        .par_iter()
        .map(|cnode| {
            let bounds = cnode.children.iter().fold(Aabb::EMPTY, |b, ch| b.union(ch.bounds));
            let mut centers = [Vec3::ZERO; WIDTH];
            for (c, child) in cnode.children.iter().enumerate() {
                centers[c] = child.bounds.center();
            }
            let slot_of = assign_slots(bounds.center(), &centers[..cnode.children.len()]);
            let mut by_slot = [None; WIDTH];
            for c in 0..cnode.children.len() {
                by_slot[slot_of[c]] = Some(c as u8);
            }
            by_slot
        })
        .collect();

    // Layout (sequential): each output node's collapsed node, child base, triangle base, meta, imask.
    let mut nodes: Vec<WideNode> = vec![bytemuck::Zeroable::zeroed()];
    let mut source = vec![0u32];
    let mut prim_indices: Vec<u32> = Vec::with_capacity(collapsed.vtree.refs.len());
    let mut work = vec![(0usize, 0usize)];
    while let Some((c, out)) = work.pop() {
        let cnode = &collapsed.nodes[c];
        let mut node: WideNode = bytemuck::Zeroable::zeroed();
        node.child_base = nodes.len() as u32;
        node.tri_base = prim_indices.len() as u32;
        let mut internal = [0u32; WIDTH];
        let mut internal_count = 0;
        for (slot, child) in slots[c].iter().enumerate() {
            let Some(child) = child else { continue };
            match cnode.children[*child as usize].kind {
                CKind::Node(index) => {
                    node.imask |= 1 << slot;
                    node.meta[slot] = 0b001_00000 | (24 + slot as u8);
                    internal[internal_count] = index;
                    internal_count += 1;
                }
                CKind::Leaf { first, count } => {
                    let offset = prim_indices.len() as u32 - node.tri_base;
                    debug_assert!((1..=3).contains(&count) && offset + count <= 24);
                    node.meta[slot] = (((1u8 << count) - 1) << 5) | offset as u8;
                    prim_indices
                        .extend(collapsed.vtree.refs[first as usize..(first + count) as usize].iter().map(|r| r.prim));
                }
            }
        }
        nodes[out] = node;
        // Children get contiguous indices now; their subtrees are laid out after them.
        let base = nodes.len();
        for &index in &internal[..internal_count] {
            nodes.push(bytemuck::Zeroable::zeroed());
            source.push(index);
        }
        for (i, &index) in internal[..internal_count].iter().enumerate().rev() {
            work.push((index as usize, base + i));
        }
    }

    // Quantization (parallel).
    let exact_boxes: Vec<[Option<Aabb>; WIDTH]> = nodes
        .par_iter_mut()
        .zip(source.par_iter())
        .map(|(node, &c)| {
            let cnode = &collapsed.nodes[c as usize];
            let bounds = cnode.children.iter().fold(Aabb::EMPTY, |b, ch| b.union(ch.bounds));
            node.origin = bounds.min.to_array();
            let mut boxes = [None; WIDTH];
            for axis in 0..3 {
                node.exponents[axis] = exponent(bounds.min[axis], bounds.max[axis]);
            }
            for (slot, child) in slots[c as usize].iter().enumerate() {
                let Some(child) = child else { continue };
                let child_bounds = cnode.children[*child as usize].bounds;
                for axis in 0..3 {
                    let scale = scale_of(node.exponents[axis]);
                    let hi = quantize_hi(node.origin[axis], scale, child_bounds.max[axis]);
                    let lo = quantize_lo(node.origin[axis], scale, child_bounds.min[axis]).min(hi);
                    node.q_lo[axis][slot] = lo;
                    node.q_hi[axis][slot] = hi;
                }
                boxes[slot] = Some(child_bounds);
            }
            boxes
        })
        .collect();
    Compressed { nodes, prim_indices, exact_boxes }
}
