//! Conversion of the canonical `warpath_bvh::Bvh` to the Aila–Laine GPU layout of seed 004
//! ("Data structures"), and its upload.
//!
//! * Nodes: one [`AilaLaineNode`] per inner node of the canonical tree, holding the boxes
//!   and indices of its two children; node 0 is the root. A child index `i >= 0` is another
//!   node, `!slot < 0` a leaf.
//! * Triangles: an array of float4 slots. Each leaf's triangles are stored consecutively
//!   from its slot, three float4 each ([`GpuTriangle`](crate::layout::GpuTriangle): `v0`, `v1 - v0`, `v2 - v0`, the
//!   Möller–Trumbore form the CPU reference uses), followed by one float4 whose `w` bits are
//!   [`END_OF_LEAF`]. SBVH references one triangle from several leaves; each leaf gets
//!   its own copy. Two spare float4 end the array so a kernel may fetch three float4
//!   before testing the marker.
//! * Triangle ids: one `i32` per float4 slot, the original triangle index at a triangle's
//!   first slot and -1 elsewhere (a parallel array, read once per ray to remap the hit,
//!   and on exact ties in `t`).
//!
//! Degenerate trees: a root that is a leaf becomes one node whose child 0 is that leaf
//! and whose child 1 is an empty box (`min = +inf, max = -inf`, which the slab test
//! never enters) over an empty leaf; the tree over no triangles becomes one node with
//! two empty children.
//!
//! [`GpuBvh::intersect`] and [`GpuBvh::occluded`] run the while-while kernel's algorithm on
//! the CPU over this layout: a device-free check of the conversion, bit-exact against
//! `Bvh::intersect`.

use crate::buffer::DeviceBuffer;
use crate::error::{CudaError, CudaResult};
use crate::layout::{AilaLaineNode, END_OF_LEAF};
use crate::runtime::CudaDevice;
use glam::Vec3;
use warpath_bvh::{Bvh, BvhNode, Hit};
use warpath_core::math::{Aabb, Ray};

/// Entries of the kernels' traversal stack (`WARPATH_STACK_SIZE` in traversal.cuh).
pub const STACK_SIZE: usize = 64;
/// The kernels' bottom-of-stack marker (`WARPATH_ENTRYPOINT_SENTINEL`); node indices stay below it.
pub const ENTRYPOINT_SENTINEL: i32 = 0x7654_3210;
/// Mirrors the kernels' `WARPATH_EXIT_WIDENING` (and the CPU traversal's constant).
const EXIT_WIDENING: f32 = 1.0 + 2.0 * (3.0 * f32::EPSILON * 0.5) / (1.0 - 3.0 * f32::EPSILON * 0.5);
/// Mirrors the kernels' `WARPATH_CULL_SLACK`.
const CULL_SLACK: f32 = 1e-5;

/// The Aila–Laine layout of one BVH, on the host.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GpuBvh {
    pub nodes: Vec<AilaLaineNode>,
    /// float4 slots: triangle records, end markers, two spare slots at the end.
    pub triangles: Vec<[f32; 4]>,
    /// Original triangle id per slot (-1 where no triangle starts).
    pub triangle_ids: Vec<i32>,
    /// Number of leaves (the empty leaf of a degenerate tree included).
    pub leaf_count: usize,
    /// Triangle records stored (SBVH duplicates counted).
    pub reference_count: usize,
    /// Most stack entries a traversal can need (sentinel included).
    pub max_stack_entries: usize,
}

/// Converts an [`Aabb`] to the `(lo.x, hi.x, lo.y, hi.y)` and `(lo.z, hi.z)` parts.
fn box_words(bounds: &Aabb) -> ([f32; 4], [f32; 2]) {
    ([bounds.min.x, bounds.max.x, bounds.min.y, bounds.max.y], [bounds.min.z, bounds.max.z])
}

fn make_node(child0: &Aabb, child1: &Aabb, index0: i32, index1: i32) -> AilaLaineNode {
    let (xy0, z0) = box_words(child0);
    let (xy1, z1) = box_words(child1);
    AilaLaineNode {
        child0_xy: xy0,
        child1_xy: xy1,
        children_z: [z0[0], z0[1], z1[0], z1[1]],
        child_index: [index0, index1],
        _pad: [0, 0],
    }
}

