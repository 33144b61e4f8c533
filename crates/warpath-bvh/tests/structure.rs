//! Structural invariants of both builders' trees: every node reachable once, leaf ranges
//! tile `prim_indices`, interior boxes are exactly the union of their children, depth and
//! leaf size limits, SAH references each triangle exactly once, SBVH references every
//! triangle and stays under its reference cap, and (for both) every point of every triangle
//! lies in a leaf that references it. Also the SAH cost formula, stats, and determinism.

mod common;

use common::*;
use glam::Vec3;
use rand::RngExt;
use warpath_bvh::{BuildKind, BuildOptions, Bvh, BvhNode, MAX_DEPTH, MAX_LEAF_SIZE_HARD, SBVH_MAX_REFERENCE_FACTOR};
use warpath_core::math::Aabb;

fn contains(outer: &Aabb, inner: &Aabb) -> bool {
    outer.min.cmple(inner.min).all() && inner.max.cmple(outer.max).all()
}

fn contains_point(bounds: &Aabb, p: Vec3, tolerance: f32) -> bool {
    (p - bounds.min).min_element() >= -tolerance && (bounds.max - p).min_element() >= -tolerance
}

/// Checks every invariant; `label` names the case in failure messages.
fn check_structure(bvh: &Bvh, tris: &[Tri], options: &BuildOptions, label: &str) {
    let n = tris.len();
    let nodes = &bvh.nodes;
    assert!(!nodes.is_empty(), "{label}: no root");

    // Walk the tree: each node once, depth limit, boxes, leaf ranges.
    let mut visited = vec![false; nodes.len()];
    let mut ranges = Vec::new();
    let mut leaves_of_prim: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut stack = vec![(0usize, 0u32)];
    while let Some((index, depth)) = stack.pop() {
        assert!(!visited[index], "{label}: node {index} reached twice");
        visited[index] = true;
        assert!(depth <= MAX_DEPTH, "{label}: depth {depth} beyond the limit");
        let node: &BvhNode = &nodes[index];
        if node.is_leaf() {
            let (first, count) = (node.left_or_first as usize, node.count as usize);
            assert!(count <= options.max_leaf_size.max(MAX_LEAF_SIZE_HARD), "{label}: leaf of {count}");
            ranges.push((first, count));
            let prims = &bvh.prim_indices[first..first + count];
            let mut union = Aabb::EMPTY;
            let mut all_finite = true;
            for (i, &prim) in prims.iter().enumerate() {
                assert!(!prims[..i].contains(&prim), "{label}: leaf {index} references {prim} twice");
                leaves_of_prim[prim as usize].push(index);
                let tri = &tris[prim as usize];
                if tri.iter().all(|v| v.is_finite()) {
                    union = union.union(Aabb::from_points(tri));
                } else {
                    all_finite = false;
                }
            }
            assert!(node.min.is_finite() && node.max.is_finite(), "{label}: leaf {index} box not finite");
            match options.kind {
                // SAH leaves bound their triangles exactly (non-finite ones get some finite box).
                BuildKind::Sah if all_finite => assert_eq!(node.bounds(), union, "{label}: SAH leaf {index} box"),
                BuildKind::Sah => assert!(contains(&node.bounds(), &union), "{label}: SAH leaf {index} box"),
                // SBVH leaves bound clipped parts: inside the triangles' boxes.
                BuildKind::Sbvh if all_finite => {
                    assert!(contains(&union, &node.bounds()), "{label}: SBVH leaf {index} box")
                }
                BuildKind::Sbvh => {}
            }
        } else {
            let left = node.left_or_first as usize;
            assert!(left + 1 < nodes.len(), "{label}: children of {index} out of range");
            let children = nodes[left].bounds().union(nodes[left + 1].bounds());
            assert_eq!(node.bounds(), children, "{label}: node {index} is not the union of its children");
            stack.push((left, depth + 1));
            stack.push((left + 1, depth + 1));
        }
    }
    assert!(visited.iter().all(|&v| v), "{label}: unreachable nodes");
    let leaf_count = ranges.len();
    assert_eq!(nodes.len(), 2 * leaf_count - 1, "{label}: not a full binary tree");

    // Leaf ranges tile prim_indices exactly.
    ranges.sort();
    let mut next = 0;
    for (first, count) in ranges {
        assert_eq!(first, next, "{label}: leaf ranges overlap or leave gaps");
        next += count;
    }
    assert_eq!(next, bvh.prim_indices.len(), "{label}: leaf ranges do not cover prim_indices");

    // References.
    match options.kind {
        BuildKind::Sah => {
            let mut sorted = bvh.prim_indices.clone();
            sorted.sort();
            assert!(sorted.iter().copied().eq(0..n as u32), "{label}: SAH must reference each triangle once");
        }
        BuildKind::Sbvh => {
            assert!(leaves_of_prim.iter().all(|l| !l.is_empty()), "{label}: unreferenced triangle");
            let cap = (SBVH_MAX_REFERENCE_FACTOR * n as f32) as usize;
            assert!(bvh.prim_indices.len() <= cap.max(n), "{label}: {} references over cap", bvh.prim_indices.len());
        }
    }

    // Coverage: the vertices (exactly) and sample points (within round-off) of every finite
    // triangle lie in some leaf box that references the triangle.
    let mut rng = rng(n as u64);
    for (prim, tri) in tris.iter().enumerate() {
        if !tri.iter().all(|v| v.is_finite()) {
            continue;
        }
        let leaf_boxes: Vec<Aabb> = leaves_of_prim[prim].iter().map(|&i| nodes[i].bounds()).collect();
        for vertex in tri {
            assert!(
                leaf_boxes.iter().any(|b| contains_point(b, *vertex, 0.0)),
                "{label}: vertex {vertex} of {prim} outside its leaves"
            );
        }
        let scale = tri.iter().map(|v| v.abs().max_element()).fold(0.0f32, f32::max);
        for _ in 0..8 {
            let (x, y) = (rng.random_range(0.0..1.0f32), rng.random_range(0.0..1.0f32));
            let (x, y) = if x + y > 1.0 { (1.0 - x, 1.0 - y) } else { (x, y) };
            let p = tri[0] + (tri[1] - tri[0]) * x + (tri[2] - tri[0]) * y;
            assert!(
                leaf_boxes.iter().any(|b| contains_point(b, p, 1e-6 * scale)),
                "{label}: point {p} of triangle {prim} outside its leaves"
            );
        }
    }
}

