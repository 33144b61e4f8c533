//! Compiles every embedded kernel program with NVRTC for sm_90 (H100/H200) — no GPU needed —
//! and checks that it compiles without warnings and defines every kernel the Rust side
//! launches. Skips with a notice when libnvrtc cannot be loaded, unless
//! `WARPATH_REQUIRE_NVRTC=1` (CI's `.ci/nvrtc-check` sets it), where that is a failure.
//! `WARPATH_NVRTC_PROGRAMS=restir,surface_megakernel` compiles only the programs whose names
//! start with one of the given prefixes (a quick check of the programs one has touched). The
//! benchmarks' programs are compiled by `crates/warpath-bench/tests/kernels_compile.rs`.

use warpath_cuda::compiler::{CacheUse, CompileTarget, KernelCompiler, ModuleImage};
use warpath_cuda::programs::{compile_problems, programs, variant_programs};

fn compiler() -> Option<KernelCompiler> {
    match KernelCompiler::new() {
        Ok(compiler) => Some(compiler),
        Err(error) => {
            if std::env::var("WARPATH_REQUIRE_NVRTC").as_deref() == Ok("1") {
                panic!("WARPATH_REQUIRE_NVRTC=1 but NVRTC is unavailable: {error}");
            }
            eprintln!("notice: skipping NVRTC test ({error}); set WARPATH_REQUIRE_NVRTC=1 to make this a failure");
            None
        }
    }
}

#[test]
fn every_kernel_compiles_for_sm_90_without_warnings() {
    let Some(compiler) = compiler() else { return };
    let compiler = compiler.with_cache_dir(None);
    let (major, minor) = compiler.nvrtc_version();
    eprintln!("NVRTC {major}.{minor}, architectures {:?}", compiler.supported_archs());
    let target = compiler.target_for((9, 0)).expect("a target for sm_90");
    assert_eq!(target, CompileTarget::Cubin { arch: 90 }, "NVRTC {major}.{minor} should emit sm_90 machine code");
    // The programs compile on all cores at once (KernelCompiler::compile_many; NVRTC is
    // thread-safe per program); the large schedule programs dominate, so this roughly halves
    // CI time on two cores. Plus the variant builds renders make, so that each #if branch of
    // the kernels compiles here too: the surface estimator with isosurface shapes (its
    // megakernel and stage kernels cover every WARPATH_ISOSURFACE_SHAPES branch), the
    // megakernels, the surface stage list and ReSTIR tracing the compressed 8-wide BVH
    // (WARPATH_WIDE_BVH), and ReSTIR's reservoir formats (every RESTIR_SOA and
    // RESTIR_FULL_SAMPLE branch). The benchmarks' programs (traverse.cu, the volumetric
    // estimator's benchmark variants) are compiled by warpath-bench's kernels_compile test.
    let mut programs = programs();
    programs.extend(variant_programs().into_iter().filter(|(p, _)| {
        ["surface_megakernel", "surface_stages", "volume_megakernel", "restir"].iter().any(|n| p.name.starts_with(n))
    }));
    // WARPATH_NVRTC_PROGRAMS=name,name compiles only the programs whose names start with one
    // of them (a quick check while editing a kernel; CI compiles everything). warpath-bench's
    // test fails on a list that names no program of either crate.
    if let Ok(only) = std::env::var("WARPATH_NVRTC_PROGRAMS") {
        let prefixes: Vec<&str> = only.split(',').map(str::trim).filter(|p| !p.is_empty()).collect();
        programs.retain(|(source, _)| prefixes.iter().any(|prefix| source.name.starts_with(prefix)));
        eprintln!("WARPATH_NVRTC_PROGRAMS={only}: compiling {} program(s) of warpath-cuda", programs.len());
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let problems = compile_problems(&compiler, &target, &programs, threads);
    assert!(problems.is_empty(), "{} problem(s):\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn ptx_fallback_compiles() {
    let Some(compiler) = compiler() else { return };
    let compiler = compiler.with_cache_dir(None);
    let programs = programs();
    let (source, kernels) = programs.iter().find(|(p, _)| p.name == "compaction").expect("compaction.cu");
    let module = compiler.compile(source, &CompileTarget::Ptx { arch: 90 }).expect("PTX for compute_90");
    let ModuleImage::Ptx(ptx) = &module.image else { panic!("expected PTX") };
    for kernel in kernels {
        assert!(ptx.contains(&format!(".entry {kernel}(")), "the PTX lacks `.entry {kernel}(`");
    }
}

#[test]
fn second_compile_comes_from_the_disk_cache() {
    let Some(compiler) = compiler() else { return };
    let dir = std::env::temp_dir().join(format!("warpath-kernel-cache-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let compiler = compiler.with_cache_dir(Some(dir.clone())).with_driver_version(13000);
    let programs = programs();
    let (source, _) = programs.iter().find(|(p, _)| p.name == "film").expect("film.cu");
    let target = CompileTarget::Cubin { arch: 90 };
    let first = compiler.compile(source, &target).expect("compile");
    let CacheUse::Stored(path) = &first.cache else { panic!("first compile should store: {:?}", first.cache) };
    assert!(path.starts_with(&dir) && path.exists());
    let second = compiler.compile(source, &target).expect("cached compile");
    assert_eq!(second.cache, CacheUse::Hit(path.clone()), "the second compile must be a cache hit");
    let (ModuleImage::Cubin(a), ModuleImage::Cubin(b)) = (&first.image, &second.image) else { panic!("CUBINs") };
    assert_eq!(a, b);
    // A different driver version is a different key: compiled again, stored beside.
    let other = compiler.clone().with_driver_version(13010).compile(source, &target).expect("compile");
    assert!(matches!(other.cache, CacheUse::Stored(ref p) if p != path), "{:?}", other.cache);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compile_errors_carry_the_log() {
    let Some(compiler) = compiler() else { return };
    let broken = warpath_cuda::KernelSource {
        name: "broken",
        file_name: "broken.cu",
        source: "extern \"C\" __global__ void broken() { undefined_symbol = 1; }",
        headers: &[],
    };
    let error = compiler.with_cache_dir(None).compile(&broken, &CompileTarget::Cubin { arch: 90 }).unwrap_err();
    let text = error.to_string();
    assert!(text.contains("broken") && text.contains("undefined_symbol"), "{text}");
}

#[test]
fn warnings_reach_the_log() {
    let Some(compiler) = compiler() else { return };
    let noisy = warpath_cuda::KernelSource {
        name: "noisy",
        file_name: "noisy.cu",
        source: "extern \"C\" __global__ void noisy(int* out) { int unused = 3; out[0] = 1; }",
        headers: &[],
    };
    let module = compiler.with_cache_dir(None).compile(&noisy, &CompileTarget::Cubin { arch: 90 }).expect("compiles");
    assert!(module.log.contains("unused"), "a warning must show in the log, so the clean-compile check can fail");
}