struct Builder<'a> {
    bvh: &'a Bvh,
    tris: &'a [[Vec3; 3]],
    out: GpuBvh,
}

impl<'a> Builder<'a> {
    /// Appends a leaf's triangles and end marker; returns the encoded child index `!slot`.
    fn emit_leaf(&mut self, prims: &[u32]) -> CudaResult<i32> {
        let slot = self.out.triangles.len();
        let needed = slot + 3 * prims.len() + 1 + 2;
        if needed > i32::MAX as usize {
            return Err(CudaError::InvalidBvh(format!(
                "the triangle array would need {needed} float4 slots, more than a 32-bit index addresses"
            )));
        }
        for &prim in prims {
            let tri = self.tris.get(prim as usize).ok_or_else(|| {
                CudaError::InvalidBvh(format!("a leaf references triangle {prim} of {}", self.tris.len()))
            })?;
            let (v0, edge1, edge2) = (tri[0], tri[1] - tri[0], tri[2] - tri[0]);
            self.out.triangles.push([v0.x, v0.y, v0.z, 0.0]);
            self.out.triangles.push([edge1.x, edge1.y, edge1.z, 0.0]);
            self.out.triangles.push([edge2.x, edge2.y, edge2.z, 0.0]);
            self.out.triangle_ids.extend_from_slice(&[prim as i32, -1, -1]);
        }
        self.out.triangles.push([0.0, 0.0, 0.0, f32::from_bits(END_OF_LEAF)]);
        self.out.triangle_ids.push(-1);
        self.out.leaf_count += 1;
        self.out.reference_count += prims.len();
        Ok(!(slot as i32))
    }

    fn leaf_prims(&self, node: &BvhNode) -> CudaResult<&'a [u32]> {
        let first = node.left_or_first as usize;
        let end = first + node.count as usize;
        let prim_indices: &'a [u32] = &self.bvh.prim_indices;
        prim_indices.get(first..end).ok_or_else(|| {
            CudaError::InvalidBvh(format!("a leaf covers prim_indices[{first}..{end}] of {}", prim_indices.len()))
        })
    }
}

impl GpuBvh {
    /// Converts `bvh`, built over `tris`, to the GPU layout.
    pub fn from_bvh(bvh: &Bvh, tris: &[[Vec3; 3]]) -> CudaResult<GpuBvh> {
        if tris.len() > i32::MAX as usize {
            return Err(CudaError::InvalidBvh(format!("{} triangles exceed the 32-bit triangle ids", tris.len())));
        }
        let mut builder = Builder { bvh, tris, out: GpuBvh::default() };
        let empty = Aabb::EMPTY;
        match bvh.nodes.first() {
            None => {
                let leaf = builder.emit_leaf(&[])?;
                builder.out.nodes.push(make_node(&empty, &empty, leaf, leaf));
                builder.out.max_stack_entries = 2;
            }
            Some(root) if root.is_leaf() => {
                let prims = builder.leaf_prims(root)?;
                let leaf = builder.emit_leaf(prims)?;
                let empty_leaf = builder.emit_leaf(&[])?;
                builder.out.nodes.push(make_node(&root.bounds(), &empty, leaf, empty_leaf));
                builder.out.max_stack_entries = 2;
            }
            Some(_) if bvh.is_empty() => {
                // The tree over no triangles: an inner-looking root with an empty box.
                let leaf = builder.emit_leaf(&[])?;
                builder.out.nodes.push(make_node(&empty, &empty, leaf, leaf));
                builder.out.max_stack_entries = 2;
            }
            Some(_) => builder.convert_inner_nodes()?,
        }
        let mut out = builder.out;
        out.triangles.extend_from_slice(&[[0.0; 4], [0.0; 4]]);
        out.triangle_ids.extend_from_slice(&[-1, -1]);
        Ok(out)
    }

    /// Bytes the layout takes in device memory.
    pub fn size_bytes(&self) -> usize {
        self.nodes.len() * std::mem::size_of::<AilaLaineNode>()
            + self.triangles.len() * 16
            + self.triangle_ids.len() * 4
    }

