//! Collapsing the binary [`Bvh`] into an 8-wide tree (before compression).
//!
//! First the binary tree is copied into a *virtual* binary tree whose leaves hold at most
//! `split_to` references: a binary leaf with more is split at the median centroid of its widest
//! centroid axis until it fits (the optimal collapse splits down to one reference a leaf, as the
//! paper builds its binary tree; the greedy one keeps leaves of up to three). Each reference's box
//! is its triangle's box clipped to the binary leaf's box (a no-op for the SAH builder; for SBVH
//! it keeps the spatial split). The virtual tree is flat with children after their parent, and
//! every subtree's references are one contiguous range, so a subtree of at most three references
//! can become one wide leaf.
//!
//! Then either collapse picks, for every wide node, up to eight children:
//! - [`Collapse::Optimal`]: Ylitie, Karras and Laine's dynamic programme. For a virtual node `n`
//!   and `i` in `1..=8`, `C(n, i)` is the least SAH cost of representing `n`'s subtree as at most
//!   `i` child slots of a wide node:
//!   `C(n, 1) = min(C_leaf(n), C_internal(n))`, `C(n, i) = min(C_distribute(n, i), C(n, i - 1))`,
//!   `C_distribute(n, j) = min_{k in 1..j} C(left, k) + C(right, j - k)`,
//!   `C_internal(n) = C_distribute(n, 8) + A(n) * c_node`, and
//!   `C_leaf(n) = A(n) * p(n) * c_prim` when `p(n) <= 3` (else infinite), `A` the surface area and
//!   `p` the references. A virtual leaf costs `C_leaf` for every `i`. The root is always internal.
//! - [`Collapse::Greedy`]: a node starts with its two children and repeatedly replaces the interior
//!   child of largest surface area by its two children while it has fewer than eight; afterwards an
//!   interior child with at most three references becomes a leaf, any other a wide node.

use super::{Collapse, MAX_LEAF_TRIS, WIDTH};
use crate::Bvh;
use crate::build_common::{area, triangle_bounds, union};
use glam::Vec3;
use warpath_core::math::Aabb;

/// A reference of the virtual tree: a triangle index and the box of (its part in) the leaf.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ref {
    pub prim: u32,
    pub bounds: Aabb,
}

/// A node of the virtual binary tree: children `left` and `left + 1` when interior; its subtree's
/// references are `refs[ref_first .. ref_first + ref_count]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct VNode {
    pub bounds: Aabb,
    pub left: u32,
    pub leaf: bool,
    pub ref_first: u32,
    pub ref_count: u32,
}

pub(crate) struct VTree {
    pub nodes: Vec<VNode>,
    pub refs: Vec<Ref>,
}

