//! The CUDA device: opening it (an error, never a crash, on a machine without a driver or a
//! GPU), what it is (name, capability, SMs, memory, driver), its stream, its lazily
//! compiled and cached kernel modules, and the one kernel launch ([`CudaDevice::launch`]:
//! a catalogued kernel with exactly its declared arguments, checked, and timed per kernel
//! into [`KernelTimes`] while [`CudaDevice::timing`] runs).
//!
//! Launch checking: every launch's own result is checked; in debug builds (tests) or with
//! `WARPATH_SYNC_LAUNCHES=1` the stream is also synchronized after each launch so that a
//! fault names the kernel that caused it (`WARPATH_SYNC_LAUNCHES=0` turns that off). A fault
//! found later, at a copy or an explicit [`CudaDevice::synchronize`], names the last kernel
//! launched.

use crate::compiler::{CacheUse, CompileTarget, KernelCompiler, KernelSource, ModuleImage, panic_text};
use crate::error::{CudaError, CudaResult, describe_driver_error, is_out_of_memory, mib};
use crate::kernel::{Kernel, KernelArgs, KernelEntry};
/// The grid and block of a launch (cudarc's), for callers of [`CudaDevice::launch`] in other crates.
pub use cudarc::driver::LaunchConfig;
use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{CudaContext, CudaEvent, CudaFunction, CudaModule, CudaSlice, CudaStream, DriverError};
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

pub use crate::timing::KernelTimes;

/// What a device is.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceInfo {
    pub ordinal: usize,
    pub name: String,
    /// `(major, minor)`, e.g. `(9, 0)` on H100/H200.
    pub compute_capability: (i32, i32),
    pub multiprocessors: u32,
    pub total_memory_bytes: usize,
    /// Free memory when the device was opened.
    pub free_memory_bytes: usize,
    pub l2_cache_bytes: usize,
    /// As `cuDriverGetVersion` reports it, e.g. 13000 for CUDA 13.0.
    pub driver_version: i32,
    /// Shared memory one block may use when the kernel opts in (227 KiB on H100).
    pub max_shared_bytes_per_block_optin: usize,
    /// Whether the device can launch cooperative kernels (all blocks resident at once).
    pub cooperative_launch: bool,
}

impl DeviceInfo {
    /// `"13.0"` for 13000.
    pub fn driver_version_string(&self) -> String {
        format!("{}.{}", self.driver_version / 1000, (self.driver_version % 1000) / 10)
    }
    /// `"sm_90"` for capability 9.0.
    pub fn sm_name(&self) -> String {
        format!("sm_{}{}", self.compute_capability.0, self.compute_capability.1)
    }
}

impl std::fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "GPU {}: {} ({}, {} SMs, {:.0} MiB of which {:.0} MiB free, L2 {:.0} MiB), driver CUDA {}",
            self.ordinal,
            self.name,
            self.sm_name(),
            self.multiprocessors,
            mib(self.total_memory_bytes),
            mib(self.free_memory_bytes),
            mib(self.l2_cache_bytes),
            self.driver_version_string()
        )
    }
}

/// One opened GPU with its stream and its loaded kernel modules.
pub struct CudaDevice {
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    info: DeviceInfo,
    compiler: Mutex<Option<KernelCompiler>>,
    modules: Mutex<HashMap<&'static str, Arc<CudaModule>>>,
    sync_after_launch: AtomicBool,
    last_kernel: Mutex<Option<&'static str>>,
    /// Where launches are timed into while [`CudaDevice::timing`] runs.
    recorder: Mutex<Option<Recorder>>,
}

/// The times being recorded and the current step.
struct Recorder {
    times: KernelTimes,
    step: usize,
    /// Whether each launch is timed (else only the spans of [`CudaDevice::timed`]).
    launches: bool,
}

impl std::fmt::Debug for CudaDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaDevice").field("info", &self.info).finish_non_exhaustive()
    }
}