    /// Closest hit, by the while-while kernel's algorithm run on the CPU over this layout.
    pub fn intersect(&self, ray: &Ray) -> Option<Hit> {
        self.trace(ray, false)
    }

    /// Any hit (shadow ray), by the while-while kernel's algorithm on the CPU.
    pub fn occluded(&self, ray: &Ray) -> bool {
        self.trace(ray, true).is_some()
    }

    fn trace(&self, ray: &Ray, any_hit: bool) -> Option<Hit> {
        let prepared = EmulatedRay::new(ray);
        let mut best_t = ray.t_max;
        let mut best: Option<(f32, f32, usize)> = None; // (u, v, slot)
        let mut stack = [0i32; STACK_SIZE];
        let mut top = 0usize;
        stack[0] = ENTRYPOINT_SENTINEL;
        let mut node = 0i32;
        let id_of = |slot: usize| self.triangle_ids[slot] as u32;
        'trace: while node != ENTRYPOINT_SENTINEL {
            while (node as u32) < ENTRYPOINT_SENTINEL as u32 {
                let n = &self.nodes[node as usize];
                let limit = cull_distance(best_t);
                let z = n.children_z;
                let xy0 = n.child0_xy;
                let xy1 = n.child1_xy;
                let hit0 = prepared.enter([xy0[0], xy0[1], xy0[2], xy0[3], z[0], z[1]], limit);
                let hit1 = prepared.enter([xy1[0], xy1[1], xy1[2], xy1[3], z[2], z[3]], limit);
                let [c0, c1] = n.child_index;
                node = match (hit0, hit1) {
                    (None, None) => {
                        let popped = stack[top];
                        top = top.wrapping_sub(1);
                        popped
                    }
                    (Some(_), None) => c0,
                    (None, Some(_)) => c1,
                    (Some(t0), Some(t1)) => {
                        let (near, far) = if t1 < t0 { (c1, c0) } else { (c0, c1) };
                        top += 1;
                        stack[top] = far;
                        near
                    }
                };
            }
            while node < 0 {
                let mut slot = !node as usize;
                loop {
                    let v0 = self.triangles[slot];
                    if v0[3].to_bits() == END_OF_LEAF {
                        break;
                    }
                    let (e1, e2) = (self.triangles[slot + 1], self.triangles[slot + 2]);
                    if let Some((t, u, v)) = prepared.hit_triangle(v0, e1, e2) {
                        if any_hit {
                            best = Some((u, v, slot));
                            best_t = t;
                            break 'trace;
                        }
                        let closer = t < best_t
                            || (t == best_t && best.is_some_and(|(_, _, best_slot)| id_of(slot) < id_of(best_slot)));
                        if closer {
                            best_t = t;
                            best = Some((u, v, slot));
                        }
                    }
                    slot += 3;
                }
                node = stack[top];
                top = top.wrapping_sub(1);
            }
        }
        best.map(|(u, v, slot)| Hit { t: best_t, u, v, prim: id_of(slot) })
    }

    fn new_empty_inner_node(&mut self) -> usize {
        self.nodes.push(AilaLaineNode::default());
        self.nodes.len() - 1
    }
}

impl Builder<'_> {
    fn convert_inner_nodes(&mut self) -> CudaResult<()> {
        let node_count = self.bvh.nodes.len();
        // (canonical index, GPU index, inner depth from the root = 0)
        let mut pending = vec![(0usize, self.out.new_empty_inner_node(), 0usize)];
        let mut visited = 0usize;
        let mut deepest = 0usize;
        while let Some((canonical, gpu, depth)) = pending.pop() {
            visited += 1;
            if visited > node_count {
                return Err(CudaError::InvalidBvh("the node graph has a cycle (more visits than nodes)".into()));
            }
            deepest = deepest.max(depth);
            let left = self.bvh.nodes[canonical].left_or_first as usize;
            if left + 1 >= node_count {
                return Err(CudaError::InvalidBvh(format!(
                    "inner node {canonical} has children {left} and {} of {node_count} nodes",
                    left + 1
                )));
            }
            let mut indices = [0i32; 2];
            let mut boxes = [Aabb::EMPTY; 2];
            for (k, child) in [left, left + 1].into_iter().enumerate() {
                let child_node = self.bvh.nodes[child];
                boxes[k] = child_node.bounds();
                indices[k] = if child_node.is_leaf() {
                    let prims = self.leaf_prims(&child_node)?;
                    self.emit_leaf(prims)?
                } else {
                    let index = self.out.new_empty_inner_node();
                    if index >= ENTRYPOINT_SENTINEL as usize {
                        return Err(CudaError::InvalidBvh(format!("more than {ENTRYPOINT_SENTINEL} inner nodes")));
                    }
                    pending.push((child, index, depth + 1));
                    index as i32
                };
            }
            self.out.nodes[gpu] = make_node(&boxes[0], &boxes[1], indices[0], indices[1]);
        }
        // The sentinel plus one pushed sibling per inner node on the deepest path.
        let entries = deepest + 2;
        if entries > STACK_SIZE {
            return Err(CudaError::InvalidBvh(format!(
                "the tree is {} inner levels deep; the kernels' {STACK_SIZE}-entry stack allows {}",
                deepest + 1,
                STACK_SIZE - 1
            )));
        }
        self.out.max_stack_entries = entries;
        Ok(())
    }
}

