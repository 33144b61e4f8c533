//! Compiles warpath-bench's CUDA programs with NVRTC for sm_90 (H100/H200) — no GPU needed —
//! and checks that each compiles without warnings and defines every kernel this crate launches:
//! `traverse.cu` and the volumetric estimator's megakernel in each benchmark variant
//! (3D-texture grid fetches, register caps: every #if branch of their kernels). warpath-cuda's `kernels_compile` test
//! compiles the product's programs; CI's `.ci/nvrtc-check` runs both. Skips with a notice when
//! libnvrtc cannot be loaded, unless `WARPATH_REQUIRE_NVRTC=1`, where that is a failure.
//! `WARPATH_NVRTC_PROGRAMS=traverse,volume_megakernel` compiles only the programs whose names
//! start with one of the prefixes, and fails when they name no program of either crate.

use warpath_cuda::compiler::{CompileTarget, KernelCompiler};

#[test]
fn every_benchmark_kernel_compiles_for_sm_90_without_warnings() {
    let compiler = match KernelCompiler::new() {
        Ok(compiler) => compiler.with_cache_dir(None),
        Err(error) => {
            if std::env::var("WARPATH_REQUIRE_NVRTC").as_deref() == Ok("1") {
                panic!("WARPATH_REQUIRE_NVRTC=1 but NVRTC is unavailable: {error}");
            }
            eprintln!("notice: skipping NVRTC test ({error}); set WARPATH_REQUIRE_NVRTC=1 to make this a failure");
            return;
        }
    };
    let target = compiler.target_for((9, 0)).expect("a target for sm_90");
    assert_eq!(target, CompileTarget::Cubin { arch: 90 });
    // The volumetric megakernel in every benchmark variant covers each of their #if branches
    // (the schedule families are the same estimator code; compiling all 49 programs would take
    // NVRTC most of an hour on two cores; `warpath-bench precompile --variants` compiles them).
    let mut programs = warpath_bench::programs::programs();
    programs.extend(
        warpath_bench::programs::variant_programs()
            .into_iter()
            .filter(|(p, _)| p.name.starts_with("volume_megakernel")),
    );
    if let Ok(only) = std::env::var("WARPATH_NVRTC_PROGRAMS") {
        let prefixes: Vec<&str> = only.split(',').map(str::trim).filter(|p| !p.is_empty()).collect();
        let matches = |name: &str| prefixes.iter().any(|prefix| name.starts_with(prefix));
        let product = warpath_cuda::programs::programs().into_iter().chain(warpath_cuda::programs::variant_programs());
        let any_product = product.map(|(p, _)| p.name).any(matches);
        programs.retain(|(source, _)| matches(source.name));
        eprintln!("WARPATH_NVRTC_PROGRAMS={only}: compiling {} program(s) of warpath-bench", programs.len());
        assert!(!programs.is_empty() || any_product, "WARPATH_NVRTC_PROGRAMS={only} names no program");
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let problems = warpath_cuda::programs::compile_problems(&compiler, &target, &programs, threads);
    assert!(problems.is_empty(), "{} problem(s):\n{}", problems.len(), problems.join("\n"));
}
