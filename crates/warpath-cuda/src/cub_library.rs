//! CUB's `DeviceSelect::Flagged` from `libwarpath_cub.so` (built by nvcc from
//! `cub/warpath_cub.cu` with `cub/build.sh library`), opened at run time: the `cub` method of
//! the isosurface pipeline (issue 14) compacts its rays between stages with it, beside
//! warpath's own compaction. warpath's kernels go through NVRTC, which cannot build CUB's
//! host-side dispatch, and CI has no nvcc; so the library is optional and only this method
//! needs it. It runs in the device's primary context (the one [`CudaDevice`] holds), on the
//! device's stream.

use crate::buffer::DeviceBuffer;
use crate::error::{CudaError, CudaResult};
use crate::runtime::CudaDevice;
use std::ffi::{CStr, c_char, c_int, c_uint, c_void};
use std::path::{Path, PathBuf};

/// The environment variable naming the library when no path is given.
pub const CUB_LIBRARY_ENV: &str = "WARPATH_CUB_LIB";
/// The interface version this code speaks (`warpath_cub_abi_version`).
const ABI_VERSION: c_int = 1;

type BytesFn = unsafe extern "C" fn(c_uint, *mut usize) -> c_int;
type SelectFn = unsafe extern "C" fn(
    *mut c_void,
    usize,
    *const c_uint,
    *const u8,
    *mut c_uint,
    *mut c_uint,
    c_uint,
    *mut c_void,
) -> c_int;
type ErrorStringFn = unsafe extern "C" fn(c_int) -> *const c_char;

/// The opened library.
pub struct CubLibrary {
    path: PathBuf,
    bytes: BytesFn,
    select: SelectFn,
    error_string: ErrorStringFn,
    /// Kept open while the function pointers above are used.
    _library: libloading::Library,
}

impl std::fmt::Debug for CubLibrary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CubLibrary").field("path", &self.path).finish()
    }
}

/// The message for a missing library, saying how to make one.
fn how_to_build() -> String {
    format!(
        "build it on a machine with the CUDA toolkit with `bash crates/warpath-cuda/cub/build.sh library [OUTPUT]` \
         and pass its path with --cub-lib or {CUB_LIBRARY_ENV}"
    )
}

impl CubLibrary {
    /// Opens the library at `path` and checks its interface version.
    pub fn open(path: &Path) -> CudaResult<CubLibrary> {
        let fail = |message: String| CudaError::InvalidArgument(format!("CUB library {}: {message}", path.display()));
        if !path.is_file() {
            return Err(fail(format!("no such file; {}", how_to_build())));
        }
        // SAFETY: loading runs the library's initialisers: warpath_cub.cu's (CUDA runtime
        // registration of its kernels), which have no other effect.
        let library = unsafe { libloading::Library::new(path) }.map_err(|e| fail(format!("cannot be opened: {e}")))?;
        // SAFETY: the symbols are the extern "C" functions of warpath_cub.cu with exactly
        // these signatures (checked by the ABI version below).
        unsafe {
            let version: libloading::Symbol<unsafe extern "C" fn() -> c_int> = library
                .get(b"warpath_cub_abi_version\0")
                .map_err(|e| fail(format!("not warpath's CUB library ({e})")))?;
            let found = version();
            if found != ABI_VERSION {
                return Err(fail(format!("interface version {found}, this warpath needs {ABI_VERSION}; rebuild it")));
            }
            let symbol = |name: &[u8]| {
                library.get::<*const c_void>(name).map(|s| *s).map_err(|e| fail(format!("missing a function ({e})")))
            };
            let bytes = std::mem::transmute::<*const c_void, BytesFn>(symbol(b"warpath_cub_select_flagged_bytes\0")?);
            let select = std::mem::transmute::<*const c_void, SelectFn>(symbol(b"warpath_cub_select_flagged\0")?);
            let error_string =
                std::mem::transmute::<*const c_void, ErrorStringFn>(symbol(b"warpath_cub_error_string\0")?);
            Ok(CubLibrary { path: path.to_path_buf(), bytes, select, error_string, _library: library })
        }
    }

