//! Compiles the CUDA estimator headers as host C++ (cpp/lockstep.cpp through
//! cpp/cuda_host_shim.h) into two static libraries that the lockstep tests call:
//!
//! * `reference`: the headers of crates/warpath-cuda/kernels as they are;
//! * `mutable`: copies of the float headers (MUTABLE_HEADERS) in which every rounded
//!   operation (`__fadd_rn(`, `__fsub_rn(`, `__fmul_rn(`, `__fdiv_rn(`, `__fsqrt_rn(`) is
//!   numbered and routed through a hook that can move its result one ulp up at run time
//!   (the harness's own test: every such one-ulp drift must be caught). The sites are
//!   listed in `$OUT_DIR/mutation_sites.rs`.
//!
//! * `basic`: the headers as they are, compiled for no optional material feature
//!   (`WARPATH_MATERIAL_FEATURES=0`, the GPU's "basic" programs), which must compute what the
//!   reference computes on scenes whose materials need none.
//!
//! And `wide`: cpp/wide.cpp, traversal/wide.cuh (the 8-wide BVH traversal) as it is.
//!
//! The compiler is `$CXX`, else `g++`; a missing compiler fails the build with a message,
//! never skips the tests. Flags keep the host arithmetic exactly that of the device
//! functions: no contraction into FMAs, no fast-math, SSE floats, no libm call merging.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};

/// The headers whose rounded operations the `mutable` variant can perturb.
const MUTABLE_HEADERS: &[&str] = &[
    "common/bsdf.cuh",
    "common/principled.cuh",
    "common/conductor.cuh",
    "common/beckmann.cuh",
    "common/warp.cuh",
    "common/lights.cuh",
    "common/camera.cuh",
    "common/math.cuh",
    "common/normal_map.cuh",
    "common/bump_map.cuh",
    "common/opacity.cuh",
    "common/detmath.cuh",
    "volume/medium.cuh",
    "volume/estimator.cuh",
];

/// The rounded intrinsics a mutation site wraps.
const ROUNDED_OPERATIONS: &[&str] = &["__fadd_rn", "__fsub_rn", "__fmul_rn", "__fdiv_rn", "__fsqrt_rn"];

/// The exact-arithmetic flags (see the module comment and cpp/cuda_host_shim.h).
const CXX_FLAGS: &[&str] = &[
    "-std=c++17",
    "-O2",
    "-fPIC",
    "-ffp-contract=off",
    "-fno-fast-math",
    "-msse2",
    "-mfpmath=sse",
    "-fno-builtin",
    "-fno-exceptions",
    "-fno-rtti",
    "-Wall",
    "-Wextra",
    // CUDA's `#pragma unroll` means nothing to g++.
    "-Wno-unknown-pragmas",
    // volume/medium.cuh's Tracker leaves its MajorantWalk unset for homogeneous media and
    // reads it only behind `has_walk`; g++ cannot see that through the inlined loop.
    "-Wno-maybe-uninitialized",
];

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let cpp = manifest.join("cpp");
    let kernels = manifest.join("../warpath-cuda/kernels");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={}", cpp.display());
    for file in files_under(&cpp).into_iter().chain(files_under(&kernels)) {
        println!("cargo:rerun-if-changed={}", file.display());
    }
    println!("cargo:rerun-if-env-changed=CXX");

    let compiler = std::env::var("CXX").unwrap_or_else(|_| "g++".to_string());
    require_compiler(&compiler);

    let mutable_include = out_dir.join("mutable");
    let sites = write_mutable_headers(&kernels, &mutable_include);
    std::fs::write(out_dir.join("mutation_sites.rs"), sites_table(&sites)).expect("writing mutation_sites.rs");

    let source = cpp.join("lockstep.cpp");
    let reference = compile(&compiler, &source, &out_dir.join("reference.o"), &[&cpp, &kernels], &["reference"]);
    let mutable = compile(
        &compiler,
        &source,
        &out_dir.join("mutable.o"),
        &[&mutable_include, &cpp, &kernels],
        &["mutable", "WARPATH_LOCKSTEP_MUTABLE"],
    );
    let basic = compile(
        &compiler,
        &source,
        &out_dir.join("basic.o"),
        &[&cpp, &kernels],
        &["basic", "WARPATH_MATERIAL_FEATURES=0"],
    );
    let wide = compile(&compiler, &cpp.join("wide.cpp"), &out_dir.join("wide.o"), &[&cpp, &kernels], &["wide"]);
    for (name, child) in [("reference", reference), ("mutable", mutable), ("basic", basic), ("wide", wide)] {
        finish(&compiler, name, child);
        archive(&out_dir, name);
        println!("cargo:rustc-link-lib=static=warpath_lockstep_{name}");
    }
    println!("cargo:rustc-link-search=native={}", out_dir.display());
    println!("cargo:rustc-link-lib=m");
}

/// Every file below `dir`, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        let entries = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("reading {}: {e}", d.display()));
        for entry in entries {
            let path = entry.expect("directory entry").path();
            if path.is_dir() { pending.push(path) } else { files.push(path) }
        }
    }
    files.sort();
    files
}

