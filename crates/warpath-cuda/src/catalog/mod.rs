//! The kernel catalog: every CUDA kernel the Rust side launches, declared once as a
//! [`Kernel`] constant that names its [`Program`](crate::kernels::Program), its `extern "C"`
//! entry point and its argument type (a tuple of [`Param`]s, the CUDA signature's parameters
//! in order). Every launch goes through
//! [`CudaDevice::launch`](crate::runtime::CudaDevice::launch) (or `launch_in`, for a variant
//! build of the program), which takes the values of exactly that tuple, so a launch cannot
//! push the wrong number, order or kinds of arguments.
//!
//! The declared types are checked against the CUDA sources without a GPU: the
//! `signatures` test parses every `extern "C" __global__` signature of the embedded
//! sources (macros expanded) and compares it with the declaration ([`ParamType`]: pointers
//! by constness, `unsigned int` ↔ `u32`, `int` ↔ `i32`, `unsigned long long` ↔ `u64`,
//! `float` ↔ `f32`, structs by value by their CUDA name), and checks that every entry point
//! of the sources is catalogued and every catalogued kernel exists.
//!
//! This module imports the launch machinery ([`crate::kernel`]), the programs
//! ([`crate::kernels`]) and the argument structs' definitions (modules that launch nothing
//! and import neither this module nor any that launches), never the code that launches.

mod list;
pub mod signatures;

pub use list::*;

pub use crate::kernel::{ConstPtr, In, Kernel, KernelArgs, KernelEntry, KernelInfo, MutPtr, Out, Param, ParamType};

use crate::compaction::workspace::CompactionState;
use crate::isosurface::args::{IsoArgs, IsoClimbArgs, IsoPipelineArgs, IsoRenderArgs, IsoStageOut, IsoUpdateArgs};
use crate::restir::args::RestirArgs;
use crate::scene_upload::DeviceSceneArgs;
use crate::strategy::args::{MultiStageQueues, ScheduleArgs, WavefrontBuffers};
use crate::volume_upload::DeviceVolumeSceneArgs;
use cudarc::driver::{DeviceRepr, LaunchArgs, PushKernelArg};

// The `#[repr(C)]` structs the kernels take by value, by their CUDA names.
use crate::kernel::by_value;

by_value! {
    WavefrontBuffers => ParamType::Struct("WavefrontBuffers"),
    MultiStageQueues => ParamType::Struct("MultiStageQueues"),
    CompactionState => ParamType::Struct("CompactionState"),
    RestirArgs => ParamType::Struct("RestirArgs"),
    IsoArgs => ParamType::Struct("IsoArgs"),
    IsoRenderArgs => ParamType::Struct("IsoRenderArgs"),
    IsoUpdateArgs => ParamType::Struct("IsoUpdateArgs"),
    IsoClimbArgs => ParamType::Struct("IsoClimbArgs"),
    IsoPipelineArgs => ParamType::Struct("IsoPipelineArgs"),
    IsoStageOut => ParamType::Struct("IsoStageOut"),
}

/// An estimator's scene arguments, the last field of its `ScheduleArgs<E>`.
pub trait ScheduleScene: DeviceRepr + Copy + 'static {
    /// `ScheduleArgs<E>` with the estimator type `E` of the CUDA sources.
    const SCHEDULE_ARGS: &'static str;
    /// The estimator's schedule kernels.
    const SCHEDULES: ScheduleKernels<Self>;
}

impl ScheduleScene for DeviceSceneArgs {
    const SCHEDULE_ARGS: &'static str = "ScheduleArgs<SurfaceEstimator>";
    const SCHEDULES: ScheduleKernels<Self> = SURFACE_SCHEDULES;
}

impl ScheduleScene for DeviceVolumeSceneArgs {
    const SCHEDULE_ARGS: &'static str = "ScheduleArgs<VolumeEstimator>";
    const SCHEDULES: ScheduleKernels<Self> = VOLUME_SCHEDULES;
}

impl<S: ScheduleScene> Param for ScheduleArgs<S> {
    type Value<'a> = ScheduleArgs<S>;
    const TYPE: ParamType = ParamType::Struct(S::SCHEDULE_ARGS);
    fn push<'a>(value: &'a mut ScheduleArgs<S>, launch: &mut LaunchArgs<'a>) {
        launch.arg(&*value);
    }
}
