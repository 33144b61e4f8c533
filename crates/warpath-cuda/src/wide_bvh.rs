//! The compressed 8-wide BVH (Ylitie, Karras and Laine, HPG 2017; `warpath_bvh::wide`) on the
//! device: its layout ([`GpuWideBvh`]: the 80-byte [`WideNode`]s as built, and one
//! Möller–Trumbore triangle record per reference), its upload ([`DeviceWideBvh`]) and the launches
//! of `traverse.cu`'s wide kernels (`traversal/wide.cuh`: closest and any hit, one ray per
//! thread), with [`bench_wide_traversal`] timing them as [`crate::bench_traversal`] times the
//! binary ones.
//!
//! Triangle records: reference `i` (the `i`-th entry of `WideBvh::prim_indices`, which the nodes'
//! `tri_base + offset` address) is three float4 from float4 `3 i`: `v0` with `w` holding the
//! original triangle id's bits, `v1 - v0`, `v2 - v0` (the binary layout's
//! [`GpuTriangle`](crate::layout::GpuTriangle), so the two kernels share `intersect_triangle`
//! and its arithmetic). SBVH's duplicate references get a record each. A Woop layout is not
//! implemented: the plain records make the wide kernel's hits bit-identical to the CPU's.

use crate::buffer::DeviceBuffer;
use crate::catalog::{
    TRAVERSE_WIDE_ANY, TRAVERSE_WIDE_CLOSEST, TRAVERSE_WIDE_PERSISTENT_ANY, TRAVERSE_WIDE_PERSISTENT_CLOSEST,
};
use crate::error::{CudaError, CudaResult};
use crate::layout::{GpuHit, GpuRay};
use crate::runtime::CudaDevice;
use crate::traverse::{
    DEFAULT_FETCH_THRESHOLD, HitMode, TRAVERSAL_BLOCK_SIZE, check_batch, one_ray_config, persistent_config,
};
use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use warpath_bvh::Bvh;
use warpath_bvh::wide::{Collapse, WideBvh, WideNode, WideStats};
use warpath_core::math::Ray;

/// The BVH layout a scene is uploaded with and traced in (`--bvh-layout`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BvhLayout {
    /// The binary Aila–Laine layout (`bvh_layout.rs`, traversal/traversal.cuh).
    #[default]
    Binary,
    /// The compressed 8-wide BVH (this module, traversal/wide.cuh), collapsed with
    /// [`Collapse::Optimal`].
    Wide8,
}

impl BvhLayout {
    pub const ALL: [BvhLayout; 2] = [BvhLayout::Binary, BvhLayout::Wide8];

    /// `binary` or `wide8`.
    pub fn name(self) -> &'static str {
        match self {
            BvhLayout::Binary => "binary",
            BvhLayout::Wide8 => "wide8",
        }
    }

    /// Parses [`BvhLayout::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.name() == name)
    }
}

impl std::fmt::Display for BvhLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The depth (levels below the root) a tree must stay below (`WARPATH_WIDE_MAX_DEPTH` in
/// traversal/wide.cuh: the node groups the kernels' stack holds, one per level; the stack has as
/// many entries again for postponed triangle groups).
pub const WIDE_MAX_DEPTH: usize = 64;

/// The wide scene's device addresses as `traversal/wide.cuh`'s `WideTraversalScene` reads them.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct WideTraversalSceneArgs {
    pub nodes: u64,
    pub triangles: u64,
}

/// The wide layout of one BVH, on the host.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GpuWideBvh {
    /// The compressed nodes as built (node 0 the root).
    pub nodes: Vec<WideNode>,
    /// Three float4 per reference (see the module docs).
    pub triangles: Vec<[f32; 4]>,
    /// Levels below the root (the stack entries a traversal may need).
    pub max_depth: usize,
}

