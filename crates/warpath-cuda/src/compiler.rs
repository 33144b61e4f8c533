//! Run-time kernel compilation with NVRTC and the on-disk cache of compiled modules.
//!
//! [`KernelCompiler`] needs only `libnvrtc` (no GPU, no driver): CI uses it to check that
//! every kernel compiles. A [`KernelSource`] is one `.cu` file plus the `.cuh` headers it
//! includes, all embedded in the binary with `include_str!`; the headers are handed to
//! NVRTC as in-memory include files, so nothing is read from disk at run time.
//!
//! Options keep IEEE float semantics (`--ftz=false --prec-div=true --prec-sqrt=true`, no
//! `--use_fast_math`) so that the GPU computes what the CPU reference computes.
//!
//! The cache stores CUBIN (machine code for the device's own `sm_XY`, via `nvrtcGetCUBIN`)
//! or, when this NVRTC does not know the device's architecture, PTX for the newest
//! `compute_XY` it knows (the driver then JIT-compiles it). Files are named by a 128-bit
//! hash of (program name, the source and the headers it includes, the options, the target,
//! the driver version, the NVRTC version, the cudarc and crate versions), so a second run
//! loads without compiling and any change to what a program reads recompiles it, and only
//! it. The headers a program includes are found at key time from the `#include "name"`
//! lines of its source and of every header reached ([`included_headers`]), and NVRTC is
//! handed exactly those: a header the scan missed fails the compile instead of leaving a
//! stale image in the cache. The folder is `$WARPATH_KERNEL_CACHE`
//! (`off` disables the cache), else `$XDG_CACHE_HOME/warpath/kernels`, else
//! `~/.cache/warpath/kernels`. A cache that cannot be read or written never fails a
//! compilation; it is reported in [`CompiledModule::cache`].

use crate::error::{CudaError, CudaResult};
use cudarc::nvrtc::sys as nvrtc;
use std::ffi::{CStr, CString, c_char, c_int};
use std::path::{Path, PathBuf};

/// The cudarc release this crate is built against (part of the cache key).
const CUDARC_VERSION: &str = "0.19";
/// Bumped when the cache's file format or naming changes.
const CACHE_FORMAT: &str = "warpath-kernel-cache-v1";

/// One kernel program: a `.cu` source and the headers it includes (`#include "name"`).
#[derive(Clone, Copy, Debug)]
pub struct KernelSource {
    /// Program name, used in messages and cache file names (e.g. `traverse`).
    pub name: &'static str,
    /// File name of the main source (e.g. `traverse.cu`), shown in compiler messages.
    pub file_name: &'static str,
    /// Contents of the main source.
    pub source: &'static str,
    /// `(include name, contents)` of every header the program may include (a table shared
    /// by every program; [`included_headers`] picks the ones this program reads).
    pub headers: &'static [(&'static str, &'static str)],
}

impl KernelSource {
    /// This program with `prelude` (e.g. `#define`s) before its source, named
    /// `<name><suffix>` (its own module and cache entry). The variant lives as long as the
    /// process; one is made per distinct (name, suffix), later calls return the same one.
    pub fn with_prelude(&self, suffix: &str, prelude: &str) -> KernelSource {
        use std::collections::HashMap;
        use std::sync::{Mutex, OnceLock};
        static VARIANTS: OnceLock<Mutex<HashMap<(String, String), KernelSource>>> = OnceLock::new();
        let key = (self.name.to_string(), format!("{suffix}\u{0}{prelude}"));
        let mut variants = VARIANTS.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
        *variants.entry(key).or_insert_with(|| KernelSource {
            name: Box::leak(format!("{}{suffix}", self.name).into_boxed_str()),
            file_name: self.file_name,
            // `#line 1` keeps the compiler's line numbers those of the file.
            source: Box::leak(format!("{prelude}\n#line 1 \"{}\"\n{}", self.file_name, self.source).into_boxed_str()),
            headers: self.headers,
        })
    }
}