fn require_compiler(compiler: &str) {
    let found = Command::new(compiler).arg("--version").output().map(|o| o.status.success()).unwrap_or(false);
    if !found {
        panic!(
            "\n\nwarpath-lockstep compiles the CUDA estimator headers as host C++ and needs a C++17 compiler, \
             but `{compiler} --version` did not run.\nInstall g++ (Debian/Ubuntu: apt-get install g++) or set \
             CXX to another GCC-compatible compiler. The lockstep tests are part of CI and are not skipped.\n\n"
        );
    }
}

/// One numbered rounded operation of a mutable header.
struct Site {
    header: &'static str,
    line: usize,
    operation: &'static str,
    code: String,
    compared_with_zero: bool,
}

/// Copies MUTABLE_HEADERS under `include`, numbering every rounded operation outside comments.
fn write_mutable_headers(kernels: &Path, include: &Path) -> Vec<Site> {
    let mut sites = Vec::new();
    for &header in MUTABLE_HEADERS {
        let text = std::fs::read_to_string(kernels.join(header)).unwrap_or_else(|e| panic!("reading {header}: {e}"));
        let mut rewritten = String::with_capacity(text.len() * 2);
        for (line_index, line) in text.lines().enumerate() {
            let (code, comment) = match line.find("//") {
                Some(at) => line.split_at(at),
                None => (line, ""),
            };
            let mut done = 0;
            while let Some((at, operation)) = next_operation(&code[done..]) {
                let at = done + at;
                rewritten.push_str(&code[done..at]);
                let hook = operation.replacen("__", "lockstep_mutable_", 1);
                write!(rewritten, "{hook}({}, ", sites.len()).unwrap();
                sites.push(Site {
                    header,
                    line: line_index + 1,
                    operation,
                    code: line.trim().to_string(),
                    compared_with_zero: is_compared_with_zero(code, at + operation.len()),
                });
                done = at + operation.len() + 1;
            }
            rewritten.push_str(&code[done..]);
            rewritten.push_str(comment);
            rewritten.push('\n');
        }
        let target = include.join(header);
        std::fs::create_dir_all(target.parent().unwrap()).expect("creating the mutable include folder");
        std::fs::write(&target, rewritten).unwrap_or_else(|e| panic!("writing {}: {e}", target.display()));
    }
    sites
}

/// The first `operation(` in `code`: its byte offset and the operation.
fn next_operation(code: &str) -> Option<(usize, &'static str)> {
    ROUNDED_OPERATIONS
        .iter()
        .filter_map(|&operation| code.find(&format!("{operation}(")).map(|at| (at, operation)))
        .min_by_key(|&(at, _)| at)
}

/// Whether the call whose `(` is at `open` is directly compared with zero (`call(...) > 0.0f`,
/// `<=`, ...): one ulp up changes such a comparison only where the exact result is ±0.
fn is_compared_with_zero(code: &str, open: usize) -> bool {
    let mut depth = 0;
    for (i, c) in code[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    let after = code[open + i + 1..].trim_start();
                    let operand = ["<=", ">=", "==", "<", ">"]
                        .iter()
                        .find_map(|op| after.strip_prefix(op))
                        .map(|rest| rest.trim_start());
                    return operand.is_some_and(|rest| {
                        rest.strip_prefix("0.0f").is_some_and(|tail| !tail.starts_with(|c: char| c.is_alphanumeric()))
                    });
                }
            }
            _ => {}
        }
    }
    false
}

fn sites_table(sites: &[Site]) -> String {
    let mut table =
        String::from("/// Generated by build.rs: the rounded operations of the mutable headers, by site number.\n");
    table.push_str("pub const MUTATION_SITES: &[MutationSite] = &[\n");
    for site in sites {
        writeln!(
            table,
            "    MutationSite {{ header: {:?}, line: {}, operation: {:?}, code: {:?}, compared_with_zero: {} }},",
            site.header, site.line, site.operation, site.code, site.compared_with_zero
        )
        .unwrap();
    }
    table.push_str("];\n");
    table
}

fn compile(compiler: &str, source: &Path, object: &Path, includes: &[&Path], defines: &[&str]) -> Child {
    let mut command = Command::new(compiler);
    command.args(CXX_FLAGS);
    for include in includes {
        command.arg("-I").arg(include);
    }
    command.arg(format!("-DWARPATH_LOCKSTEP_VARIANT={}", defines[0]));
    for define in &defines[1..] {
        command.arg(format!("-D{define}"));
    }
    command.arg("-c").arg(source).arg("-o").arg(object);
    command.stderr(std::process::Stdio::piped());
    command.spawn().unwrap_or_else(|e| panic!("starting {compiler}: {e}"))
}

fn finish(compiler: &str, name: &str, child: Child) {
    let output = child.wait_with_output().unwrap_or_else(|e| panic!("waiting for {compiler}: {e}"));
    let messages = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        panic!("{compiler} failed to compile the {name} library (cpp/lockstep.cpp or cpp/wide.cpp):\n{messages}");
    }
    for line in messages.lines() {
        println!("cargo:warning={name}: {line}");
    }
}

fn archive(out_dir: &Path, name: &str) {
    let library = out_dir.join(format!("libwarpath_lockstep_{name}.a"));
    let _ = std::fs::remove_file(&library);
    let status = Command::new("ar")
        .arg("crs")
        .arg(&library)
        .arg(out_dir.join(format!("{name}.o")))
        .status()
        .unwrap_or_else(|e| panic!("running ar (binutils): {e}"));
    assert!(status.success(), "ar failed to archive {name}.o");
}