impl GpuWideBvh {
    /// The layout of `wide`, built over `tris`.
    pub fn from_wide(wide: &WideBvh, tris: &[[Vec3; 3]]) -> CudaResult<GpuWideBvh> {
        if tris.len() > i32::MAX as usize {
            return Err(CudaError::InvalidBvh(format!("{} triangles exceed the 32-bit triangle ids", tris.len())));
        }
        if wide.nodes.is_empty() {
            return Err(CudaError::InvalidBvh("a wide BVH has at least its root node".into()));
        }
        if wide.prim_indices.len().saturating_mul(3) > u32::MAX as usize {
            return Err(CudaError::InvalidBvh(format!("{} references exceed 32-bit indices", wide.prim_indices.len())));
        }
        let max_depth = wide.max_depth() as usize;
        if max_depth >= WIDE_MAX_DEPTH {
            return Err(CudaError::InvalidBvh(format!(
                "the wide tree is {max_depth} levels deep; the kernels' stack allows {}",
                WIDE_MAX_DEPTH - 1
            )));
        }
        let mut triangles = Vec::with_capacity(3 * wide.prim_indices.len());
        for &prim in &wide.prim_indices {
            let tri = tris
                .get(prim as usize)
                .ok_or_else(|| CudaError::InvalidBvh(format!("a leaf references triangle {prim} of {}", tris.len())))?;
            let (v0, edge1, edge2) = (tri[0], tri[1] - tri[0], tri[2] - tri[0]);
            triangles.push([v0.x, v0.y, v0.z, f32::from_bits(prim)]);
            triangles.push([edge1.x, edge1.y, edge1.z, 0.0]);
            triangles.push([edge2.x, edge2.y, edge2.z, 0.0]);
        }
        if triangles.is_empty() {
            // Device buffers are never empty; the kernels read no record of a tree without triangles.
            triangles.extend_from_slice(&[[0.0; 4]; 3]);
        }
        Ok(GpuWideBvh { nodes: wide.nodes.clone(), triangles, max_depth })
    }

    /// Collapses `bvh` (built over `tris`) with `collapse` and converts it; also the build's
    /// statistics (their `build_seconds` is the collapse and compression time).
    pub fn from_bvh(bvh: &Bvh, tris: &[[Vec3; 3]], collapse: Collapse) -> CudaResult<(GpuWideBvh, WideStats)> {
        let (wide, stats) = WideBvh::from_binary(bvh, tris, collapse);
        Ok((GpuWideBvh::from_wide(&wide, tris)?, stats))
    }

    /// Bytes the layout takes in device memory.
    pub fn size_bytes(&self) -> usize {
        self.nodes.len() * std::mem::size_of::<WideNode>() + self.triangles.len() * 16
    }
}

/// A [`GpuWideBvh`] in device memory.
#[derive(Debug)]
pub struct DeviceWideBvh {
    pub(crate) nodes: DeviceBuffer<WideNode>,
    pub(crate) triangles: DeviceBuffer<[f32; 4]>,
    pub node_count: usize,
    pub reference_count: usize,
}

impl DeviceWideBvh {
    /// Uploads `bvh`.
    pub fn upload(device: &CudaDevice, bvh: &GpuWideBvh) -> CudaResult<DeviceWideBvh> {
        if bvh.nodes.is_empty() || bvh.triangles.is_empty() || !bvh.triangles.len().is_multiple_of(3) {
            return Err(CudaError::InvalidBvh(format!(
                "{} nodes and {} triangle float4: not a converted GpuWideBvh",
                bvh.nodes.len(),
                bvh.triangles.len()
            )));
        }
        Ok(DeviceWideBvh {
            nodes: DeviceBuffer::from_slice(device, &bvh.nodes)?,
            triangles: DeviceBuffer::from_slice(device, &bvh.triangles)?,
            node_count: bvh.nodes.len(),
            reference_count: bvh.triangles.len() / 3,
        })
    }