/// The name inside `#include "name"` on `line`, if the line is one (spaces allowed around
/// `#` and `include`; `<...>` includes are the toolkit's, not ours).
fn quoted_include(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start().strip_prefix("include")?.trim_start();
    let rest = rest.strip_prefix('"')?;
    rest.split_once('"').map(|(name, _)| name)
}

/// The headers of `source.headers` that its source includes, directly or through other
/// headers, in the table's order. Every `#include "name"` line counts, also one inside an
/// `#if` (so the set can only be too large, never too small); a name the table lacks is left
/// to NVRTC, which reports it.
pub fn included_headers(source: &KernelSource) -> Vec<(&'static str, &'static str)> {
    let mut reached = vec![false; source.headers.len()];
    let mut pending = vec![source.source];
    while let Some(text) = pending.pop() {
        for name in text.lines().filter_map(quoted_include) {
            if let Some(index) = source.headers.iter().position(|(header, _)| *header == name)
                && !reached[index]
            {
                reached[index] = true;
                pending.push(source.headers[index].1);
            }
        }
    }
    source.headers.iter().zip(reached).filter(|(_, reached)| *reached).map(|(header, _)| *header).collect()
}

/// What NVRTC compiles for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CompileTarget {
    /// Machine code for one architecture, e.g. `sm_90` (compute capability 9.0).
    Cubin { arch: u32 },
    /// PTX for a virtual architecture, e.g. `compute_90`; the driver JIT-compiles it.
    Ptx { arch: u32 },
}

impl CompileTarget {
    /// The `--gpu-architecture` value.
    pub fn gpu_architecture(&self) -> String {
        match self {
            CompileTarget::Cubin { arch } => format!("sm_{arch}"),
            CompileTarget::Ptx { arch } => format!("compute_{arch}"),
        }
    }
}

/// A compiled module image.
#[derive(Clone, Debug)]
pub enum ModuleImage {
    Cubin(Vec<u8>),
    Ptx(String),
}

impl ModuleImage {
    fn bytes(&self) -> &[u8] {
        match self {
            ModuleImage::Cubin(bytes) => bytes,
            ModuleImage::Ptx(text) => text.as_bytes(),
        }
    }
    /// Size of the image in bytes.
    pub fn len(&self) -> usize {
        self.bytes().len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// How the on-disk cache took part in producing a module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CacheUse {
    /// The cache is disabled or has no folder (no `$HOME`).
    Disabled,
    /// Loaded from this file; NVRTC did not run.
    Hit(PathBuf),
    /// Compiled and stored in this file.
    Stored(PathBuf),
    /// Compiled; the cache could not be used (the message says why).
    Failed(String),
}

/// The output of one compilation (or cache hit).
#[derive(Clone, Debug)]
pub struct CompiledModule {
    pub program: &'static str,
    pub target: CompileTarget,
    pub image: ModuleImage,
    /// NVRTC's log (warnings); empty for a clean compile or a cache hit.
    pub log: String,
    pub cache: CacheUse,
}

/// NVRTC front end. Cheap to create; holds no GPU state.
#[derive(Clone, Debug)]
pub struct KernelCompiler {
    nvrtc_version: (i32, i32),
    supported_archs: Vec<u32>,
    driver_version: i32,
    cache_dir: Option<PathBuf>,
    extra_options: Vec<String>,
}

#[cfg(test)]
impl KernelCompiler {
    /// A compiler for cache-key tests: NVRTC 13.0, no cache, nothing loaded.
    pub(crate) fn new_for_tests() -> Self {
        KernelCompiler {
            nvrtc_version: (13, 0),
            supported_archs: vec![75, 80, 86, 89, 90, 100, 120],
            driver_version: 13000,
            cache_dir: None,
            extra_options: vec![],
        }
    }
}

/// An NVRTC program handle, destroyed on drop.
struct Program(nvrtc::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: the handle came from nvrtcCreateProgram and is destroyed once.
            unsafe {
                nvrtc::nvrtcDestroyProgram(&mut self.0);
            }
        }
    }
}