/// Whether the driver library (`libcuda`) can be loaded at all.
pub fn driver_available() -> bool {
    // SAFETY: only tries to dlopen the candidate library names.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// Runs `f`, turning a panic inside cudarc (a missing library or symbol) into an error.
fn guarded<T>(what: &str, f: impl FnOnce() -> CudaResult<T>) -> CudaResult<T> {
    match std::panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(panic) => Err(CudaError::NoDevice { reason: format!("{what}: {}", panic_text(&panic)) }),
    }
}

fn no_device_reason(error: &DriverError, ordinal: usize) -> Option<String> {
    use cudarc::driver::sys::CUresult as R;
    match error.0 {
        R::CUDA_ERROR_NO_DEVICE => Some("the driver is installed but reports no CUDA-capable device".into()),
        R::CUDA_ERROR_INVALID_DEVICE => Some(format!("there is no device with ordinal {ordinal}")),
        R::CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER => {
            Some("the installed NVIDIA driver is older than this build needs (CUDA 13.0, driver 580+)".into())
        }
        R::CUDA_ERROR_NOT_INITIALIZED
        | R::CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
        | R::CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE => {
            Some(format!("the CUDA driver could not start: {}", describe_driver_error(error)))
        }
        _ => None,
    }
}

impl CudaDevice {
    /// Number of CUDA devices (0 when there is no driver).
    pub fn count() -> CudaResult<usize> {
        if !driver_available() {
            return Ok(0);
        }
        guarded("querying the device count", || {
            cudarc::driver::result::init().map_err(|e| CudaError::driver("cuInit", e))?;
            CudaContext::device_count().map(|n| n.max(0) as usize).map_err(|e| CudaError::driver("cuDeviceGetCount", e))
        })
    }

    /// Opens device `ordinal` (its primary context and a new stream). On a machine without
    /// an NVIDIA driver or GPU this is [`CudaError::NoDevice`], with the reason.
    pub fn open(ordinal: usize) -> CudaResult<CudaDevice> {
        if !driver_available() {
            return Err(CudaError::NoDevice {
                reason: "the CUDA driver library (libcuda.so) was not found: no NVIDIA driver is installed on this \
                         machine, or it is not on the library search path"
                    .into(),
            });
        }
        guarded("opening the CUDA device", || Self::open_unguarded(ordinal))
    }