fn cull_distance(t: f32) -> f32 {
    t + t.abs() * CULL_SLACK
}

/// The kernels' PreparedRay, on the CPU.
struct EmulatedRay {
    origin: Vec3,
    direction: Vec3,
    inv_direction: Vec3,
    t_min: f32,
    t_max: f32,
}

impl EmulatedRay {
    fn new(ray: &Ray) -> Self {
        EmulatedRay {
            origin: ray.o,
            direction: ray.d,
            inv_direction: Vec3::ONE / ray.d,
            t_min: ray.t_min,
            t_max: ray.t_max,
        }
    }

    /// `enter_box` of ray_triangle.cuh; `b = [lo.x, hi.x, lo.y, hi.y, lo.z, hi.z]`.
    fn enter(&self, b: [f32; 6], t_limit: f32) -> Option<f32> {
        let slab = |axis: usize| {
            let (lo, hi) = (b[2 * axis], b[2 * axis + 1]);
            let inv = self.inv_direction[axis];
            let (near_plane, far_plane) = if inv < 0.0 { (hi, lo) } else { (lo, hi) };
            ((near_plane - self.origin[axis]) * inv, (far_plane - self.origin[axis]) * inv)
        };
        let (near_x, far_x) = slab(0);
        let (near_y, far_y) = slab(1);
        let (near_z, far_z) = slab(2);
        let near = near_x.max(near_y).max(near_z).max(self.t_min);
        let far = (far_x.min(far_y).min(far_z) * EXIT_WIDENING).min(t_limit);
        (near <= far).then_some(near)
    }

    /// `intersect_triangle` of ray_triangle.cuh (Möller–Trumbore on v0 and the two edges).
    fn hit_triangle(&self, v0: [f32; 4], e1: [f32; 4], e2: [f32; 4]) -> Option<(f32, f32, f32)> {
        let (v0, e1, e2) =
            (Vec3::new(v0[0], v0[1], v0[2]), Vec3::new(e1[0], e1[1], e1[2]), Vec3::new(e2[0], e2[1], e2[2]));
        let pvec = self.direction.cross(e2);
        let det = e1.dot(pvec);
        if det == 0.0 || !det.is_finite() {
            return None;
        }
        let inv_det = 1.0 / det;
        let tvec = self.origin - v0;
        let u = tvec.dot(pvec) * inv_det;
        if !(0.0..=1.0).contains(&u) {
            return None;
        }
        let qvec = tvec.cross(e1);
        let v = self.direction.dot(qvec) * inv_det;
        if v < 0.0 || u + v > 1.0 {
            return None;
        }
        let t = e2.dot(qvec) * inv_det;
        (t > self.t_min && t < self.t_max).then_some((t, u, v))
    }
}

/// A [`GpuBvh`] in device memory, as the traversal kernels read it.
#[derive(Debug)]
pub struct DeviceBvh {
    pub(crate) nodes: DeviceBuffer<AilaLaineNode>,
    pub(crate) triangles: DeviceBuffer<[f32; 4]>,
    pub(crate) triangle_ids: DeviceBuffer<i32>,
    pub node_count: usize,
    pub leaf_count: usize,
    pub reference_count: usize,
}