fn nvrtc_status(result: nvrtc::nvrtcResult) -> String {
    // SAFETY: nvrtcGetErrorString returns a static string for any result value.
    let text = unsafe { nvrtc::nvrtcGetErrorString(result) };
    if text.is_null() {
        format!("{result:?}")
    } else {
        // SAFETY: non-null, NUL-terminated static string.
        unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned()
    }
}

fn check(what: &str, result: nvrtc::nvrtcResult) -> CudaResult<()> {
    if result == nvrtc::nvrtcResult::NVRTC_SUCCESS {
        Ok(())
    } else {
        Err(CudaError::NvrtcUnavailable { reason: format!("{what} failed: {}", nvrtc_status(result)) })
    }
}

/// Whether `libnvrtc` can be loaded (without panicking inside cudarc when it cannot).
pub fn nvrtc_available() -> bool {
    // SAFETY: only tries to dlopen the candidate library names.
    unsafe { nvrtc::is_culib_present() }
}

impl KernelCompiler {
    /// Loads NVRTC and reads its version and supported architectures. Uses the default
    /// cache folder (see the module docs). Errors with [`CudaError::NvrtcUnavailable`]
    /// when the library is missing.
    pub fn new() -> CudaResult<Self> {
        if !nvrtc_available() {
            return Err(CudaError::NvrtcUnavailable {
                reason: "no libnvrtc shared library was found on the library search path".into(),
            });
        }
        let guarded = std::panic::catch_unwind(|| -> CudaResult<(i32, i32, Vec<u32>)> {
            let (mut major, mut minor) = (0 as c_int, 0 as c_int);
            // SAFETY: plain out-parameters.
            check("nvrtcVersion", unsafe { nvrtc::nvrtcVersion(&mut major, &mut minor) })?;
            let mut count: c_int = 0;
            // SAFETY: plain out-parameter.
            check("nvrtcGetNumSupportedArchs", unsafe { nvrtc::nvrtcGetNumSupportedArchs(&mut count) })?;
            let mut archs = vec![0 as c_int; count.max(0) as usize];
            if !archs.is_empty() {
                // SAFETY: the buffer holds `count` ints as NVRTC asked.
                check("nvrtcGetSupportedArchs", unsafe { nvrtc::nvrtcGetSupportedArchs(archs.as_mut_ptr()) })?;
            }
            Ok((major, minor, archs.into_iter().filter(|&a| a > 0).map(|a| a as u32).collect()))
        });
        let (major, minor, supported_archs) = match guarded {
            Ok(result) => result?,
            Err(panic) => {
                return Err(CudaError::NvrtcUnavailable {
                    reason: format!("loading NVRTC failed: {}", panic_text(&panic)),
                });
            }
        };
        Ok(KernelCompiler {
            nvrtc_version: (major, minor),
            supported_archs,
            driver_version: 0,
            cache_dir: default_cache_dir(),
            extra_options: Vec::new(),
        })
    }

    /// NVRTC's `(major, minor)` version.
    pub fn nvrtc_version(&self) -> (i32, i32) {
        self.nvrtc_version
    }

    /// Architectures this NVRTC can emit machine code for (e.g. `[75, 80, 86, 89, 90, ...]`).
    pub fn supported_archs(&self) -> &[u32] {
        &self.supported_archs
    }

    /// The driver version that compiled modules will be loaded by (part of the cache key;
    /// 0 when compiling without a device).
    pub fn with_driver_version(mut self, driver_version: i32) -> Self {
        self.driver_version = driver_version;
        self
    }

    /// Overrides the cache folder (`None` disables the cache).
    pub fn with_cache_dir(mut self, cache_dir: Option<PathBuf>) -> Self {
        self.cache_dir = cache_dir;
        self
    }

    /// Adds options after the defaults (e.g. `-DWARPATH_DEBUG=1`).
    pub fn with_extra_options(mut self, options: &[&str]) -> Self {
        self.extra_options.extend(options.iter().map(|s| s.to_string()));
        self
    }