    /// Collapses `bvh` (built over `tris`), converts and uploads it.
    pub fn from_bvh(
        device: &CudaDevice,
        bvh: &Bvh,
        tris: &[[Vec3; 3]],
        collapse: Collapse,
    ) -> CudaResult<(DeviceWideBvh, WideStats)> {
        let (layout, stats) = GpuWideBvh::from_bvh(bvh, tris, collapse)?;
        Ok((Self::upload(device, &layout)?, stats))
    }

    /// The addresses the kernels read (`WideTraversalScene`).
    pub fn args(&self, device: &CudaDevice) -> WideTraversalSceneArgs {
        WideTraversalSceneArgs { nodes: self.nodes.address(device), triangles: self.triangles.address(device) }
    }
}

/// The wide kernels' schedules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WideSchedule {
    /// One ray per thread (`traverse_wide_closest` / `_any`).
    OneRay,
    /// Persistent warps with dynamic fetch (`traverse_wide_persistent_*`), postponing triangle
    /// groups while at most `postpone_lanes` 32nds of the stepping lanes have triangles (0: never).
    Persistent { fetch_threshold: u32, postpone_lanes: u32 },
}

impl WideSchedule {
    /// The schedules `bench traversal` times: one ray per thread, persistent without and with
    /// postponing (the paper's threshold, about 20% of the lanes).
    pub const BENCHMARKED: [WideSchedule; 3] = [
        WideSchedule::OneRay,
        WideSchedule::Persistent { fetch_threshold: DEFAULT_FETCH_THRESHOLD, postpone_lanes: 0 },
        WideSchedule::Persistent { fetch_threshold: DEFAULT_FETCH_THRESHOLD, postpone_lanes: 6 },
    ];

    /// `while-while`, `persistent`, `persistent-postpone6`, ...
    pub fn name(&self) -> String {
        match self {
            WideSchedule::OneRay => "while-while".into(),
            WideSchedule::Persistent { postpone_lanes: 0, .. } => "persistent".into(),
            WideSchedule::Persistent { postpone_lanes, .. } => format!("persistent-postpone{postpone_lanes}"),
        }
    }
}

/// Launches the wide kernel for `mode` over every ray of `rays`, writing `hits[i]` for ray `i`
/// (`prim` -1 and `t = t_max` for a miss, as the binary kernels write): one ray per thread.
pub fn trace_wide(
    device: &CudaDevice,
    bvh: &DeviceWideBvh,
    rays: &DeviceBuffer<GpuRay>,
    hits: &mut DeviceBuffer<GpuHit>,
    mode: HitMode,
) -> CudaResult<()> {
    let mut no_counter = DeviceBuffer::zeroed(device, 1)?;
    trace_wide_with(device, bvh, rays, hits, &mut no_counter, mode, WideSchedule::OneRay)
}

