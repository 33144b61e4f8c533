//! Compiles every embedded kernel program with NVRTC for sm_90 (H100/H200) — no GPU needed —
//! and checks that it compiles without warnings and defines every kernel the Rust side
//! launches. Skips with a notice when libnvrtc cannot be loaded, unless
//! `WARPATH_REQUIRE_NVRTC=1` (CI's `.ci/nvrtc-check` sets it), where that is a failure.
//! `WARPATH_NVRTC_PROGRAMS=traverse,surface_megakernel` compiles only the programs whose names
//! start with one of the given prefixes (a quick check of the programs one has touched).

use warpath_cuda::compiler::{CacheUse, CompileTarget, KernelCompiler, ModuleImage};
use warpath_cuda::programs::programs;

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

/// Whether `name` appears as a NUL-terminated symbol name in the CUBIN's string tables.
fn cubin_defines(cubin: &[u8], name: &str) -> bool {
    let mut needle = name.as_bytes().to_vec();
    needle.push(0);
    cubin.windows(needle.len()).any(|window| window == needle.as_slice())
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
    // CI time on two cores. Plus the volumetric estimator's megakernel in every benchmark variant (3D-texture grid
    // fetches, register caps), so that each #if branch of the kernels compiles here too.
    let mut programs = programs();
    programs.extend(
        warpath_cuda::programs::variant_programs().into_iter().filter(|(p, _)| p.name.starts_with("volume_megakernel")),
    );
    // And the surface estimator with isosurface shapes (its megakernel and stage kernels
    // cover every WARPATH_ISOSURFACE_SHAPES branch).
    programs.extend(
        warpath_cuda::programs::isosurface_shape_programs()
            .into_iter()
            .filter(|(p, _)| p.name.starts_with("surface_megakernel") || p.name.starts_with("surface_stages")),
    );
    // And the programs tracing the compressed 8-wide BVH (WARPATH_WIDE_BVH): the surface
    // megakernel and stage list (the volumetric megakernel's came with the variants; ReSTIR's is a default program).
    programs.extend(warpath_cuda::programs::wide_bvh_programs().into_iter().filter(|(p, _)| {
        p.name.starts_with("surface_megakernel") || p.name.starts_with("surface_stages") || p.name.starts_with("restir")
    }));
    // And ReSTIR's reservoir formats (every RESTIR_SOA and RESTIR_FULL_SAMPLE branch).
    for program in warpath_cuda::restir::variant_programs() {
        programs.push((program, warpath_cuda::catalog::kernels_of(warpath_cuda::kernels::Program::Restir)));
    }
    // WARPATH_NVRTC_PROGRAMS=name,name compiles only the programs whose names start with one
    // of them (a quick check while editing a kernel; CI compiles everything).
    if let Ok(only) = std::env::var("WARPATH_NVRTC_PROGRAMS") {
        let prefixes: Vec<&str> = only.split(',').map(str::trim).filter(|p| !p.is_empty()).collect();
        programs.retain(|(source, _)| prefixes.iter().any(|prefix| source.name.starts_with(prefix)));
        eprintln!("WARPATH_NVRTC_PROGRAMS={only}: compiling {} program(s)", programs.len());
        assert!(!programs.is_empty(), "WARPATH_NVRTC_PROGRAMS={only} names no program");
    }
    let sources: Vec<_> = programs.iter().map(|(source, _)| *source).collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut failures = Vec::new();
    let compiled = compiler.compile_many(&sources, &target, threads, |module| module);
    for ((source, kernels), (_, _, outcome)) in programs.iter().zip(compiled) {
        match outcome {
            Err(error) => failures.push(format!("{}: {error}", source.file_name)),
            Ok(module) => {
                if !module.log.is_empty() {
                    failures.push(format!("{} compiled with messages:\n{}", source.file_name, module.log));
                }
                match &module.image {
                    ModuleImage::Cubin(cubin) => {
                        eprintln!("{}: {} bytes of sm_90 CUBIN", source.file_name, cubin.len());
                        for kernel in kernels {
                            if !cubin_defines(cubin, kernel) {
                                failures.push(format!("{} does not define kernel `{kernel}`", source.file_name));
                            }
                        }
                    }
                    _ => failures.push(format!("{}: expected a CUBIN", source.file_name)),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} problem(s):\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn ptx_fallback_compiles() {
    let Some(compiler) = compiler() else { return };
    let compiler = compiler.with_cache_dir(None);
    let programs = programs();
    let (source, kernels) = &programs[1];
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
    let (source, _) = &programs[0];
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