    /// The cache folder in use, if any.
    pub fn cache_dir(&self) -> Option<&Path> {
        self.cache_dir.as_deref()
    }

    /// The target for a device of compute capability `(major, minor)`: its own `sm_XY` when
    /// this NVRTC supports it, else PTX for the newest older architecture it supports.
    pub fn target_for(&self, compute_capability: (i32, i32)) -> CudaResult<CompileTarget> {
        let wanted = (compute_capability.0.max(0) * 10 + compute_capability.1.max(0)) as u32;
        if self.supported_archs.is_empty() || self.supported_archs.contains(&wanted) {
            return Ok(CompileTarget::Cubin { arch: wanted });
        }
        match self.supported_archs.iter().copied().filter(|&a| a <= wanted).max() {
            Some(arch) => Ok(CompileTarget::Ptx { arch }),
            None => Err(CudaError::NvrtcUnavailable {
                reason: format!(
                    "NVRTC {}.{} supports architectures {:?}, none at or below the device's sm_{wanted}",
                    self.nvrtc_version.0, self.nvrtc_version.1, self.supported_archs
                ),
            }),
        }
    }

    /// The full NVRTC option list for a target.
    pub fn options(&self, target: &CompileTarget) -> Vec<String> {
        let mut options = vec![
            format!("--gpu-architecture={}", target.gpu_architecture()),
            "-std=c++17".to_string(),
            "-lineinfo".to_string(),
            "--ftz=false".to_string(),
            "--prec-div=true".to_string(),
            "--prec-sqrt=true".to_string(),
            "--fmad=true".to_string(),
        ];
        options.extend(self.extra_options.iter().cloned());
        options
    }

    /// Hex key naming the cached image of `source` for `target`.
    pub fn cache_key(&self, source: &KernelSource, target: &CompileTarget) -> String {
        let mut hasher = Fnv128::new();
        hasher.field(CACHE_FORMAT.as_bytes());
        hasher.field(CUDARC_VERSION.as_bytes());
        hasher.field(env!("CARGO_PKG_VERSION").as_bytes());
        hasher.field(source.name.as_bytes());
        hasher.field(source.file_name.as_bytes());
        hasher.field(source.source.as_bytes());
        for (name, contents) in included_headers(source) {
            hasher.field(name.as_bytes());
            hasher.field(contents.as_bytes());
        }
        for option in self.options(target) {
            hasher.field(option.as_bytes());
        }
        hasher.field(target.gpu_architecture().as_bytes());
        hasher.field(&self.driver_version.to_le_bytes());
        hasher.field(&self.nvrtc_version.0.to_le_bytes());
        hasher.field(&self.nvrtc_version.1.to_le_bytes());
        hasher.hex()
    }

    fn cache_path(&self, source: &KernelSource, target: &CompileTarget) -> Option<PathBuf> {
        let extension = match target {
            CompileTarget::Cubin { .. } => "cubin",
            CompileTarget::Ptx { .. } => "ptx",
        };
        self.cache_dir.as_ref().map(|dir| {
            dir.join(format!(
                "{}-{}-{}.{extension}",
                source.name,
                target.gpu_architecture(),
                self.cache_key(source, target)
            ))
        })
    }

