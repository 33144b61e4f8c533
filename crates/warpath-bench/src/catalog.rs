//! warpath-bench's kernels, declared as warpath-cuda's catalog declares its own: each a
//! [`Kernel`](warpath_cuda::kernel::Kernel) constant naming its program, entry point and argument
//! tuple, launched only through `CudaDevice::launch`. The program is `kernels/traverse.cu` (the
//! stand-alone traversal kernels of seed 004 and the wide BVH, rays in and hits out), an
//! [`ExternalProgram`] over warpath-cuda's headers (`traversal/*.cuh`, which the product's
//! estimators trace through too). The `signatures` test compares every declaration with the CUDA
//! signature, as warpath-cuda's does for its programs.

use warpath_cuda::catalog::{ConstPtr, KernelInfo, MutPtr};
use warpath_cuda::kernels::{ExternalProgram, Program};

/// `traverse.cu`: the Aila–Laine traversal kernels and the compressed 8-wide BVH's.
pub const TRAVERSE: Program =
    Program::External(ExternalProgram::new("traverse", "traverse.cu", include_str!("../kernels/traverse.cu")));

/// Every program of this crate.
pub const PROGRAMS: [Program; 1] = [TRAVERSE];

/// `(nodes, triangles, triangle_ids, rays, GpuHit* hits, int ray_count)`.
pub type TraversalArgs = (ConstPtr, ConstPtr, ConstPtr, ConstPtr, MutPtr, i32);
/// [`TraversalArgs`], then `unsigned int* ray_counter, int fetch_threshold`.
pub type PersistentTraversalArgs = (ConstPtr, ConstPtr, ConstPtr, ConstPtr, MutPtr, i32, MutPtr, i32);
/// `(const float4* nodes, const float4* triangles, const GpuRay* rays, GpuHit* hits, int ray_count)`:
/// the compressed 8-wide BVH's kernels (`traversal/wide.cuh`).
pub type WideTraversalArgs = (ConstPtr, ConstPtr, ConstPtr, MutPtr, i32);
/// [`WideTraversalArgs`], then `unsigned int* ray_counter, int fetch_threshold, int postpone_lanes,
/// int shared_entries`.
pub type WidePersistentArgs = (ConstPtr, ConstPtr, ConstPtr, MutPtr, i32, MutPtr, i32, i32, i32);
/// `(const float4* nodes, const float4* rows, const unsigned int* triangle_ids, const GpuRay* rays,
/// GpuHit* hits, int ray_count)`: the wide kernels over Woop's triangle rows (`traversal/woop.cuh`).
pub type WideWoopArgs = (ConstPtr, ConstPtr, ConstPtr, ConstPtr, MutPtr, i32);
/// [`WideWoopArgs`], then `unsigned int* ray_counter, int fetch_threshold, int postpone_lanes,
/// int shared_entries`.
pub type WideWoopPersistentArgs = (ConstPtr, ConstPtr, ConstPtr, ConstPtr, MutPtr, i32, MutPtr, i32, i32, i32);

warpath_cuda::kernel_catalog! {
    pub fn all;

    // traverse.cu
    TRAVERSE_WHILE_WHILE_CLOSEST: TraversalArgs = TRAVERSE, "traverse_while_while_closest";
    TRAVERSE_WHILE_WHILE_ANY: TraversalArgs = TRAVERSE, "traverse_while_while_any";
    TRAVERSE_SPECULATIVE_CLOSEST: TraversalArgs = TRAVERSE, "traverse_speculative_closest";
    TRAVERSE_SPECULATIVE_ANY: TraversalArgs = TRAVERSE, "traverse_speculative_any";
    TRAVERSE_PERSISTENT_CLOSEST: PersistentTraversalArgs = TRAVERSE, "traverse_persistent_closest";
    TRAVERSE_PERSISTENT_ANY: PersistentTraversalArgs = TRAVERSE, "traverse_persistent_any";
    TRAVERSE_POSTPONED_CLOSEST: PersistentTraversalArgs = TRAVERSE, "traverse_postponed_closest";
    TRAVERSE_POSTPONED_ANY: PersistentTraversalArgs = TRAVERSE, "traverse_postponed_any";
    TRAVERSE_WIDE_CLOSEST: WideTraversalArgs = TRAVERSE, "traverse_wide_closest";
    TRAVERSE_WIDE_ANY: WideTraversalArgs = TRAVERSE, "traverse_wide_any";
    TRAVERSE_WIDE_PERSISTENT_CLOSEST: WidePersistentArgs = TRAVERSE, "traverse_wide_persistent_closest";
    TRAVERSE_WIDE_PERSISTENT_ANY: WidePersistentArgs = TRAVERSE, "traverse_wide_persistent_any";
    TRAVERSE_WIDE_WOOP_CLOSEST: WideWoopArgs = TRAVERSE, "traverse_wide_woop_closest";
    TRAVERSE_WIDE_WOOP_ANY: WideWoopArgs = TRAVERSE, "traverse_wide_woop_any";
    TRAVERSE_WIDE_WOOP_PERSISTENT_CLOSEST: WideWoopPersistentArgs = TRAVERSE, "traverse_wide_woop_persistent_closest";
    TRAVERSE_WIDE_WOOP_PERSISTENT_ANY: WideWoopPersistentArgs = TRAVERSE, "traverse_wide_woop_persistent_any";
}

/// The catalogued kernels of `program`, by name (what it must define).
pub fn kernels_of(program: Program) -> Vec<&'static str> {
    all().into_iter().filter(|k: &KernelInfo| k.program == program).map(|k| k.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpath_cuda::catalog::ParamType;
    use warpath_cuda::catalog::signatures::mismatches;

    #[test]
    fn every_catalogued_kernel_matches_its_cuda_signature_and_every_entry_point_is_catalogued() {
        let catalog = all();
        assert_eq!(catalog.len(), 16);
        let problems = mismatches(&PROGRAMS, &catalog, &[]);
        assert!(problems.is_empty(), "{} mismatch(es):\n{}", problems.len(), problems.join("\n"));
    }

    #[test]
    fn a_wrong_declaration_is_found() {
        let mut catalog = all();
        catalog.retain(|k| k.name != "traverse_postponed_any");
        let wide = catalog.iter_mut().find(|k| k.name == "traverse_wide_persistent_any").expect("catalogued");
        wide.params[7] = ParamType::U32;
        let speculative = catalog.iter_mut().find(|k| k.name == "traverse_speculative_closest").expect("catalogued");
        speculative.params.swap(3, 4);
        let problems = mismatches(&PROGRAMS, &catalog, &[]);
        assert_eq!(problems.len(), 3, "{problems:#?}");
        for name in ["traverse_postponed_any", "traverse_wide_persistent_any", "traverse_speculative_closest"] {
            assert!(problems.iter().any(|p| p.contains(name)), "{name}: {problems:#?}");
        }
    }

    #[test]
    fn traverse_reads_the_traversal_headers_of_warpath_cuda_and_not_the_compaction_library() {
        let headers: Vec<&str> =
            warpath_cuda::compiler::included_headers(&TRAVERSE.source()).into_iter().map(|(name, _)| name).collect();
        for header in ["traversal/traversal.cuh", "traversal/wide.cuh", "traversal/woop.cuh", "common/layout.cuh"] {
            assert!(headers.contains(&header), "{header}: {headers:?}");
        }
        assert!(!headers.contains(&"compaction/compaction.cuh"), "{headers:?}");
        assert_eq!(kernels_of(TRAVERSE).len(), 16);
        assert!(warpath_cuda::kernels::Program::all().iter().all(|p| *p != TRAVERSE), "not a product program");
    }
}