fn meshes() -> Vec<(String, Vec<Tri>)> {
    let mut meshes = Vec::new();
    for seed in 0..6 {
        let mut r = rng(seed);
        meshes.push((format!("soup {seed}"), random_soup(&mut r, 50 + 60 * seed as usize)));
        meshes.push((format!("clustered {seed}"), clustered_mesh(&mut r, 300)));
        meshes.push((format!("thin {seed}"), thin_diagonal_triangles(&mut r, 400)));
    }
    meshes.push(("sphere".into(), uv_sphere(Vec3::new(0.5, -2.0, 1.0), 3.0, 40, 60)));
    meshes.push(("one triangle".into(), vec![[Vec3::ZERO, Vec3::X, Vec3::Y]]));
    meshes.push(("one point".into(), vec![[Vec3::ONE; 3]]));
    let nan = Vec3::new(f32::NAN, 0.0, 0.0);
    let inf = Vec3::new(f32::INFINITY, 1.0, 1.0);
    let mut with_non_finite = random_soup(&mut rng(99), 60);
    with_non_finite.extend([[nan, Vec3::X, Vec3::Y], [inf, Vec3::ZERO, Vec3::Z], [Vec3::ZERO, Vec3::X, nan]]);
    meshes.push(("non-finite".into(), with_non_finite));
    meshes
}

#[test]
fn trees_satisfy_structural_invariants() {
    for (name, tris) in meshes() {
        for kind in [BuildKind::Sah, BuildKind::Sbvh] {
            for max_leaf_size in [1, 4] {
                let options = BuildOptions { kind, max_leaf_size, ..Default::default() };
                let (bvh, stats) = Bvh::build(&tris, &options);
                let label = format!("{name} {kind} leaf {max_leaf_size}");
                check_structure(&bvh, &tris, &options, &label);
                assert_eq!(stats.node_count, bvh.nodes.len(), "{label}");
                assert_eq!(stats.references, bvh.prim_indices.len(), "{label}");
                assert_eq!(stats.leaf_count, bvh.nodes.iter().filter(|n| n.is_leaf()).count(), "{label}");
                assert_eq!(stats.max_depth, bvh.max_depth(), "{label}");
                assert_eq!(stats.triangles, tris.len());
                if name != "non-finite" {
                    assert_eq!(stats.sah_cost, bvh.sah_cost(1.0, 1.0), "{label}");
                    assert!(stats.sah_cost.is_finite() && stats.sah_cost > 0.0, "{label}: {stats}");
                }
            }
        }
    }
}

