//! The host build of `traversal/wide.cuh` (cpp/wide.cpp): the compressed 8-wide BVH's
//! traversal exactly as the CUDA kernels run it, callable on the CPU, so that
//! `tests/wide.rs` can require its hits to equal `warpath_bvh::wide::WideBvh`'s bit for bit:
//! plain records (`WideBvh::intersect` / `occluded`) or Woop's rows (`traversal/woop.cuh`;
//! `WideBvh::intersect_woop` / `occluded_woop`), whichever the converted tree holds.

use bytemuck::{Pod, Zeroable};
use warpath_cuda::wide_bvh::{GpuWideBvh, WideTriangles};
use warpath_cuda::{GpuHit, GpuRay};

mod ffi {
    use warpath_cuda::{GpuHit, GpuRay};
    unsafe extern "C" {
        pub fn warpath_lockstep_wide_trace(
            nodes: *const u8,
            triangles: *const u8,
            rays: *const GpuRay,
            count: usize,
            any_hit: i32,
            postpone_lanes: i32,
            hits: *mut GpuHit,
        );
        #[allow(clippy::too_many_arguments)]
        pub fn warpath_lockstep_wide_woop_trace(
            nodes: *const u8,
            rows: *const u8,
            triangle_ids: *const u32,
            rays: *const GpuRay,
            count: usize,
            any_hit: i32,
            postpone_lanes: i32,
            hits: *mut GpuHit,
        );
    }
}

/// 16 bytes, 16-byte aligned, as device allocations (and C++'s `float4`) are.
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct Block([u32; 4]);

fn aligned<T: Pod>(values: &[T]) -> Vec<Block> {
    let bytes: &[u8] = bytemuck::cast_slice(values);
    let mut blocks = vec![Block::default(); bytes.len().div_ceil(16).max(1)];
    bytemuck::cast_slice_mut::<Block, u8>(&mut blocks)[..bytes.len()].copy_from_slice(bytes);
    blocks
}

/// A [`GpuWideBvh`] in 16-byte-aligned host memory, traced by the host build of wide.cuh.
pub struct HostWideBvh {
    nodes: Vec<Block>,
    triangles: Vec<Block>,
    /// Woop's triangle ids; None for plain records.
    triangle_ids: Option<Vec<u32>>,
}

impl HostWideBvh {
    pub fn new(bvh: &GpuWideBvh) -> Self {
        assert!(!bvh.nodes.is_empty() && !bvh.triangles.is_empty(), "not a converted GpuWideBvh");
        let triangle_ids = match bvh.triangle_layout {
            WideTriangles::Plain => None,
            WideTriangles::Woop => {
                assert_eq!(bvh.triangle_ids.len(), (bvh.triangles.len() / 3).max(1), "not a converted GpuWideBvh");
                Some(bvh.triangle_ids.clone())
            }
        };
        HostWideBvh { nodes: aligned(&bvh.nodes), triangles: aligned(&bvh.triangles), triangle_ids }
    }

    /// `traverse_wide_closest` (`any_hit` false) or `traverse_wide_any` on the CPU (their
    /// `_woop` twins for a tree in Woop's layout).
    pub fn trace(&self, rays: &[GpuRay], any_hit: bool) -> Vec<GpuHit> {
        self.trace_postponing(rays, any_hit, false)
    }

    /// [`HostWideBvh::trace`]; with `postpone`, every triangle group is first pushed on the
    /// stack and tested when popped (the persistent kernels' postponing, forced: a host warp is
    /// one lane).
    pub fn trace_postponing(&self, rays: &[GpuRay], any_hit: bool, postpone: bool) -> Vec<GpuHit> {
        let mut hits = vec![GpuHit::default(); rays.len()];
        let postpone_lanes = if postpone { 32 } else { 0 };
        // SAFETY: the arrays are a converted GpuWideBvh (every node's children and triangle
        // references lie inside them: WideBvh's invariants; Woop's `triangle_ids` one id per
        // reference), 16-byte aligned; `rays` and `hits` hold `rays.len()` elements each.
        unsafe {
            match &self.triangle_ids {
                None => ffi::warpath_lockstep_wide_trace(
                    self.nodes.as_ptr().cast(),
                    self.triangles.as_ptr().cast(),
                    rays.as_ptr(),
                    rays.len(),
                    any_hit as i32,
                    postpone_lanes,
                    hits.as_mut_ptr(),
                ),
                Some(ids) => ffi::warpath_lockstep_wide_woop_trace(
                    self.nodes.as_ptr().cast(),
                    self.triangles.as_ptr().cast(),
                    ids.as_ptr(),
                    rays.as_ptr(),
                    rays.len(),
                    any_hit as i32,
                    postpone_lanes,
                    hits.as_mut_ptr(),
                ),
            }
        }
        hits
    }
}