    /// Compiles `sources` for `target` on `threads` threads at once (into the cache, when
    /// there is one) and keeps `keep(module)` of each. Returns, per program in order, the
    /// seconds it took and what was kept, or the error.
    pub fn compile_many<T: Send>(
        &self,
        sources: &[KernelSource],
        target: &CompileTarget,
        threads: usize,
        keep: impl Fn(CompiledModule) -> T + Sync,
    ) -> Vec<(&'static str, f64, CudaResult<T>)> {
        let next = std::sync::atomic::AtomicUsize::new(0);
        let results = std::sync::Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            for _ in 0..threads.clamp(1, sources.len().max(1)) {
                scope.spawn(|| {
                    loop {
                        let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(source) = sources.get(index) else { break };
                        let start = std::time::Instant::now();
                        let outcome = self.compile(source, target).map(&keep);
                        let seconds = start.elapsed().as_secs_f64();
                        results.lock().unwrap_or_else(|p| p.into_inner()).push((index, source.name, seconds, outcome));
                    }
                });
            }
        });
        let mut results = results.into_inner().unwrap_or_else(|p| p.into_inner());
        results.sort_by_key(|r| r.0);
        results.into_iter().map(|(_, name, seconds, outcome)| (name, seconds, outcome)).collect()
    }

    /// Compiles `source` for `target`, or loads it from the cache.
    pub fn compile(&self, source: &KernelSource, target: &CompileTarget) -> CudaResult<CompiledModule> {
        let path = self.cache_path(source, target);
        if let Some(path) = &path
            && let Ok(bytes) = std::fs::read(path)
            && !bytes.is_empty()
        {
            let image = match target {
                CompileTarget::Cubin { .. } => Some(ModuleImage::Cubin(bytes)),
                CompileTarget::Ptx { .. } => String::from_utf8(bytes).ok().map(ModuleImage::Ptx),
            };
            if let Some(image) = image {
                return Ok(CompiledModule {
                    program: source.name,
                    target: target.clone(),
                    image,
                    log: String::new(),
                    cache: CacheUse::Hit(path.clone()),
                });
            }
        }
        let mut module = self.compile_uncached(source, target)?;
        module.cache = match &path {
            None => CacheUse::Disabled,
            Some(path) => match store_atomically(path, module.image.bytes()) {
                Ok(()) => CacheUse::Stored(path.clone()),
                Err(message) => CacheUse::Failed(message),
            },
        };
        Ok(module)
    }

    /// Removes the cached image of `source` (e.g. one the driver refused to load).
    pub fn evict(&self, source: &KernelSource, target: &CompileTarget) {
        if let Some(path) = self.cache_path(source, target) {
            let _ = std::fs::remove_file(path);
        }
    }

    /// Compiles `source` for `target` with NVRTC, ignoring the cache.
    pub fn compile_uncached(&self, source: &KernelSource, target: &CompileTarget) -> CudaResult<CompiledModule> {
        let options = self.options(target);
        let result = std::panic::catch_unwind(|| self.run_nvrtc(source, target, &options));
        let (image, log) = match result {
            Ok(result) => result?,
            Err(panic) => {
                return Err(CudaError::NvrtcUnavailable {
                    reason: format!("NVRTC call failed while compiling `{}`: {}", source.name, panic_text(&panic)),
                });
            }
        };
        Ok(CompiledModule { program: source.name, target: target.clone(), image, log, cache: CacheUse::Disabled })
    }

    fn run_nvrtc(
        &self,
        source: &KernelSource,
        target: &CompileTarget,
        options: &[String],
    ) -> CudaResult<(ModuleImage, String)> {
        let invalid =
            |what: &str| CudaError::InvalidArgument(format!("{what} of `{}` contains a NUL byte", source.name));
        let source_text = CString::new(source.source).map_err(|_| invalid("source"))?;
        let file_name = CString::new(source.file_name).map_err(|_| invalid("file name"))?;
        // Exactly the headers the cache key hashes.
        let headers = included_headers(source);
        let header_texts: Vec<CString> = headers
            .iter()
            .map(|(_, text)| CString::new(*text))
            .collect::<Result<_, _>>()
            .map_err(|_| invalid("a header"))?;
        let header_names: Vec<CString> = headers
            .iter()
            .map(|(name, _)| CString::new(*name))
            .collect::<Result<_, _>>()
            .map_err(|_| invalid("a header name"))?;
        let header_text_ptrs: Vec<*const c_char> = header_texts.iter().map(|s| s.as_ptr()).collect();
        let header_name_ptrs: Vec<*const c_char> = header_names.iter().map(|s| s.as_ptr()).collect();
        let option_texts: Vec<CString> = options
            .iter()
            .map(|o| CString::new(o.as_str()))
            .collect::<Result<_, _>>()
            .map_err(|_| invalid("an option"))?;
        let option_ptrs: Vec<*const c_char> = option_texts.iter().map(|s| s.as_ptr()).collect();

        let mut program = Program(std::ptr::null_mut());
        // SAFETY: every pointer is a live NUL-terminated string for the duration of the call;
        // the arrays hold `headers.len()` entries each.
        check("nvrtcCreateProgram", unsafe {
            nvrtc::nvrtcCreateProgram(
                &mut program.0,
                source_text.as_ptr(),
                file_name.as_ptr(),
                header_text_ptrs.len() as c_int,
                if header_text_ptrs.is_empty() { std::ptr::null() } else { header_text_ptrs.as_ptr() },
                if header_name_ptrs.is_empty() { std::ptr::null() } else { header_name_ptrs.as_ptr() },
            )
        })?;
        // SAFETY: program is valid; option pointers are live.
        let status = unsafe { nvrtc::nvrtcCompileProgram(program.0, option_ptrs.len() as c_int, option_ptrs.as_ptr()) };
        let log = program_log(&program);
        if status != nvrtc::nvrtcResult::NVRTC_SUCCESS {
            return Err(CudaError::Compile {
                program: source.name.to_string(),
                arch: target.gpu_architecture(),
                status: nvrtc_status(status),
                options: options.to_vec(),
                log,
            });
        }
        let image = match target {
            CompileTarget::Cubin { .. } => {
                let mut size = 0usize;
                // SAFETY: program compiled successfully.
                check("nvrtcGetCUBINSize", unsafe { nvrtc::nvrtcGetCUBINSize(program.0, &mut size) })?;
                let mut bytes = vec![0u8; size];
                // SAFETY: the buffer holds `size` bytes as NVRTC asked.
                check("nvrtcGetCUBIN", unsafe { nvrtc::nvrtcGetCUBIN(program.0, bytes.as_mut_ptr() as *mut c_char) })?;
                ModuleImage::Cubin(bytes)
            }
            CompileTarget::Ptx { .. } => {
                let mut size = 0usize;
                // SAFETY: program compiled successfully.
                check("nvrtcGetPTXSize", unsafe { nvrtc::nvrtcGetPTXSize(program.0, &mut size) })?;
                let mut bytes = vec![0u8; size];
                // SAFETY: the buffer holds `size` bytes as NVRTC asked.
                check("nvrtcGetPTX", unsafe { nvrtc::nvrtcGetPTX(program.0, bytes.as_mut_ptr() as *mut c_char) })?;
                while bytes.last() == Some(&0) {
                    bytes.pop();
                }
                ModuleImage::Ptx(String::from_utf8_lossy(&bytes).into_owned())
            }
        };
        Ok((image, log))
    }
}

