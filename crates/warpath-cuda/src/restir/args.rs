//! The argument every ReSTIR kernel takes by value (`RestirArgs` of `kernels/restir/restir.cuh`,
//! which asserts its layout).

use crate::scene_upload::DeviceSceneArgs;
use bytemuck::{Pod, Zeroable};

/// restir.cuh `RestirArgs`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct RestirArgs {
    pub scene: DeviceSceneArgs,
    pub gbuffer: u64,
    pub prev_gbuffer: u64,
    pub input: u64,
    pub output: u64,
    pub previous: u64,
    pub film_sum: u64,
    pub film_sum_sq: u64,
    pub film_count: u64,
    pub frame: u32,
    pub seed: u32,
    pub candidates: u32,
    pub light_pool: u32,
    pub bias: u32,
    pub neighbours: u32,
    pub pass: u32,
    pub has_previous: u32,
    pub radius: f32,
    pub temporal_cap: f32,
    /// `Reprojection` of the previous frame's camera (read when `camera_moved` != 0).
    pub prev_to_camera: [f32; 12],
    pub prev_position: [f32; 3],
    pub prev_tan_half_fov: [f32; 2],
    pub camera_moved: u32,
    /// Lanes a pixel of the spatial pass's ray kernels (`RayLanes`; 0: traced inline).
    pub pending_z: u64,
    pub neighbour_sees: u64,
    pub ray_group: u32,
    /// The target function p̂ (`TargetFunction::code`).
    pub target: u32,
    /// The temporal pass's hand-over to its ray kernel.
    pub pending_temporal: u64,
    /// Visibility-aware reuse (`RestirOptions::reuse_visibility`): 1 or 0.
    pub reuse_visibility: u32,
    pub _pad: u32,
    /// Rays by stage (`u64` × 5: visibility, temporal, spatial, shade, BSDF candidates), or 0:
    /// not counted.
    pub ray_counts: u64,
    /// BSDF-sampled candidates per pixel (`RestirOptions::bsdf_candidates`).
    pub bsdf_candidates: u32,
    /// `warpath_core::restir::boiling_multiplier` (read only when the boiling filter runs).
    pub boiling_multiplier: f32,
    /// `RestirOptions::roughness_threshold`.
    pub roughness_threshold: f32,
    pub _pad2: u32,
    /// Where each pixel's final sample came from (`u32` a pixel and reservoir target:
    /// `warpath_core::restir::SampleOrigin` codes), or 0: not recorded (the kernels then write
    /// nothing there).
    pub origins: u64,
}
const _: () = assert!(std::mem::size_of::<RestirArgs>() == 392);
const _: () = assert!(std::mem::offset_of!(RestirArgs, pending_temporal) == 344);
const _: () = assert!(std::mem::offset_of!(RestirArgs, pending_z) == 320);
const _: () = assert!(std::mem::offset_of!(RestirArgs, ray_group) == 336);
// SAFETY: a `#[repr(C)]` Pod struct whose layout restir.cuh asserts.
unsafe impl cudarc::driver::DeviceRepr for RestirArgs {}
