//! Unit tests of the collapse and the compression on their intermediate forms.

use super::collapse::{self, CKind};
use super::compress;
use super::*;
use crate::{BuildKind, BuildOptions};
use warpath_core::math::Ray;

fn soup(seed: u64, count: usize) -> Vec<[Vec3; 3]> {
    // A small xorshift generator: the unit tests need no dev-dependency.
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    };
    (0..count)
        .map(|_| {
            let a = Vec3::new(next(), next(), next()) * 4.0;
            let size = if next() > 0.0 { 0.05 } else { 0.6 };
            [a, a + Vec3::new(next(), next(), next()) * size, a + Vec3::new(next(), next(), next()) * size]
        })
        .collect()
}

fn trees(tris: &[[Vec3; 3]]) -> Vec<(String, Bvh)> {
    let mut out = Vec::new();
    for kind in [BuildKind::Sah, BuildKind::Sbvh] {
        for leaf in [1, 4, 16] {
            let (bvh, _) = Bvh::build(tris, &BuildOptions { kind, max_leaf_size: leaf, ..Default::default() });
            out.push((format!("{kind} leaf {leaf}"), bvh));
        }
    }
    out
}

#[test]
fn dynamic_programme_cost_is_the_collapsed_trees_cost_and_beats_greedy() {
    for seed in 0..6 {
        let tris = soup(seed, 50 + 300 * seed as usize);
        for (label, bvh) in trees(&tris) {
            let optimal = collapse::collapse(&bvh, &tris, Collapse::Optimal, 1.0, 0.3);
            let greedy = collapse::collapse(&bvh, &tris, Collapse::Greedy, 1.0, 0.3);
            let dp = optimal.optimal_cost.unwrap();
            let recomputed = collapsed_sah_cost(&optimal, 1.0, 0.3);
            assert!((dp - recomputed).abs() <= 1e-6 * dp.abs().max(1.0), "{label}: dp {dp} vs tree {recomputed}");
            let greedy_cost = collapsed_sah_cost(&greedy, 1.0, 0.3);
            assert!(dp <= greedy_cost * (1.0 + 1e-6), "{label}: optimal {dp} above greedy {greedy_cost}");
            for c in [&optimal, &greedy] {
                for node in &c.nodes {
                    assert!((1..=WIDTH).contains(&node.children.len()), "{label}");
                    for child in &node.children {
                        if let CKind::Leaf { count, .. } = child.kind {
                            assert!((1..=MAX_LEAF_TRIS as u32).contains(&count), "{label}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn quantized_boxes_contain_exact_boxes() {
    for seed in 10..14 {
        let mut tris = soup(seed, 400);
        // Far from the origin and tiny: planes that absorb small steps, and flat axes.
        tris.extend(soup(seed + 100, 50).iter().map(|t| t.map(|v| v * 1e-3 + Vec3::new(1000.0, -3e4, 0.5))));
        tris.push([Vec3::new(5.0, 1.0, 1.0), Vec3::new(5.0, 2.0, 1.0), Vec3::new(5.0, 1.0, 2.0)]);
        for (label, bvh) in trees(&tris) {
            for kind in [Collapse::Optimal, Collapse::Greedy] {
                let collapsed = collapse::collapse(&bvh, &tris, kind, 1.0, 0.3);
                let compressed = compress::compress(&collapsed);
                assert_eq!(compressed.nodes.len(), collapsed.nodes.len());
                for (node, boxes) in compressed.nodes.iter().zip(&compressed.exact_boxes) {
                    for (slot, exact_box) in boxes.iter().enumerate() {
                        match *exact_box {
                            None => assert_eq!(node.meta[slot], 0),
                            Some(exact) => {
                                let q = node.child_bounds(slot);
                                assert!(
                                    q.min.cmple(exact.min).all() && q.max.cmpge(exact.max).all(),
                                    "{label} {kind}: slot {slot}: {q:?} does not contain {exact:?}"
                                );
                                // Tight: one quantum (or one ulp of absorption) each side at most.
                                for axis in 0..3 {
                                    let step = node.scale(axis);
                                    let slack = step + (node.origin[axis].abs() + exact.max[axis].abs()) * 1e-6;
                                    assert!(exact.min[axis] - q.min[axis] <= slack, "{label}: loose lo");
                                    assert!(q.max[axis] - exact.max[axis] <= slack, "{label}: loose hi");
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn slot_assignment_puts_children_in_their_octants() {
    let center = Vec3::ZERO;
    let centers: Vec<Vec3> = (0..8)
        .map(|s| {
            let d = Vec3::new(
                if s & 1 != 0 { 1.0 } else { -1.0 },
                if s & 2 != 0 { 1.0 } else { -1.0 },
                if s & 4 != 0 { 1.0 } else { -1.0 },
            );
            d * (1.0 + s as f32 * 0.1)
        })
        .collect();
    // Children given in a scrambled order land in the slot of their octant.
    let order = [5usize, 2, 7, 0, 3, 6, 1, 4];
    let scrambled: Vec<Vec3> = order.iter().map(|&i| centers[i]).collect();
    let slots = compress::assign_slots(center, &scrambled);
    for (c, &i) in order.iter().enumerate() {
        assert_eq!(slots[c], i);
    }
    // Two children along x: the one at -x gets a slot with bit 0 clear.
    let slots = compress::assign_slots(center, &[Vec3::new(1.0, 0.0, 0.0), Vec3::new(-1.0, 0.0, 0.0)]);
    assert_eq!(slots[0] & 1, 1);
    assert_eq!(slots[1] & 1, 0);
}

#[test]
fn dynamic_programme_beats_random_collapses() {
    // Random valid collapses of the same virtual tree (random nodes opened, random subtrees of at
    // most 3 references made leaves) never cost less than the dynamic programme's optimum.
    for seed in 0..4u64 {
        let tris = soup(seed + 40, 120);
        for (label, bvh) in trees(&tris) {
            let optimal = collapse::collapse(&bvh, &tris, Collapse::Optimal, 1.0, 0.3);
            let dp = optimal.optimal_cost.unwrap();
            for trial in 0..20u64 {
                let vtree = collapse::virtual_tree(&bvh, &tris, 1);
                let state = std::cell::Cell::new((seed * 1000 + trial).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
                let random = |n: u64| {
                    let mut x = state.get();
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    state.set(x);
                    (x >> 33) % n
                };
                let nodes = collapse::assemble(&vtree, |vtree, n| {
                    let v = &vtree.nodes[n];
                    let mut kids = vec![v.left as usize, v.left as usize + 1];
                    for _ in 0..random(8) {
                        let open: Vec<usize> = (0..kids.len()).filter(|&i| !vtree.nodes[kids[i]].leaf).collect();
                        if kids.len() >= WIDTH || open.is_empty() {
                            break;
                        }
                        let i = open[random(open.len() as u64) as usize];
                        let k = kids.remove(i);
                        kids.push(vtree.nodes[k].left as usize);
                        kids.push(vtree.nodes[k].left as usize + 1);
                    }
                    kids.into_iter()
                        .map(|k| {
                            let node = &vtree.nodes[k];
                            (k, node.leaf || (node.ref_count as usize <= MAX_LEAF_TRIS && random(2) == 0))
                        })
                        .collect()
                });
                let random_tree = collapse::Collapsed { vtree, nodes, optimal_cost: None };
                let cost = collapsed_sah_cost(&random_tree, 1.0, 0.3);
                assert!(dp <= cost * (1.0 + 1e-6), "{label}: optimal {dp} above a random collapse's {cost}");
            }
        }
    }
}

#[test]
fn octant_order_saves_work() {
    // Closest-hit rays at a closed sphere: visiting near children first finds the front hit early
    // and culls the back; the reversed order visits more nodes and tests more triangles.
    let (rings, segments) = (60, 90);
    let mut tris = Vec::new();
    let point = |ring: usize, segment: usize| {
        let theta = std::f32::consts::PI * ring as f32 / rings as f32;
        let phi = 2.0 * std::f32::consts::PI * segment as f32 / segments as f32;
        Vec3::new(theta.sin() * phi.cos(), theta.cos(), theta.sin() * phi.sin())
    };
    for ring in 0..rings {
        for segment in 0..segments {
            let (a, b) = (point(ring, segment), point(ring, segment + 1));
            let (c, d) = (point(ring + 1, segment), point(ring + 1, segment + 1));
            tris.push([a, c, d]);
            tris.push([a, d, b]);
        }
    }
    let (bvh, _) = Bvh::build(&tris, &BuildOptions::default());
    for collapse in [Collapse::Optimal, Collapse::Greedy] {
        let (wide, _) = WideBvh::from_binary(&bvh, &tris, collapse);
        let (mut forward, mut reversed) = (TraversalCounts::default(), TraversalCounts::default());
        for i in 0..40 {
            for j in 0..40 {
                // Rays from eight directions around the sphere, every octant.
                let eye = Vec3::new(
                    if i % 2 == 0 { 3.0 } else { -3.0 },
                    if j % 2 == 0 { 2.5 } else { -2.5 },
                    if (i / 2 + j) % 2 == 0 { 2.0 } else { -2.0 },
                );
                let target = Vec3::new(i as f32 / 40.0 - 0.5, j as f32 / 40.0 - 0.5, 0.1);
                let ray = Ray::new(eye, target - eye);
                let (mut a, mut b) = (TraversalCounts::default(), TraversalCounts::default());
                let hit = wide.closest::<false>(&tris, &ray, &mut a);
                assert_eq!(hit, wide.closest::<true>(&tris, &ray, &mut b));
                assert_eq!(hit, crate::brute_force_intersect(&tris, &ray));
                assert_eq!((hit, a), wide.intersect_counted(&tris, &ray));
                forward.nodes += a.nodes;
                forward.triangles += a.triangles;
                reversed.nodes += b.nodes;
                reversed.triangles += b.triangles;
            }
        }
        println!("{collapse}: octant order {forward:?}, reversed {reversed:?}");
        assert!(forward.nodes * 10 < reversed.nodes * 8, "{collapse}: {forward:?} vs reversed {reversed:?}");
        assert!(forward.triangles * 10 < reversed.triangles * 8, "{collapse}: {forward:?} vs reversed {reversed:?}");
    }
}

#[test]
fn node_bytes_are_laid_out_as_documented() {
    let node = WideNode {
        origin: [1.0, 2.0, 3.0],
        exponents: [-1, 2, -3],
        imask: 0b1010_0101,
        child_base: 0x0403_0201,
        tri_base: 0x0807_0605,
        meta: [10, 11, 12, 13, 14, 15, 16, 17],
        q_lo: [[20, 21, 22, 23, 24, 25, 26, 27], [30, 31, 32, 33, 34, 35, 36, 37], [40, 41, 42, 43, 44, 45, 46, 47]],
        q_hi: [[50, 51, 52, 53, 54, 55, 56, 57], [60, 61, 62, 63, 64, 65, 66, 67], [70, 71, 72, 73, 74, 75, 76, 77]],
    };
    let bytes = bytemuck::bytes_of(&node);
    assert_eq!(bytes.len(), 80);
    assert_eq!(&bytes[0..4], &1.0f32.to_le_bytes());
    assert_eq!(&bytes[8..12], &3.0f32.to_le_bytes());
    assert_eq!(&bytes[12..16], &[0xff, 2, 0xfd, 0b1010_0101]);
    assert_eq!(&bytes[16..24], &[1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(&bytes[24..32], &[10, 11, 12, 13, 14, 15, 16, 17]);
    for (axis, offset) in [(0, 32), (1, 40), (2, 48)] {
        assert_eq!(bytes[offset], node.q_lo[axis][0]);
        assert_eq!(bytes[offset + 56 - 32], node.q_hi[axis][0]);
    }
    assert_eq!(bytes[79], 77);
    // The scale's bits are (e + 127) << 23.
    assert_eq!(node.scale(0), 0.5);
    assert_eq!(node.scale(1), 4.0);
    assert_eq!(node.scale(2), 0.125);
}