fn program_log(program: &Program) -> String {
    let mut size = 0usize;
    // SAFETY: program is valid.
    if unsafe { nvrtc::nvrtcGetProgramLogSize(program.0, &mut size) } != nvrtc::nvrtcResult::NVRTC_SUCCESS || size == 0
    {
        return String::new();
    }
    let mut bytes = vec![0u8; size];
    // SAFETY: buffer of the size NVRTC asked for.
    if unsafe { nvrtc::nvrtcGetProgramLog(program.0, bytes.as_mut_ptr() as *mut c_char) }
        != nvrtc::nvrtcResult::NVRTC_SUCCESS
    {
        return String::new();
    }
    while bytes.last() == Some(&0) {
        bytes.pop();
    }
    String::from_utf8_lossy(&bytes).trim().to_string()
}

/// The default cache folder (see the module docs), or `None` when disabled or unknown.
pub fn default_cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("WARPATH_KERNEL_CACHE") {
        let text = dir.to_string_lossy();
        if text.is_empty() || text == "off" || text == "0" {
            return None;
        }
        return Some(PathBuf::from(dir));
    }
    if let Some(xdg) = std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(xdg).join("warpath").join("kernels"));
    }
    std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|home| PathBuf::from(home).join(".cache/warpath/kernels"))
}