impl DeviceBvh {
    /// Uploads `bvh`.
    pub fn upload(device: &CudaDevice, bvh: &GpuBvh) -> CudaResult<DeviceBvh> {
        if bvh.nodes.is_empty() || bvh.triangles.len() != bvh.triangle_ids.len() {
            return Err(CudaError::InvalidBvh(format!(
                "{} nodes, {} triangle slots and {} ids: not a converted GpuBvh",
                bvh.nodes.len(),
                bvh.triangles.len(),
                bvh.triangle_ids.len()
            )));
        }
        Ok(DeviceBvh {
            nodes: DeviceBuffer::from_slice(device, &bvh.nodes)?,
            triangles: DeviceBuffer::from_slice(device, &bvh.triangles)?,
            triangle_ids: DeviceBuffer::from_slice(device, &bvh.triangle_ids)?,
            node_count: bvh.nodes.len(),
            leaf_count: bvh.leaf_count,
            reference_count: bvh.reference_count,
        })
    }

    /// Converts `bvh` (built over `tris`) and uploads it.
    pub fn from_bvh(device: &CudaDevice, bvh: &Bvh, tris: &[[Vec3; 3]]) -> CudaResult<DeviceBvh> {
        Self::upload(device, &GpuBvh::from_bvh(bvh, tris)?)
    }

    /// The nodes (`const float4* nodes` of the traversal kernels).
    pub fn nodes(&self) -> &DeviceBuffer<AilaLaineNode> {
        &self.nodes
    }

    /// The triangle records (`const float4* triangles`).
    pub fn triangles(&self) -> &DeviceBuffer<[f32; 4]> {
        &self.triangles
    }