    fn open_unguarded(ordinal: usize) -> CudaResult<CudaDevice> {
        let context = CudaContext::new(ordinal).map_err(|e| match no_device_reason(&e, ordinal) {
            Some(reason) => CudaError::NoDevice { reason },
            None => CudaError::driver(format!("creating a context on device {ordinal}"), e),
        })?;
        let stream = context.new_stream().map_err(|e| CudaError::driver("creating a stream", e))?;
        let attribute = |attribute: CUdevice_attribute, what: &str| {
            context.attribute(attribute).map_err(|e| CudaError::driver(format!("reading {what}"), e))
        };
        let mut driver_version = 0;
        // SAFETY: plain out-parameter; the driver library is loaded.
        unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut driver_version) }
            .result()
            .map_err(|e| CudaError::driver("cuDriverGetVersion", e))?;
        let (free_memory_bytes, total_memory_bytes) =
            context.mem_get_info().map_err(|e| CudaError::driver("cuMemGetInfo", e))?;
        let info = DeviceInfo {
            ordinal,
            name: context.name().map_err(|e| CudaError::driver("reading the device name", e))?,
            compute_capability: context
                .compute_capability()
                .map_err(|e| CudaError::driver("reading the compute capability", e))?,
            multiprocessors: attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "the SM count")?
                .max(1) as u32,
            total_memory_bytes,
            free_memory_bytes,
            l2_cache_bytes: attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "the L2 size")?.max(0)
                as usize,
            driver_version,
            max_shared_bytes_per_block_optin: attribute(
                CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                "the opt-in shared memory per block",
            )?
            .max(0) as usize,
            cooperative_launch: attribute(
                CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH,
                "cooperative launch",
            )? != 0,
        };
        let sync_after_launch = match std::env::var("WARPATH_SYNC_LAUNCHES").as_deref() {
            Ok("1") => true,
            Ok("0") => false,
            _ => cfg!(debug_assertions),
        };
        Ok(CudaDevice {
            context,
            stream,
            info,
            compiler: Mutex::new(None),
            modules: Mutex::new(HashMap::new()),
            sync_after_launch: AtomicBool::new(sync_after_launch),
            last_kernel: Mutex::new(None),
            recorder: Mutex::new(None),
        })
    }

    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// `(free, total)` device memory in bytes, now.
    pub fn memory_info(&self) -> CudaResult<(usize, usize)> {
        self.context.mem_get_info().map_err(|e| CudaError::driver("cuMemGetInfo", e))
    }

    /// The stream every launch and copy of this device goes to.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    pub fn context(&self) -> &Arc<CudaContext> {
        &self.context
    }

    /// Waits for all work on the stream; a fault names the last kernel launched.
    pub fn synchronize(&self) -> CudaResult<()> {
        self.stream.synchronize().map_err(|e| self.fault("synchronizing the stream", e))
    }

    /// The error for a failure found after launches: names the last kernel.
    pub(crate) fn fault(&self, what: &str, error: DriverError) -> CudaError {
        let last = *self.last_kernel.lock().unwrap_or_else(|p| p.into_inner());
        match last {
            Some(kernel) => CudaError::Kernel {
                kernel: kernel.to_string(),
                message: format!("{} (found while {what}, after this kernel ran)", describe_driver_error(&error)),
            },
            None => CudaError::driver(what, error),
        }
    }

    /// Allocates `bytes` (at least 16) of zeroed device memory; `what` names it in errors.
    pub(crate) fn allocate_bytes(&self, what: &str, bytes: usize) -> CudaResult<CudaSlice<u8>> {
        let (free, total) = self.memory_info()?;
        let out_of_memory = || CudaError::OutOfMemory {
            what: what.to_string(),
            asked_mib: mib(bytes),
            free_mib: mib(free),
            total_mib: mib(total),
        };
        if bytes > free {
            return Err(out_of_memory());
        }
        self.stream.alloc_zeros::<u8>(bytes.max(16)).map_err(|e| {
            if is_out_of_memory(&e) { out_of_memory() } else { self.fault(&format!("allocating {what}"), e) }
        })
    }

    /// The KernelCompiler of this device, made on first use (NVRTC is needed only then).
    fn compiler(&self) -> CudaResult<KernelCompiler> {
        let mut slot = self.compiler.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(KernelCompiler::new()?.with_driver_version(self.info.driver_version));
        }
        Ok(slot.clone().expect("set above"))
    }

    /// Compiles `sources` for this device into the disk cache on `threads` threads at once,
    /// without loading them (what `warpath precompile` does, so that a first render does not
    /// wait minutes for NVRTC). Returns, per program in order, the seconds it took and the
    /// cache's answer, or the error.
    pub fn precompile(
        &self,
        sources: &[KernelSource],
        threads: usize,
    ) -> CudaResult<Vec<(&'static str, f64, CudaResult<CacheUse>)>> {
        let compiler = self.compiler()?;
        let target = compiler.target_for(self.info.compute_capability)?;
        Ok(compiler.compile_many(sources, &target, threads, |compiled| compiled.cache))
    }

    /// The module of `source` compiled for this device, compiling (or loading from the disk
    /// cache) on first use.
    pub fn module(&self, source: &KernelSource) -> CudaResult<Arc<CudaModule>> {
        if let Some(module) = self.modules.lock().unwrap_or_else(|p| p.into_inner()).get(source.name) {
            return Ok(module.clone());
        }
        let compiler = self.compiler()?;
        let target = compiler.target_for(self.info.compute_capability)?;
        let compiled = compiler.compile(source, &target)?;
        let module = match self.load_image(&compiled.image) {
            Ok(module) => module,
            Err(error) if matches!(compiled.cache, CacheUse::Hit(_)) => {
                // A stale or damaged cache file: drop it and compile afresh.
                let _ = error;
                compiler.evict(source, &target);
                let fresh = compiler.compile(source, &target)?;
                self.load_image(&fresh.image).map_err(|e| self.load_error(source, &target, e))?
            }
            Err(error) => return Err(self.load_error(source, &target, error)),
        };
        self.modules.lock().unwrap_or_else(|p| p.into_inner()).insert(source.name, module.clone());
        Ok(module)
    }

    fn load_error(&self, source: &KernelSource, target: &CompileTarget, error: DriverError) -> CudaError {
        CudaError::Driver {
            context: format!("loading module `{}` ({}) on {}", source.name, target.gpu_architecture(), self.info.name),
            message: format!(
                "{}; the driver is CUDA {}: an NVRTC newer than the driver makes images it cannot load",
                describe_driver_error(&error),
                self.info.driver_version_string()
            ),
        }
    }

    fn load_image(&self, image: &ModuleImage) -> Result<Arc<CudaModule>, DriverError> {
        let ptx = match image {
            ModuleImage::Cubin(bytes) => cudarc::nvrtc::Ptx::from_binary(bytes.clone()),
            ModuleImage::Ptx(text) => cudarc::nvrtc::Ptx::from_src(text.clone()),
        };
        self.context.load_module(ptx)
    }

    /// Kernel `name` of program `source`.
    pub fn function(&self, source: &KernelSource, name: &'static str) -> CudaResult<CudaFunction> {
        let module = self.module(source)?;
        module.load_function(name).map_err(|e| CudaError::Kernel {
            kernel: name.to_string(),
            message: format!("not found in module `{}`: {}", source.name, describe_driver_error(&e)),
        })
    }

    /// Kernel `kernel` of its program's default build, launched on this device's stream with
    /// `config` and `args` (exactly the values of the kernel's declared parameters).
    pub fn launch<A: KernelArgs>(
        &self,
        kernel: Kernel<A>,
        config: LaunchConfig,
        args: A::Values<'_>,
    ) -> CudaResult<()> {
        self.launch_in(kernel, &kernel.program().source(), config, args)
    }

    /// Kernel `kernel` of `program` — its program or a variant build of it (register caps,
    /// texture fetches, reservoir formats: the same file with `#define`s in front) — launched
    /// with `config` and `args`. Every kernel launch of the crate goes through here: the
    /// launch is checked (and waited for when launches are synchronized, see the module docs)
    /// and, while [`CudaDevice::timing`] runs, timed between CUDA events.
    pub fn launch_in<A: KernelArgs>(
        &self,
        kernel: Kernel<A>,
        program: &KernelSource,
        config: LaunchConfig,
        mut args: A::Values<'_>,
    ) -> CudaResult<()> {
        if !kernel.program().builds(program) {
            return Err(CudaError::Kernel {
                kernel: kernel.name().to_string(),
                message: format!(
                    "launched from program `{}`, but it is a kernel of {:?} ({})",
                    program.name,
                    kernel.program(),
                    kernel.program().source().file_name
                ),
            });
        }
        let function = self.function(program, kernel.name())?;
        let name = kernel.name();
        // Timed from before the launch to its end event, which goes before any wait of the host.
        self.record(name, true, || {
            let mut launch = self.stream.launch_builder(&function);
            A::push_all(&mut args, &mut launch);
            // SAFETY: the pushed values are exactly the kernel's parameters as the catalog
            // declares them (`A`), and the `signatures` test checks each declaration against the
            // kernel's CUDA signature (count, order, pointer or scalar type, struct name; the
            // structs' layouts are asserted by the headers). Each caller sizes the buffers behind
            // the pointers for the grid it launches (the kernels bound their thread index by the
            // counts they are given), and the values live until the launch has been enqueued.
            let launched = unsafe { launch.launch(config) };
            launched.map_err(|e| CudaError::Kernel {
                kernel: name.to_string(),
                message: format!("launch failed: {}", describe_driver_error(&e)),
            })?;
            // A fault found from here on (the timer's end event included) names this kernel.
            *self.last_kernel.lock().unwrap_or_else(|p| p.into_inner()) = Some(name);
            Ok(())
        })?;
        self.wait_if_synchronized(name)
    }

    /// The function of a catalogued kernel in `program` (its program or a variant of it), for
    /// occupancy and attribute queries.
    pub fn entry_function(&self, entry: KernelEntry, program: &KernelSource) -> CudaResult<CudaFunction> {
        if !entry.program.builds(program) {
            return Err(CudaError::Kernel {
                kernel: entry.name.to_string(),
                message: format!("asked of program `{}`, but it is a kernel of {:?}", program.name, entry.program),
            });
        }
        self.function(program, entry.name)
    }

    /// Runs `work` and, while [`CudaDevice::timing`] runs, adds its GPU time under `name`: a
    /// span of work that is not one launch of the catalog's, such as a library call on the
    /// stream (CUB's selection) or a benchmark's whole run.
    pub fn timed<T>(&self, name: &'static str, work: impl FnOnce() -> CudaResult<T>) -> CudaResult<T> {
        self.record(name, false, work)
    }

    /// [`CudaDevice::timed`]; a launch (`launch`) only while launches are timed.
    fn record<T>(&self, name: &'static str, launch: bool, work: impl FnOnce() -> CudaResult<T>) -> CudaResult<T> {
        let recording =
            self.recorder.lock().unwrap_or_else(|p| p.into_inner()).as_ref().is_some_and(|r| r.launches || !launch);
        if !recording {
            return work();
        }
        let timer = self.timer()?;
        timer.start()?;
        let result = work()?;
        let ms = timer.stop_ms()? as f64;
        if let Some(recorder) = self.recorder.lock().unwrap_or_else(|p| p.into_inner()).as_mut() {
            recorder.times.add(name, recorder.step, ms);
        }
        Ok(result)
    }

    /// Runs `work` with every launch in it timed into `times` (None: untimed). Timing
    /// waits for each launch's end, so the work runs a little slower.
    pub fn timing<T>(&self, times: Option<&mut KernelTimes>, work: impl FnOnce() -> T) -> T {
        self.record_into(times, true, work)
    }

    /// Runs `work` recording into `times`: every launch (`launches`) and every span, or only
    /// the spans.
    fn record_into<T>(&self, times: Option<&mut KernelTimes>, launches: bool, work: impl FnOnce() -> T) -> T {
        let Some(times) = times else { return work() };
        let recorder = Recorder { times: std::mem::take(times), step: 0, launches };
        let outer = self.recorder.lock().unwrap_or_else(|p| p.into_inner()).replace(recorder);
        let result = work();
        let recorded = std::mem::replace(&mut *self.recorder.lock().unwrap_or_else(|p| p.into_inner()), outer);
        *times = recorded.map(|r| r.times).unwrap_or_default();
        result
    }

    /// The step the next timed launches count in ([`KernelTimes`]' per-step times, e.g. the
    /// wavefront's bounces); no effect unless [`CudaDevice::timing`] runs.
    pub fn set_timing_step(&self, step: usize) {
        if let Some(recorder) = self.recorder.lock().unwrap_or_else(|p| p.into_inner()).as_mut() {
            recorder.step = step;
        }
    }

    /// After a launch of `kernel`: when launches are synchronized, waits for its run.
    fn wait_if_synchronized(&self, kernel: &'static str) -> CudaResult<()> {
        if self.sync_after_launch.load(Ordering::Relaxed) {
            self.stream.synchronize().map_err(|e| CudaError::Kernel {
                kernel: kernel.to_string(),
                message: format!("failed while running: {}", describe_driver_error(&e)),
            })?;
        }
        Ok(())
    }

    /// Whether each launch waits for its kernel (see the module docs); returns the old value.
    /// Benchmarks turn it off so that the host's wait is not timed.
    pub fn set_sync_after_launch(&self, sync: bool) -> bool {
        self.sync_after_launch.swap(sync, Ordering::Relaxed)
    }

    /// A pair of CUDA events on this device's stream, for the GPU time of the work
    /// launched between [`StreamTimer::start`] and [`StreamTimer::stop_ms`].
    pub(crate) fn timer(&self) -> CudaResult<StreamTimer<'_>> {
        let flags = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
        let event = || self.context.new_event(flags).map_err(|e| CudaError::driver("creating a timing event", e));
        Ok(StreamTimer { device: self, start: event()?, end: event()? })
    }

    /// Runs `run` `warmup_runs` times untimed, then `timed_runs` times, each a span of
    /// [`KernelTimes`] (CUDA events around the run; the run's step is its index), without
    /// waiting on the host after each launch (a fault still shows when an event is read);
    /// returns the milliseconds of each timed run.
    pub fn time_runs(
        &self,
        warmup_runs: usize,
        timed_runs: usize,
        mut run: impl FnMut() -> CudaResult<()>,
    ) -> CudaResult<Vec<f32>> {
        const RUN: &str = "run";
        for _ in 0..warmup_runs {
            run()?;
        }
        self.synchronize()?;
        let was_synchronizing = self.set_sync_after_launch(false);
        let mut times = KernelTimes::default();
        let result = self.record_into(Some(&mut times), false, || {
            for index in 0..timed_runs {
                self.set_timing_step(index);
                self.timed(RUN, &mut run)?;
            }
            Ok(())
        });
        self.set_sync_after_launch(was_synchronizing);
        result?;
        let mut run_ms: Vec<f32> =
            times.get(RUN).map_or(Vec::new(), |t| t.ms_per_step.iter().map(|&ms| ms as f32).collect());
        run_ms.resize(timed_runs, 0.0);
        Ok(run_ms)
    }

    /// Resident blocks of `block_size` threads per SM for `function` (occupancy API).
    pub fn blocks_per_multiprocessor(&self, function: &CudaFunction, block_size: u32) -> CudaResult<u32> {
        self.blocks_per_multiprocessor_with_shared(function, block_size, 0)
    }

    /// Resident blocks per SM of `function` at `block_size` threads and `dynamic_shared_bytes`
    /// of dynamic shared memory per block (at least 1).
    pub fn blocks_per_multiprocessor_with_shared(
        &self,
        function: &CudaFunction,
        block_size: u32,
        dynamic_shared_bytes: u32,
    ) -> CudaResult<u32> {
        function
            .occupancy_max_active_blocks_per_multiprocessor(block_size, dynamic_shared_bytes as usize, None)
            .map(|n| n.max(1))
            .map_err(|e| CudaError::driver("cuOccupancyMaxActiveBlocksPerMultiprocessor", e))
    }
}

