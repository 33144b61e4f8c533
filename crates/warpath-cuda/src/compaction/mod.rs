//! Stream compaction (issue 4): the typed launches of `kernels/compaction.cu` over the device
//! library `kernels/compaction/compaction.cuh` (seed 001 §2: InK-Collate, InK-Compact with
//! block sections; Merrill & Garland 2016: decoupled look-back) and their out-of-kernel
//! baselines (OfK from a flag array, three-pass count/scan/scatter).
//!
//! Every method keeps the elements whose key hashes below a threshold ([`threshold_for`]:
//! `hash(key) < selectivity · 2^32`), so the selectivity is exact in expectation on random
//! keys and [`cpu_filter`] is the reference. The order-preserving methods
//! ([`CompactionMethod::preserves_order`]) produce exactly `cpu_filter`; InK-Collate produces
//! the same multiset. The kept count lands in the [`CompactionWorkspace`], whose state is
//! zeroed by one memset before every launch.
//!
//! The renderer uses the workspace and [`CompactionState`] (the wavefront's in-kernel
//! compaction, `schedules/wavefront.cuh`) and [`out_of_kernel_prefix`] (its separate OfK
//! pass) on [`CompactPathState`]-sized paths; the other methods are what
//! `warpath-bench compaction` (crates/warpath-bench) compares them with. For order-preserving
//! u32 compaction, [`CompactionMethod::LookbackDeepAhead`] is the fastest on the H100
//! (docs/benchmarks/compaction.md).
//!
//! * `elements`: the element types (u32, 16-byte, 64-byte path state) and their trait;
//! * `predicate`: the keep predicate and the CPU reference filter;
//! * `methods`: the method table ([`CompactionMethod`] → kernels, order, element types);
//! * `workspace`: the per-launch state ([`CompactionWorkspace`], [`CompactionState`]);
//! * `launch`: one typed function per kernel signature (the kernels: [`crate::catalog`]);
//! * `buffers`: the buffers of one compaction, running any method ([`CompactionBuffers`]);
//! * `timing`: GPU time of a method or of a memcpy, for the benchmark;
//! * `layout`: the layouts shared with the kernels, host side.

mod buffers;
pub(crate) mod elements;
mod launch;
mod layout;
mod methods;
mod predicate;
mod timing;
pub(crate) mod workspace;

pub use buffers::CompactionBuffers;
pub use elements::{CompactElem16, CompactPathState, CompactionElement, ElementKind, cpu_filter};
pub use launch::{
    CollateKernel, LookbackKernel, SectionsKernel, collate, fill, intermediate_len, layout_report, lookback,
    out_of_kernel, out_of_kernel_prefix, sections, three_pass, write_flags,
};
pub use layout::{LAYOUT_REPORT_LEN, host_layout};
pub use methods::{CompactionMethod, MethodKernels};
pub use predicate::{compaction_hash, keeps, threshold_for};
pub use timing::{median_ms, time_input_copy, time_method};
pub use workspace::{COMPACTION_BLOCK, CompactionState, CompactionWorkspace, SECTION_BLOCKS};