/// [`trace_wide`] under `schedule`; `ray_counter` (one element, reset here) feeds the
/// persistent kernels.
pub fn trace_wide_with(
    device: &CudaDevice,
    bvh: &DeviceWideBvh,
    rays: &DeviceBuffer<GpuRay>,
    hits: &mut DeviceBuffer<GpuHit>,
    ray_counter: &mut DeviceBuffer<u32>,
    mode: HitMode,
    schedule: WideSchedule,
) -> CudaResult<()> {
    if !check_batch(rays.len(), hits.len())? {
        return Ok(());
    }
    if let WideSchedule::Persistent { fetch_threshold, postpone_lanes } = schedule {
        if !(1..=32).contains(&fetch_threshold) || postpone_lanes > 32 || ray_counter.is_empty() {
            return Err(CudaError::InvalidArgument(format!(
                "fetch_threshold {fetch_threshold} (1..=32), postpone_lanes {postpone_lanes} (0..=32) and a \
                 one-element ray counter ({} elements)",
                ray_counter.len()
            )));
        }
        let kernel = match mode {
            HitMode::Closest => TRAVERSE_WIDE_PERSISTENT_CLOSEST,
            HitMode::Any => TRAVERSE_WIDE_PERSISTENT_ANY,
        };
        let function = device.entry_function(kernel.entry(), &kernel.program().source())?;
        ray_counter.clear(device)?;
        let per_sm = device.blocks_per_multiprocessor(&function, TRAVERSAL_BLOCK_SIZE)?;
        let config = persistent_config(device, per_sm, rays.len());
        // `hits` holds at least `rays.len()` results (checked above).
        let args = (
            bvh.nodes.raw().into(),
            bvh.triangles.raw().into(),
            rays.raw().into(),
            hits.raw_mut().into(),
            rays.len() as i32,
            ray_counter.raw_mut().into(),
            fetch_threshold as i32,
            postpone_lanes as i32,
        );
        return device.launch(kernel, config, args);
    }
    let kernel = match mode {
        HitMode::Closest => TRAVERSE_WIDE_CLOSEST,
        HitMode::Any => TRAVERSE_WIDE_ANY,
    };
    let config = one_ray_config(rays.len());
    // `hits` holds at least `rays.len()` results (checked above).
    let args = (
        bvh.nodes.raw().into(),
        bvh.triangles.raw().into(),
        rays.raw().into(),
        hits.raw_mut().into(),
        rays.len() as i32,
    );
    device.launch(kernel, config, args)
}

/// Uploads `rays`, traces them through the wide kernel in `mode` and returns the hits.
pub fn trace_rays_wide(
    device: &CudaDevice,
    bvh: &DeviceWideBvh,
    rays: &[GpuRay],
    mode: HitMode,
) -> CudaResult<Vec<GpuHit>> {
    trace_rays_wide_with(device, bvh, rays, mode, WideSchedule::OneRay)
}

/// [`trace_rays_wide`] under `schedule`.
pub fn trace_rays_wide_with(
    device: &CudaDevice,
    bvh: &DeviceWideBvh,
    rays: &[GpuRay],
    mode: HitMode,
    schedule: WideSchedule,
) -> CudaResult<Vec<GpuHit>> {
    let ray_buffer = DeviceBuffer::from_slice(device, rays)?;
    let mut hits = DeviceBuffer::zeroed(device, rays.len())?;
    let mut counter = DeviceBuffer::zeroed(device, 1)?;
    trace_wide_with(device, bvh, &ray_buffer, &mut hits, &mut counter, mode, schedule)?;
    hits.download(device)
}

/// The timing of the wide kernel on one ray batch.
#[derive(Clone, Debug, PartialEq)]
pub struct WideTiming {
    pub mode: HitMode,
    pub rays: usize,
    /// Each timed run, in milliseconds (CUDA events around the launch).
    pub run_ms: Vec<f32>,
    pub median_ms: f32,
    /// Millions of rays per second at the median time.
    pub mrays_per_second: f64,
    /// Rays that hit something (closest) or are occluded (any), from the last run.
    pub hit_count: usize,
}