/// The median of run times (the mean of the middle two for an even count; 0 for none).
pub fn median(values: &[f32]) -> f32 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f32::total_cmp);
    let half = sorted.len() / 2;
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[half],
        _ => 0.5 * (sorted[half - 1] + sorted[half]),
    }
}

/// Two CUDA events on a device's stream (see [`CudaDevice::timer`]).
pub(crate) struct StreamTimer<'d> {
    device: &'d CudaDevice,
    start: CudaEvent,
    end: CudaEvent,
}

impl StreamTimer<'_> {
    /// Records the start event.
    pub(crate) fn start(&self) -> CudaResult<()> {
        self.start.record(self.device.stream()).map_err(|e| self.device.fault("recording an event", e))
    }

    /// Records the end event, waits for it and returns the milliseconds since the start.
    pub(crate) fn stop_ms(&self) -> CudaResult<f32> {
        self.end.record(self.device.stream()).map_err(|e| self.device.fault("recording an event", e))?;
        self.start.elapsed_ms(&self.end).map_err(|e| self.device.fault("reading an event timer", e))
    }
}

/// The device tests run on: `Ok(Some)` with a device; `Ok(None)` (after printing a notice)
/// when there is none; `Err` when there is none and `WARPATH_REQUIRE_GPU=1`, or when a
/// device exists but fails to open.
pub fn test_device() -> CudaResult<Option<CudaDevice>> {
    match CudaDevice::open(0) {
        Ok(device) => Ok(Some(device)),
        Err(error @ CudaError::NoDevice { .. }) => {
            if std::env::var("WARPATH_REQUIRE_GPU").as_deref() == Ok("1") {
                Err(error)
            } else {
                eprintln!("notice: skipping GPU test ({error}); set WARPATH_REQUIRE_GPU=1 to make this a failure");
                Ok(None)
            }
        }
        Err(error) => Err(error),
    }
}