    /// Opens `path`, or the library that [`CUB_LIBRARY_ENV`] names; an error saying how to
    /// build one when neither is given.
    pub fn open_given(path: Option<&Path>) -> CudaResult<CubLibrary> {
        match path {
            Some(p) => CubLibrary::open(p),
            None => match std::env::var_os(CUB_LIBRARY_ENV) {
                Some(p) if !p.is_empty() => CubLibrary::open(Path::new(&p)),
                _ => Err(CudaError::InvalidArgument(format!(
                    "the `cub` compaction calls CUB through libwarpath_cub.so, and none was given: {}",
                    how_to_build()
                ))),
            },
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn check(&self, what: &str, code: c_int) -> CudaResult<()> {
        if code == 0 {
            return Ok(());
        }
        // SAFETY: cudaGetErrorString returns a static NUL-terminated string for any code.
        let text = unsafe { CStr::from_ptr((self.error_string)(code)) }.to_string_lossy().into_owned();
        Err(CudaError::Kernel {
            kernel: format!("cub::DeviceSelect::Flagged ({what})"),
            message: format!("{text} ({code})"),
        })
    }

    /// Temporary bytes a selection of `n` items needs.
    pub fn flagged_temp_bytes(&self, n: u32) -> CudaResult<usize> {
        let mut bytes = 0usize;
        // SAFETY: a size query; writes one usize.
        let code = unsafe { (self.bytes)(n, &mut bytes) };
        self.check("size query", code)?;
        Ok(bytes)
    }

    /// `output[0..*count) = input[i]` for the `i < n` with `flags[i] != 0`, in order, with the
    /// count written to device address `count`; queued on the device's stream. `temp` holds
    /// [`CubLibrary::flagged_temp_bytes`] of some n' ≥ n (CUB itself reports too little).
    pub fn select_flagged(
        &self,
        device: &CudaDevice,
        temp: &DeviceBuffer<u8>,
        input: &DeviceBuffer<u32>,
        flags: &DeviceBuffer<u8>,
        output: &DeviceBuffer<u32>,
        count: u64,
        n: u32,
    ) -> CudaResult<()> {
        if input.len() < n as usize || flags.len() < n as usize || output.len() < n as usize {
            return Err(CudaError::InvalidArgument(format!(
                "CUB select of {n} items with {} inputs, {} flags, {} outputs",
                input.len(),
                flags.len(),
                output.len()
            )));
        }
        device.context().bind_to_thread().map_err(|e| CudaError::driver("binding the context for CUB", e))?;
        let stream = device.stream().cu_stream() as *mut c_void;
        // SAFETY: every address is a live allocation of this device's context with the room
        // checked above; CUB queues its kernels on the device's stream.
        let code = unsafe {
            (self.select)(
                temp.address(device) as *mut c_void,
                temp.size_bytes(),
                input.address(device) as *const c_uint,
                flags.address(device) as *const u8,
                output.address(device) as *mut c_uint,
                count as *mut c_uint,
                n,
                stream,
            )
        };
        self.check("select", code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_library_says_how_to_build_one() {
        let error = CubLibrary::open(Path::new("/nonexistent/libwarpath_cub.so")).unwrap_err().to_string();
        assert!(error.contains("/nonexistent/libwarpath_cub.so") && error.contains("build.sh library"), "{error}");
    }

    #[test]
    fn a_library_that_is_not_warpaths_is_refused() {
        // Any shared library without warpath_cub_abi_version: the C library itself.
        let libc = ["/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6", "/lib64/libc.so.6"]
            .into_iter()
            .map(Path::new)
            .find(|p| p.is_file());
        let Some(libc) = libc else {
            println!("skipped: no libc.so.6 at the usual paths");
            return;
        };
        let error = CubLibrary::open(libc).unwrap_err().to_string();
        assert!(error.contains("not warpath's CUB library"), "{error}");
    }
}