/// Times the wide kernel in `mode` under `schedule` on `rays` against the uploaded `bvh`:
/// `warmup_runs` untimed launches, then `timed_runs` launches between CUDA events; the median is
/// reported (the persistent kernels' interval includes their 4-byte counter reset).
pub fn bench_wide_traversal(
    device: &CudaDevice,
    bvh: &DeviceWideBvh,
    rays: &[Ray],
    mode: HitMode,
    schedule: WideSchedule,
    warmup_runs: usize,
    timed_runs: usize,
) -> CudaResult<WideTiming> {
    if timed_runs == 0 {
        return Err(CudaError::InvalidArgument("bench_wide_traversal needs at least one timed run".into()));
    }
    let gpu_rays: Vec<GpuRay> = rays.iter().map(GpuRay::from).collect();
    let ray_buffer = DeviceBuffer::from_slice(device, &gpu_rays)?;
    let mut hits = DeviceBuffer::zeroed(device, gpu_rays.len())?;
    let mut counter = DeviceBuffer::zeroed(device, 1)?;
    let run_ms = device.time_runs(warmup_runs, timed_runs, || {
        trace_wide_with(device, bvh, &ray_buffer, &mut hits, &mut counter, mode, schedule)
    })?;
    let median_ms = crate::runtime::median(&run_ms);
    let hit_count = hits.download(device)?.iter().filter(|h| h.is_hit()).count();
    Ok(WideTiming {
        mode,
        rays: rays.len(),
        run_ms,
        median_ms,
        mrays_per_second: if median_ms > 0.0 { rays.len() as f64 / (median_ms as f64 * 1e-3) / 1e6 } else { 0.0 },
        hit_count,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpath_bvh::BuildOptions;

    fn quad_grid(n: usize) -> Vec<[Vec3; 3]> {
        let mut tris = Vec::new();
        for i in 0..n {
            for j in 0..n {
                let p = Vec3::new(i as f32, j as f32, (i * j % 3) as f32 * 0.1);
                tris.push([p, p + Vec3::X, p + Vec3::Y]);
                tris.push([p + Vec3::X, p + Vec3::X + Vec3::Y, p + Vec3::Y]);
            }
        }
        tris
    }

    #[test]
    fn records_follow_prim_indices_with_ids_in_w() {
        let tris = quad_grid(12);
        let (bvh, _) = Bvh::build(&tris, &BuildOptions::default());
        for collapse in [Collapse::Optimal, Collapse::Greedy] {
            let (wide, _) = WideBvh::from_binary(&bvh, &tris, collapse);
            let layout = GpuWideBvh::from_wide(&wide, &tris).unwrap();
            assert_eq!(layout.nodes, wide.nodes);
            assert_eq!(layout.triangles.len(), 3 * wide.prim_indices.len());
            assert_eq!(layout.max_depth, wide.max_depth() as usize);
            for (i, &prim) in wide.prim_indices.iter().enumerate() {
                let [v0, e1, e2] = [layout.triangles[3 * i], layout.triangles[3 * i + 1], layout.triangles[3 * i + 2]];
                let tri = tris[prim as usize];
                assert_eq!(v0[3].to_bits(), prim);
                assert_eq!(Vec3::new(v0[0], v0[1], v0[2]), tri[0]);
                assert_eq!(Vec3::new(e1[0], e1[1], e1[2]), tri[1] - tri[0]);
                assert_eq!(Vec3::new(e2[0], e2[1], e2[2]), tri[2] - tri[0]);
            }
            assert_eq!(layout.size_bytes(), 80 * wide.nodes.len() + 48 * wide.prim_indices.len());
        }
    }

    #[test]
    fn empty_tree_keeps_one_record_and_its_root() {
        let (bvh, _) = Bvh::build(&[], &BuildOptions::default());
        let (layout, _) = GpuWideBvh::from_bvh(&bvh, &[], Collapse::Optimal).unwrap();
        assert_eq!(layout.nodes.len(), 1);
        assert_eq!(layout.nodes[0].meta, [0; 8]);
        assert_eq!(layout.triangles.len(), 3);
    }

    #[test]
    fn layout_names_round_trip() {
        for layout in BvhLayout::ALL {
            assert_eq!(BvhLayout::from_name(layout.name()), Some(layout));
        }
        assert_eq!(BvhLayout::default(), BvhLayout::Binary);
        assert_eq!(BvhLayout::from_name("wide4"), None);
    }

    #[test]
    fn bad_references_are_errors() {
        let tris = quad_grid(3);
        let (bvh, _) = Bvh::build(&tris, &BuildOptions::default());
        let (wide, _) = WideBvh::from_binary(&bvh, &tris, Collapse::Optimal);
        assert!(GpuWideBvh::from_wide(&wide, &tris[..4]).is_err());
        let no_nodes = WideBvh { nodes: Vec::new(), prim_indices: Vec::new() };
        assert!(GpuWideBvh::from_wide(&no_nodes, &tris).is_err());
    }
}