/// One child slot of a collapsed wide node.
#[derive(Clone, Copy, Debug)]
pub(crate) enum CKind {
    /// Another wide node (index into `Collapsed::nodes`).
    Node(u32),
    /// A leaf over `VTree::refs[first .. first + count]`, `1 <= count <= 3`.
    Leaf { first: u32, count: u32 },
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct CChild {
    pub bounds: Aabb,
    pub kind: CKind,
}

/// A wide node before compression: its exact box and 1 to 8 children.
#[derive(Clone, Debug)]
pub(crate) struct CNode {
    pub bounds: Aabb,
    pub children: Vec<CChild>,
}

/// The collapsed tree (`nodes[0]` the root), and the dynamic programme's root cost (normalized by
/// the root's area) for the optimal collapse.
pub(crate) struct Collapsed {
    pub vtree: VTree,
    pub nodes: Vec<CNode>,
    #[cfg_attr(not(test), allow(dead_code))] // checked by the unit tests
    pub optimal_cost: Option<f64>,
}

fn clip(a: Aabb, b: Aabb) -> Aabb {
    let c = Aabb { min: a.min.max(b.min), max: a.max.min(b.max) };
    if c.min.x > c.max.x || c.min.y > c.max.y || c.min.z > c.max.z { b } else { c }
}

fn refs_bounds(refs: &[Ref]) -> Aabb {
    refs.iter().fold(Aabb::EMPTY, |b, r| union(b, r.bounds))
}

enum Task {
    Binary(u32),
    Refs(Vec<Ref>, Aabb),
}

/// Copies a non-empty `bvh` into the virtual tree (see the module docs).
pub(crate) fn virtual_tree(bvh: &Bvh, tris: &[[Vec3; 3]], split_to: usize) -> VTree {
    let placeholder = VNode { bounds: Aabb::EMPTY, left: 0, leaf: true, ref_first: 0, ref_count: 0 };
    let mut nodes = vec![placeholder];
    let mut refs: Vec<Ref> = Vec::with_capacity(bvh.prim_indices.len());
    let mut stack = vec![(Task::Binary(0), 0usize)];
    while let Some((task, slot)) = stack.pop() {
        match task {
            Task::Binary(index) => {
                let node = bvh.nodes[index as usize];
                if node.is_leaf() {
                    let first = node.left_or_first as usize;
                    let leaf_refs = bvh.prim_indices[first..first + node.count as usize]
                        .iter()
                        .map(|&prim| Ref { prim, bounds: clip(triangle_bounds(&tris[prim as usize]), node.bounds()) })
                        .collect();
                    stack.push((Task::Refs(leaf_refs, node.bounds()), slot));
                } else {
                    let base = nodes.len();
                    nodes.push(placeholder);
                    nodes.push(placeholder);
                    nodes[slot] = VNode { bounds: node.bounds(), left: base as u32, leaf: false, ..placeholder };
                    // Left first: references are appended in left-to-right order.
                    stack.push((Task::Binary(node.left_or_first + 1), base + 1));
                    stack.push((Task::Binary(node.left_or_first), base));
                }
            }
            Task::Refs(mut leaf_refs, bounds) => {
                if leaf_refs.len() <= split_to {
                    nodes[slot] = VNode {
                        bounds,
                        left: 0,
                        leaf: true,
                        ref_first: refs.len() as u32,
                        ref_count: leaf_refs.len() as u32,
                    };
                    refs.extend_from_slice(&leaf_refs);
                } else {
                    let centroids =
                        leaf_refs.iter().fold(Aabb::EMPTY, |b, r| b.grow(0.5 * (r.bounds.min + r.bounds.max)));
                    let extent = centroids.max - centroids.min;
                    let axis = if extent.x >= extent.y && extent.x >= extent.z {
                        0
                    } else if extent.y >= extent.z {
                        1
                    } else {
                        2
                    };
                    let mid = leaf_refs.len() / 2;
                    let key = |r: &Ref| r.bounds.min[axis] + r.bounds.max[axis];
                    leaf_refs.select_nth_unstable_by(mid, |a, b| key(a).total_cmp(&key(b)));
                    let right = leaf_refs.split_off(mid);
                    let base = nodes.len();
                    nodes.push(placeholder);
                    nodes.push(placeholder);
                    nodes[slot] = VNode { bounds, left: base as u32, leaf: false, ..placeholder };
                    let (lb, rb) = (refs_bounds(&leaf_refs), refs_bounds(&right));
                    stack.push((Task::Refs(right, rb), base + 1));
                    stack.push((Task::Refs(leaf_refs, lb), base));
                }
            }
        }
    }
    // Interior reference ranges, children first (children have larger indices).
    for n in (0..nodes.len()).rev() {
        if !nodes[n].leaf {
            let (l, r) = (nodes[n].left as usize, nodes[n].left as usize + 1);
            debug_assert_eq!(nodes[l].ref_first + nodes[l].ref_count, nodes[r].ref_first);
            nodes[n].ref_first = nodes[l].ref_first;
            nodes[n].ref_count = nodes[l].ref_count + nodes[r].ref_count;
        }
    }
    VTree { nodes, refs }
}

/// Collapses a non-empty `bvh` over `tris`.
pub(crate) fn collapse(bvh: &Bvh, tris: &[[Vec3; 3]], kind: Collapse, c_node: f32, c_prim: f32) -> Collapsed {
    match kind {
        Collapse::Optimal => optimal(virtual_tree(bvh, tris, 1), c_node as f64, c_prim as f64),
        Collapse::Greedy => greedy(virtual_tree(bvh, tris, MAX_LEAF_TRIS)),
    }
}

/// Child slot for virtual node `n` as a leaf or as a (future) wide node.
fn leaf_child(vtree: &VTree, n: usize) -> CChild {
    let v = &vtree.nodes[n];
    CChild { bounds: v.bounds, kind: CKind::Leaf { first: v.ref_first, count: v.ref_count } }
}

/// Builds the collapsed nodes top-down: `children_of(n)` gives the virtual nodes that become the
/// children of the wide node made from virtual node `n`, each with whether it is a leaf.
pub(crate) fn assemble(vtree: &VTree, children_of: impl Fn(&VTree, usize) -> Vec<(usize, bool)>) -> Vec<CNode> {
    let mut nodes = vec![CNode { bounds: vtree.nodes[0].bounds, children: Vec::new() }];
    let root_children = if vtree.nodes[0].leaf { vec![(0, true)] } else { children_of(vtree, 0) };
    let mut work = vec![(0usize, root_children)];
    while let Some((wide, kids)) = work.pop() {
        let mut children = Vec::with_capacity(kids.len());
        for (v, is_leaf) in kids {
            if is_leaf {
                children.push(leaf_child(vtree, v));
            } else {
                let index = nodes.len();
                nodes.push(CNode { bounds: vtree.nodes[v].bounds, children: Vec::new() });
                children.push(CChild { bounds: vtree.nodes[v].bounds, kind: CKind::Node(index as u32) });
                work.push((index, children_of(vtree, v)));
            }
        }
        debug_assert!((1..=WIDTH).contains(&children.len()));
        nodes[wide].children = children;
    }
    nodes
}

/// Decision of `C(n, i)`: for `i = 1` leaf or internal; for `i >= 2` the previous `i` or a split
/// giving `k` slots to the left child.
const LEAF: u8 = 0;
const INTERNAL: u8 = 1;
const FALLTHROUGH: u8 = 0;

fn optimal(vtree: VTree, c_node: f64, c_prim: f64) -> Collapsed {
    let n_nodes = vtree.nodes.len();
    let mut cost = vec![[0.0f64; WIDTH]; n_nodes];
    let mut decision = vec![[0u8; WIDTH]; n_nodes];
    // `k` of `C_distribute(n, 8)`: the split of an internal node's eight slots.
    let mut internal_k = vec![0u8; n_nodes];
    for n in (0..n_nodes).rev() {
        let v = vtree.nodes[n];
        let a = area(&v.bounds) as f64;
        let leaf_cost =
            if v.ref_count as usize <= MAX_LEAF_TRIS { a * v.ref_count as f64 * c_prim } else { f64::INFINITY };
        if v.leaf {
            cost[n] = [leaf_cost; WIDTH];
            decision[n] = [LEAF; WIDTH];
            continue;
        }
        let (l, r) = (v.left as usize, v.left as usize + 1);
        let mut dist = [f64::INFINITY; WIDTH + 1];
        let mut dist_k = [0u8; WIDTH + 1];
        for j in 2..=WIDTH {
            for k in 1..j {
                let c = cost[l][k - 1] + cost[r][j - k - 1];
                if c < dist[j] {
                    dist[j] = c;
                    dist_k[j] = k as u8;
                }
            }
        }
        let internal_cost = dist[WIDTH] + a * c_node;
        internal_k[n] = dist_k[WIDTH];
        if leaf_cost <= internal_cost {
            cost[n][0] = leaf_cost;
            decision[n][0] = LEAF;
        } else {
            cost[n][0] = internal_cost;
            decision[n][0] = INTERNAL;
        }
        for i in 2..=WIDTH {
            if dist[i] < cost[n][i - 2] {
                cost[n][i - 1] = dist[i];
                decision[n][i - 1] = dist_k[i];
            } else {
                cost[n][i - 1] = cost[n][i - 2];
                decision[n][i - 1] = FALLTHROUGH;
            }
        }
    }
    let root = vtree.nodes[0];
    let root_area = area(&root.bounds) as f64;
    let root_cost = if root.leaf {
        root_area * c_node + root_area * root.ref_count as f64 * c_prim
    } else {
        let k = internal_k[0] as usize;
        cost[root.left as usize][k - 1] + cost[root.left as usize + 1][WIDTH - k - 1] + root_area * c_node
    };
    let optimal_cost = Some(if root_area > 0.0 { root_cost / root_area } else { f64::NAN });

    // The slots of virtual node `n` given `i` slots, left to right.
    let gather = |vtree: &VTree, n: usize, i: usize, out: &mut Vec<(usize, bool)>| {
        let mut stack = vec![(n, i)];
        while let Some((n, i)) = stack.pop() {
            let v = &vtree.nodes[n];
            if v.leaf {
                out.push((n, true));
            } else if i == 1 {
                out.push((n, decision[n][0] == LEAF));
            } else if decision[n][i - 1] == FALLTHROUGH {
                stack.push((n, i - 1));
            } else {
                let k = decision[n][i - 1] as usize;
                stack.push((v.left as usize + 1, i - k));
                stack.push((v.left as usize, k));
            }
        }
    };
    let nodes = assemble(&vtree, |vtree, n| {
        let v = &vtree.nodes[n];
        let k = internal_k[n] as usize;
        let mut out = Vec::with_capacity(WIDTH);
        gather(vtree, v.left as usize, k, &mut out);
        gather(vtree, v.left as usize + 1, WIDTH - k, &mut out);
        out
    });
    Collapsed { vtree, nodes, optimal_cost }
}

fn greedy(vtree: VTree) -> Collapsed {
    let children_of = |vtree: &VTree, n: usize| {
        let v = &vtree.nodes[n];
        let mut kids = vec![v.left as usize, v.left as usize + 1];
        while kids.len() < WIDTH {
            let widest = kids
                .iter()
                .enumerate()
                .filter(|&(_, &k)| !vtree.nodes[k].leaf)
                .max_by(|a, b| area(&vtree.nodes[*a.1].bounds).total_cmp(&area(&vtree.nodes[*b.1].bounds)))
                .map(|(i, _)| i);
            let Some(i) = widest else { break };
            let k = kids.remove(i);
            let left = vtree.nodes[k].left as usize;
            kids.insert(i, left + 1);
            kids.insert(i, left);
        }
        kids.into_iter().map(|k| (k, vtree.nodes[k].ref_count as usize <= MAX_LEAF_TRIS)).collect()
    };
    let nodes = assemble(&vtree, children_of);
    Collapsed { vtree, nodes, optimal_cost: None }
}
