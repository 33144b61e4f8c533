//! The CUDA sources embedded in the binary (DESIGN.md rule 5) and the kernels each one
//! defines. Headers are handed to NVRTC in memory under the names the sources include.

use crate::compiler::KernelSource;

/// Every header, by the name `#include "..."` uses.
pub const HEADERS: &[(&str, &str)] = &[
    ("layout.cuh", include_str!("../kernels/layout.cuh")),
    ("ray_triangle.cuh", include_str!("../kernels/ray_triangle.cuh")),
    ("traversal.cuh", include_str!("../kernels/traversal.cuh")),
];

/// `layout_check.cu`: reports the device compiler's struct sizes and offsets.
pub const LAYOUT_CHECK: KernelSource = KernelSource {
    name: "layout_check",
    file_name: "layout_check.cu",
    source: include_str!("../kernels/layout_check.cu"),
    headers: HEADERS,
};

/// `traverse.cu`: the Aila–Laine traversal kernels.
pub const TRAVERSE: KernelSource = KernelSource {
    name: "traverse",
    file_name: "traverse.cu",
    source: include_str!("../kernels/traverse.cu"),
    headers: HEADERS,
};

/// Every program with the kernels (`extern "C"` names) the Rust side launches from it.
pub const PROGRAMS: &[(KernelSource, &[&str])] = &[
    (LAYOUT_CHECK, &["layout_report"]),
    (
        TRAVERSE,
        &[
            "traverse_while_while_closest",
            "traverse_while_while_any",
            "traverse_speculative_closest",
            "traverse_speculative_any",
            "traverse_persistent_closest",
            "traverse_persistent_any",
            "traverse_postponed_closest",
            "traverse_postponed_any",
        ],
    ),
];