/// Writes `bytes` to a temporary file beside `path` and renames it into place, so a reader
/// never sees a half-written image (several processes may compile at once).
fn store_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = path.parent().ok_or_else(|| format!("{} has no parent folder", path.display()))?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let temporary = path.with_extension(format!("tmp.{}", std::process::id()));
    std::fs::write(&temporary, bytes).map_err(|e| format!("cannot write {}: {e}", temporary.display()))?;
    std::fs::rename(&temporary, path).map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        format!("cannot rename {} to {}: {e}", temporary.display(), path.display())
    })
}

pub(crate) fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(text) = panic.downcast_ref::<&str>() {
        text.to_string()
    } else if let Some(text) = panic.downcast_ref::<String>() {
        text.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// Two FNV-1a 64-bit hashes with different offset bases: a stable 128-bit key (std's
/// hashers are not stable across Rust releases). Each field is length-prefixed.
struct Fnv128 {
    low: u64,
    high: u64,
}

impl Fnv128 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    fn new() -> Self {
        Fnv128 { low: 0xcbf2_9ce4_8422_2325, high: 0x6c62_272e_07bb_0142 }
    }
    fn bytes(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.low = (self.low ^ byte as u64).wrapping_mul(Self::PRIME);
            self.high = (self.high ^ byte as u64).wrapping_mul(Self::PRIME);
        }
    }
    fn field(&mut self, bytes: &[u8]) {
        self.bytes(&(bytes.len() as u64).to_le_bytes());
        self.bytes(bytes);
    }
    fn hex(&self) -> String {
        format!("{:016x}{:016x}", self.high, self.low)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: KernelSource = KernelSource {
        name: "probe",
        file_name: "probe.cu",
        source: "#include \"a.cuh\"\nextern \"C\" __global__ void probe(int* out) { *out = A; }",
        headers: &[("a.cuh", "#define A 1")],
    };

    fn compiler() -> KernelCompiler {
        KernelCompiler {
            nvrtc_version: (13, 0),
            supported_archs: vec![75, 80, 86, 89, 90, 100, 120],
            driver_version: 13000,
            cache_dir: None,
            extra_options: vec![],
        }
    }

    #[test]
    fn cache_key_changes_with_every_input() {
        let base = compiler();
        let target = CompileTarget::Cubin { arch: 90 };
        let key = base.cache_key(&SOURCE, &target);
        assert_eq!(key.len(), 32);
        assert_eq!(key, base.cache_key(&SOURCE, &target), "the key must be deterministic");
        let other_header = KernelSource { headers: &[("a.cuh", "#define A 2")], ..SOURCE };
        assert_ne!(key, base.cache_key(&other_header, &target), "a header change must change the key");
        let other_source = KernelSource { source: "extern \"C\" __global__ void probe(int*) {}", ..SOURCE };
        assert_ne!(key, base.cache_key(&other_source, &target));
        assert_ne!(key, base.cache_key(&SOURCE, &CompileTarget::Cubin { arch: 89 }));
        assert_ne!(key, base.clone().with_driver_version(12080).cache_key(&SOURCE, &target));
        assert_ne!(key, base.clone().with_extra_options(&["-DX=1"]).cache_key(&SOURCE, &target));
    }

    /// a.cuh includes b.cuh (and itself, through b: the scan must stop); c.cuh is in the table
    /// but not included.
    const CHAIN: KernelSource = KernelSource {
        name: "chain",
        file_name: "chain.cu",
        source: "// #include \"c.cuh\" is a comment\n#include <cstdio>\n  #  include \"a.cuh\"\nextern \"C\" __global__ void chain() {}",
        headers: &[
            ("c.cuh", "#define C 3"),
            ("a.cuh", "#include \"b.cuh\"\n#define A 1"),
            ("b.cuh", "#if 0\n#include \"a.cuh\"\n#endif"),
        ],
    };

    #[test]
    fn included_headers_follow_includes_transitively() {
        let names: Vec<&str> = included_headers(&CHAIN).into_iter().map(|(name, _)| name).collect();
        assert_eq!(names, ["a.cuh", "b.cuh"]);
        assert_eq!(quoted_include("#include \"x/y.cuh\" // why"), Some("x/y.cuh"));
        assert_eq!(quoted_include("#include <cub/cub.cuh>"), None);
        assert_eq!(quoted_include("#pragma once"), None);
    }

    #[test]
    fn only_included_headers_change_the_key() {
        let compiler = compiler();
        let target = CompileTarget::Cubin { arch: 90 };
        let key = compiler.cache_key(&CHAIN, &target);
        let with = |headers: &'static [(&'static str, &'static str)]| {
            compiler.cache_key(&KernelSource { headers, ..CHAIN }, &target)
        };
        let not_included = with(&[
            ("c.cuh", "#define C 4"),
            ("a.cuh", "#include \"b.cuh\"\n#define A 1"),
            ("b.cuh", "#if 0\n#include \"a.cuh\"\n#endif"),
        ]);
        assert_eq!(key, not_included, "a header the program does not include must not change its key");
        let through_a =
            with(&[("c.cuh", "#define C 3"), ("a.cuh", "#include \"b.cuh\"\n#define A 1"), ("b.cuh", "#define B 2")]);
        assert_ne!(key, through_a, "a header included through another must change the key");
        let direct = with(&[
            ("c.cuh", "#define C 3"),
            ("a.cuh", "#include \"b.cuh\"\n#define A 2"),
            ("b.cuh", "#if 0\n#include \"a.cuh\"\n#endif"),
        ]);
        assert_ne!(key, direct, "a header included directly must change the key");
    }

    /// On the real programs: editing the compaction header recompiles compaction.cu and the
    /// schedules (which compact in-kernel), not the film merge.
    #[test]
    fn a_compaction_change_does_not_recompile_the_film_merge() {
        use crate::kernels::{COMPACTION, FILM, HEADERS, SURFACE_MEGAKERNEL, SURFACE_WAVEFRONT};
        let edited: &'static [(&'static str, &'static str)] = Box::leak(
            HEADERS
                .iter()
                .map(|&(name, text)| (name, if name == "compaction/compaction.cuh" { "// edited" } else { text }))
                .collect::<Vec<_>>()
                .into_boxed_slice(),
        );
        assert!(HEADERS.iter().any(|(name, _)| *name == "compaction/compaction.cuh"));
        let compiler = compiler();
        let target = CompileTarget::Cubin { arch: 90 };
        let changes = |source: KernelSource| {
            compiler.cache_key(&source, &target)
                != compiler.cache_key(&KernelSource { headers: edited, ..source }, &target)
        };
        assert!(!changes(FILM), "film.cu does not include compaction.cuh");
        assert!(changes(COMPACTION));
        assert!(changes(SURFACE_WAVEFRONT), "the schedules include it through schedules/schedule.cuh");
        let megakernel: Vec<&str> = included_headers(&SURFACE_MEGAKERNEL).into_iter().map(|(name, _)| name).collect();
        assert!(
            megakernel.contains(&"traversal/traversal.cuh") && megakernel.contains(&"common/layout.cuh"),
            "{megakernel:?}"
        );
    }

    #[test]
    fn target_prefers_own_architecture_and_falls_back_to_ptx() {
        let compiler = compiler();
        assert_eq!(compiler.target_for((9, 0)).unwrap(), CompileTarget::Cubin { arch: 90 });
        assert_eq!(compiler.target_for((9, 5)).unwrap(), CompileTarget::Ptx { arch: 90 });
        assert!(compiler.target_for((5, 0)).is_err());
        let options = compiler.options(&CompileTarget::Cubin { arch: 90 });
        assert!(options.contains(&"--gpu-architecture=sm_90".to_string()));
        assert!(!options.iter().any(|o| o.contains("fast_math")), "IEEE math by default: {options:?}");
    }
}