    /// The triangle id of each record slot (`const int* triangle_ids`).
    pub fn triangle_ids(&self) -> &DeviceBuffer<i32> {
        &self.triangle_ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpath_bvh::{BuildKind, BuildOptions, brute_force_intersect};

    /// A small deterministic generator (tests must not depend on a rand version).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> f32 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((self.0 >> 40) as f32) / (1u64 << 24) as f32
        }
        fn vec(&mut self, scale: f32) -> Vec3 {
            Vec3::new(self.next() - 0.5, self.next() - 0.5, self.next() - 0.5) * scale
        }
    }

    fn soup(count: usize, seed: u64) -> Vec<[Vec3; 3]> {
        let mut rng = Lcg(seed);
        (0..count)
            .map(|_| {
                let center = rng.vec(10.0);
                let size = 0.05 + rng.next() * 1.5;
                [center + rng.vec(size), center + rng.vec(size), center + rng.vec(size)]
            })
            .collect()
    }

    fn rays(count: usize, seed: u64) -> Vec<Ray> {
        let mut rng = Lcg(seed);
        (0..count)
            .map(|i| {
                let origin = rng.vec(16.0);
                let direction = rng.vec(2.0).normalize_or(Vec3::X);
                let t_max = if i % 3 == 0 { rng.next() * 12.0 } else { f32::INFINITY };
                Ray { o: origin, d: direction, t_min: 0.0, t_max }
            })
            .collect()
    }

    fn check_against_cpu(tris: &[[Vec3; 3]], kind: BuildKind) {
        let (bvh, _) = Bvh::build(tris, &BuildOptions { kind, ..Default::default() });
        let gpu = GpuBvh::from_bvh(&bvh, tris).expect("conversion");
        assert_eq!(gpu.triangles.len(), gpu.triangle_ids.len());
        assert_eq!(gpu.reference_count, bvh.prim_indices.len(), "every reference is stored once");
        let mut hits = 0;
        for ray in rays(4000, 7) {
            let expected = bvh.intersect(tris, &ray);
            let got = gpu.intersect(&ray);
            assert_eq!(got, expected, "{kind} closest hit differs for {ray:?}");
            assert_eq!(gpu.occluded(&ray), bvh.occluded(tris, &ray), "{kind} any hit differs for {ray:?}");
            hits += expected.is_some() as usize;
        }
        assert!(hits > 400, "the test rays should hit often ({hits} of 4000)");
    }

    #[test]
    fn layout_traversal_matches_cpu_sah() {
        check_against_cpu(&soup(3000, 1), BuildKind::Sah);
    }

    #[test]
    fn layout_traversal_matches_cpu_sbvh() {
        check_against_cpu(&soup(3000, 2), BuildKind::Sbvh);
    }

    #[test]
    fn leaves_are_terminated_and_ids_parallel() {
        let tris = soup(500, 3);
        let (bvh, _) = Bvh::build(&tris, &BuildOptions::sbvh());
        let gpu = GpuBvh::from_bvh(&bvh, &tris).unwrap();
        let mut leaves_seen = 0;
        for node in &gpu.nodes {
            for &child in &node.child_index {
                if child < 0 {
                    leaves_seen += 1;
                    let mut slot = !child as usize;
                    while gpu.triangles[slot][3].to_bits() != END_OF_LEAF {
                        let id = gpu.triangle_ids[slot];
                        assert!(id >= 0 && (id as usize) < tris.len());
                        let tri = tris[id as usize];
                        assert_eq!(gpu.triangles[slot][..3], tri[0].to_array());
                        assert_eq!(gpu.triangles[slot + 1][..3], (tri[1] - tri[0]).to_array());
                        assert_eq!(gpu.triangle_ids[slot + 1], -1);
                        slot += 3;
                    }
                } else {
                    assert!((child as usize) < gpu.nodes.len());
                }
            }
        }
        assert_eq!(leaves_seen, gpu.leaf_count);
        assert_eq!(gpu.triangles.len(), 3 * gpu.reference_count + gpu.leaf_count + 2);
        assert!(gpu.max_stack_entries <= STACK_SIZE);
    }

    #[test]
    fn root_leaf_and_empty_scenes() {
        let tris = soup(2, 4);
        let (bvh, _) = Bvh::build(&tris, &BuildOptions { max_leaf_size: 8, ..Default::default() });
        assert!(bvh.nodes[0].is_leaf(), "two triangles with max_leaf_size 8 make a root leaf");
        let gpu = GpuBvh::from_bvh(&bvh, &tris).unwrap();
        assert_eq!(gpu.nodes.len(), 1);
        let toward = |p: Vec3| Ray::new(Vec3::new(0.0, 0.0, -40.0), (p - Vec3::new(0.0, 0.0, -40.0)).normalize());
        let centroid = (tris[0][0] + tris[0][1] + tris[0][2]) / 3.0;
        let ray = toward(centroid);
        assert_eq!(gpu.intersect(&ray), brute_force_intersect(&tris, &ray));
        assert!(gpu.intersect(&ray).is_some());

        let (empty, _) = Bvh::build(&[], &BuildOptions::default());
        let gpu = GpuBvh::from_bvh(&empty, &[]).unwrap();
        assert_eq!(gpu.nodes.len(), 1);
        for ray in rays(100, 5) {
            assert_eq!(gpu.intersect(&ray), None);
            assert!(!gpu.occluded(&ray));
        }
        assert_eq!(GpuBvh::from_bvh(&Bvh::default(), &[]).unwrap().nodes.len(), 1);
    }

    #[test]
    fn malformed_trees_are_errors() {
        let tris = soup(10, 6);
        let (mut bvh, _) = Bvh::build(&tris, &BuildOptions { max_leaf_size: 1, ..Default::default() });
        let mut out_of_range = bvh.clone();
        out_of_range.prim_indices[0] = 99;
        assert!(matches!(GpuBvh::from_bvh(&out_of_range, &tris), Err(CudaError::InvalidBvh(_))));
        bvh.nodes[0].left_or_first = bvh.nodes.len() as u32;
        assert!(matches!(GpuBvh::from_bvh(&bvh, &tris), Err(CudaError::InvalidBvh(_))));
        let cycle = Bvh {
            nodes: vec![
                BvhNode { min: Vec3::ZERO, left_or_first: 0, max: Vec3::ONE, count: 0 },
                BvhNode { min: Vec3::ZERO, left_or_first: 0, max: Vec3::ONE, count: 0 },
            ],
            prim_indices: vec![0],
        };
        assert!(matches!(GpuBvh::from_bvh(&cycle, &tris), Err(CudaError::InvalidBvh(_))));
    }
}