#[test]
fn sbvh_splits_references_on_thin_triangles() {
    let tris = thin_diagonal_triangles(&mut rng(3), 500);
    let (bvh, stats) = Bvh::build(&tris, &BuildOptions::sbvh());
    assert!(stats.references > tris.len(), "no spatial splits happened: {stats}");
    check_structure(&bvh, &tris, &BuildOptions::sbvh(), "thin");
}

#[test]
fn many_identical_centroids_terminate_within_limits() {
    // 5000 copies of one triangle plus 5000 of one point: no split can separate them.
    let mut tris = vec![[Vec3::ZERO, Vec3::X, Vec3::Y]; 5000];
    tris.extend(vec![[Vec3::splat(2.0); 3]; 5000]);
    for kind in [BuildKind::Sah, BuildKind::Sbvh] {
        let options = BuildOptions { kind, ..Default::default() };
        let (bvh, stats) = Bvh::build(&tris, &options);
        check_structure(&bvh, &tris, &options, &format!("identical {kind}"));
        assert!(stats.max_depth <= MAX_DEPTH);
    }
}

#[test]
fn deep_geometric_distribution_respects_depth_limit() {
    // Triangles at exponentially shrinking positions tempt SAH into a deep, list-like tree.
    let tris: Vec<Tri> = (0..3000)
        .map(|i| {
            let x = 0.97f32.powi(i);
            [Vec3::new(x, 0.0, 0.0), Vec3::new(x, x.max(1e-30), 0.0), Vec3::new(x, 0.0, x.max(1e-30))]
        })
        .collect();
    for kind in [BuildKind::Sah, BuildKind::Sbvh] {
        let options = BuildOptions { kind, max_leaf_size: 1, ..Default::default() };
        let (bvh, _) = Bvh::build(&tris, &options);
        check_structure(&bvh, &tris, &options, &format!("geometric {kind}"));
    }
}

#[test]
fn sah_cost_of_a_hand_made_tree() {
    // Root [0,2]^3 (area 24) over leaves [0,1]^3 with one triangle and [1,2]^3 with two
    // (area 6 each): cost = Ct * 1 + Ci * (6/24 * 1 + 6/24 * 2).
    let node = |min: f32, max: f32, left_or_first: u32, count: u32| BvhNode {
        min: Vec3::splat(min),
        left_or_first,
        max: Vec3::splat(max),
        count,
    };
    let bvh = Bvh {
        nodes: vec![node(0.0, 2.0, 1, 0), node(0.0, 1.0, 0, 1), node(1.0, 2.0, 1, 2)],
        prim_indices: vec![0, 1, 2],
    };
    assert_eq!(bvh.sah_cost(1.0, 2.0), 1.0 + 2.0 * (0.25 + 0.5));
    assert_eq!(bvh.sah_cost(3.0, 1.0), 3.0 + 0.75);
    assert_eq!(bvh.max_depth(), 1);
}

#[test]
fn parallel_builds_are_deterministic_and_printable() {
    let tris = uv_sphere(Vec3::ZERO, 1.0, 80, 120);
    for kind in [BuildKind::Sah, BuildKind::Sbvh] {
        let options = BuildOptions { kind, ..Default::default() };
        let (first, stats) = Bvh::build(&tris, &options);
        let (second, _) = Bvh::build(&tris, &options);
        assert_eq!(first.nodes, second.nodes, "{kind}: nodes differ between builds");
        assert_eq!(first.prim_indices, second.prim_indices, "{kind}: prim indices differ between builds");
        let text = stats.to_string();
        assert!(text.contains("Mtris/s") && text.contains(&kind.to_string()), "{text}");
    }
    let reports = warpath_bvh::build_benchmark(&tris, &[BuildKind::Sah, BuildKind::Sbvh]);
    let table = warpath_bvh::markdown_table(&reports);
    assert_eq!(table.lines().count(), 4, "{table}");
}
