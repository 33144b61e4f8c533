//! Typed launches of `kernels/compaction.cu` (docs/architecture.md): one Rust function per
//! kernel signature, taking the kernel's arguments as typed buffers, counts and the per-launch
//! [`CompactionState`](super::CompactionState) by value. Which instantiation runs is a typed
//! choice: the element type `T` picks the catalog's kernel (`_u32`, `_elem16`, `_path64`), and
//! [`CollateKernel`], [`SectionsKernel`] and [`LookbackKernel`] pick the variant of one
//! signature.

use super::elements::{CompactionElement, ElementKind};
use super::workspace::{COMPACTION_BLOCK, CompactionWorkspace, too_many};
use crate::buffer::DeviceBuffer;
use crate::catalog::{self, CollateArgs, CountArgs, FillArgs, FlagsArgs, Kernel, LookbackArgs, OutOfKernelArgs};
use crate::catalog::{ScatterArgs, SectionsArgs};
use crate::error::{CudaError, CudaResult};
use crate::runtime::CudaDevice;
use cudarc::driver::LaunchConfig;

/// The kernel for each element kind: [u32, elem16, path64].
fn per_kind<A>(kind: ElementKind, kernels: [Kernel<A>; 3]) -> Kernel<A> {
    match kind {
        ElementKind::U32 => kernels[0],
        ElementKind::Elem16 => kernels[1],
        ElementKind::PathState => kernels[2],
    }
}

/// The kernels of signature `(const T* in, T* out, unsigned* counter, n, threshold)`:
/// InK-Collate (seed 001 §2.4), order kept within a block only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollateKernel {
    /// `compaction_collate_<kind>`: tiles of `items_per_thread` elements per thread.
    Tiled,
    /// `compaction_collate_x1_u32`: one element per thread, as the wavefront calls it.
    X1,
}

impl CollateKernel {
    /// The kernel for `kind`, or `None` where it is not instantiated.
    pub fn kernel(self, kind: ElementKind) -> Option<Kernel<CollateArgs>> {
        use catalog::{COMPACTION_COLLATE_ELEM16, COMPACTION_COLLATE_PATH64, COMPACTION_COLLATE_U32};
        match self {
            CollateKernel::Tiled => {
                Some(per_kind(kind, [COMPACTION_COLLATE_U32, COMPACTION_COLLATE_ELEM16, COMPACTION_COLLATE_PATH64]))
            }
            CollateKernel::X1 => (kind == ElementKind::U32).then_some(catalog::COMPACTION_COLLATE_X1_U32),
        }
    }

    /// The kernel's name for `kind`, or `None` where it is not instantiated.
    pub fn name(self, kind: ElementKind) -> Option<&'static str> {
        self.kernel(kind).map(|k| k.name())
    }

    /// Elements per block.
    pub fn tile_size(self, kind: ElementKind) -> u32 {
        match self {
            CollateKernel::Tiled => COMPACTION_BLOCK * kind.items_per_thread(),
            CollateKernel::X1 => COMPACTION_BLOCK,
        }
    }
}

/// The kernels of signature `(const T* in, T* out, T* intermediate, CompactionState, n,
/// threshold)`: InK-Compact (seed 001 §2.3), order kept by block sections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SectionsKernel {
    /// `compaction_sections_<kind>`.
    Tiled,
    /// `compaction_sections_x1_u32`: one element per thread.
    X1,
}

impl SectionsKernel {
    pub fn kernel(self, kind: ElementKind) -> Option<Kernel<SectionsArgs>> {
        use catalog::{COMPACTION_SECTIONS_ELEM16, COMPACTION_SECTIONS_PATH64, COMPACTION_SECTIONS_U32};
        match self {
            SectionsKernel::Tiled => {
                Some(per_kind(kind, [COMPACTION_SECTIONS_U32, COMPACTION_SECTIONS_ELEM16, COMPACTION_SECTIONS_PATH64]))
            }
            SectionsKernel::X1 => (kind == ElementKind::U32).then_some(catalog::COMPACTION_SECTIONS_X1_U32),
        }
    }

    pub fn name(self, kind: ElementKind) -> Option<&'static str> {
        self.kernel(kind).map(|k| k.name())
    }

    pub fn tile_size(self, kind: ElementKind) -> u32 {
        match self {
            SectionsKernel::Tiled => COMPACTION_BLOCK * kind.items_per_thread(),
            SectionsKernel::X1 => COMPACTION_BLOCK,
        }
    }
}

/// The kernels of signature `(const T* in, T* out, CompactionState, n, threshold)`: order
/// kept by decoupled look-back (Merrill & Garland 2016).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LookbackKernel {
    /// `compaction_lookback_<kind>`: one block per tile.
    Tiled,
    /// `compaction_lookback_x1_u32`: one element per thread.
    X1,
    /// `compaction_lookback_deep_ahead_u32`: persistent blocks, a tile's look-back after the
    /// next tile is published, 16-byte loads, tickets a tile early (the fastest
    /// order-preserving u32 kernel, docs/benchmarks/compaction.md).
    DeepAhead,
}

impl LookbackKernel {
    pub fn kernel(self, kind: ElementKind) -> Option<Kernel<LookbackArgs>> {
        use catalog::{COMPACTION_LOOKBACK_ELEM16, COMPACTION_LOOKBACK_PATH64, COMPACTION_LOOKBACK_U32};
        let u32_only = kind == ElementKind::U32;
        match self {
            LookbackKernel::Tiled => {
                Some(per_kind(kind, [COMPACTION_LOOKBACK_U32, COMPACTION_LOOKBACK_ELEM16, COMPACTION_LOOKBACK_PATH64]))
            }
            LookbackKernel::X1 => u32_only.then_some(catalog::COMPACTION_LOOKBACK_X1_U32),
            LookbackKernel::DeepAhead => u32_only.then_some(catalog::COMPACTION_LOOKBACK_DEEP_AHEAD_U32),
        }
    }

    pub fn name(self, kind: ElementKind) -> Option<&'static str> {
        self.kernel(kind).map(|k| k.name())
    }

    pub fn tile_size(self, kind: ElementKind) -> u32 {
        match self {
            LookbackKernel::Tiled | LookbackKernel::DeepAhead => COMPACTION_BLOCK * kind.items_per_thread(),
            LookbackKernel::X1 => COMPACTION_BLOCK,
        }
    }

    /// Whether the kernel loops over tiles by ticket in a grid that fits the GPU at once.
    pub fn persistent(self) -> bool {
        self == LookbackKernel::DeepAhead
    }
}

/// The kernels every element type has beside the methods: the benchmark's input, OfK's flag
/// producer and pass, and the three-pass baseline's count and scatter.
fn fill_kernel(kind: ElementKind) -> Kernel<FillArgs> {
    per_kind(kind, [catalog::COMPACTION_FILL_U32, catalog::COMPACTION_FILL_ELEM16, catalog::COMPACTION_FILL_PATH64])
}

fn flags_kernel(kind: ElementKind) -> Kernel<FlagsArgs> {
    per_kind(kind, [catalog::COMPACTION_FLAGS_U32, catalog::COMPACTION_FLAGS_ELEM16, catalog::COMPACTION_FLAGS_PATH64])
}

fn out_of_kernel_kernel(kind: ElementKind) -> Kernel<OutOfKernelArgs> {
    per_kind(kind, [catalog::COMPACTION_OFK_U32, catalog::COMPACTION_OFK_ELEM16, catalog::COMPACTION_OFK_PATH64])
}

fn count_kernel(kind: ElementKind) -> Kernel<CountArgs> {
    per_kind(kind, [catalog::COMPACTION_COUNT_U32, catalog::COMPACTION_COUNT_ELEM16, catalog::COMPACTION_COUNT_PATH64])
}

fn scatter_kernel(kind: ElementKind) -> Kernel<ScatterArgs> {
    per_kind(
        kind,
        [catalog::COMPACTION_SCATTER_U32, catalog::COMPACTION_SCATTER_ELEM16, catalog::COMPACTION_SCATTER_PATH64],
    )
}

/// `what` has no kernel for `T`'s element type.
fn not_instantiated(what: &str, kind: ElementKind) -> CudaError {
    CudaError::InvalidArgument(format!("{what} exists for u32 elements only, not {}", kind.name()))
}

fn linear(blocks: u32, block: u32) -> LaunchConfig {
    LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 }
}

fn checked_count(n: usize) -> CudaResult<u32> {
    if n > (1usize << 31) {
        return Err(too_many(n));
    }
    Ok(n as u32)
}

/// The element count of compacting all of `input` into `output` (which must hold as many).
fn whole_input<T: CompactionElement>(input: &DeviceBuffer<T>, output: &DeviceBuffer<T>) -> CudaResult<u32> {
    if output.len() < input.len() {
        return Err(CudaError::InvalidArgument(format!(
            "compacting {} elements needs an output of as many, got {}",
            input.len(),
            output.len()
        )));
    }
    checked_count(input.len())
}

/// `compaction_fill_*(T* out, n, seed)`: `buffer[i] = T::make(i, hash(i ^ hash(seed)))`,
/// random keys.
pub fn fill<T: CompactionElement>(device: &CudaDevice, buffer: &mut DeviceBuffer<T>, seed: u32) -> CudaResult<()> {
    let n = checked_count(buffer.len())?;
    if n == 0 {
        return Ok(());
    }
    let config = linear(n.div_ceil(COMPACTION_BLOCK), COMPACTION_BLOCK);
    device.launch(fill_kernel(T::KIND), config, (buffer.raw_mut().into(), n, seed))
}

/// `compaction_collate_*(const T* in, T* out, unsigned* counter, n, threshold)`: the kept
/// elements of `input` to the front of `output`, in tile order within a block, blocks in
/// any order; the count lands in the workspace.
pub fn collate<T: CompactionElement>(
    device: &CudaDevice,
    kernel: CollateKernel,
    input: &DeviceBuffer<T>,
    output: &mut DeviceBuffer<T>,
    workspace: &mut CompactionWorkspace,
    threshold: u64,
) -> CudaResult<()> {
    let compaction = kernel.kernel(T::KIND).ok_or_else(|| not_instantiated("one-per-thread InK-Collate", T::KIND))?;
    let n = whole_input(input, output)?;
    let tiles = n.div_ceil(kernel.tile_size(T::KIND));
    let state = workspace.prepare(device, tiles)?;
    if n == 0 {
        return Ok(());
    }
    let args = (input.raw().into(), output.raw_mut().into(), state.count.into(), n, threshold);
    device.launch(compaction, linear(tiles, COMPACTION_BLOCK), args)
}

/// `compaction_sections_*(const T* in, T* out, T* intermediate, CompactionState, n,
/// threshold)`: InK-Compact, order kept; `intermediate` holds [`intermediate_len`] elements.
pub fn sections<T: CompactionElement>(
    device: &CudaDevice,
    kernel: SectionsKernel,
    input: &DeviceBuffer<T>,
    output: &mut DeviceBuffer<T>,
    intermediate: &mut DeviceBuffer<T>,
    workspace: &mut CompactionWorkspace,
    threshold: u64,
) -> CudaResult<()> {
    let compaction = kernel.kernel(T::KIND).ok_or_else(|| not_instantiated("one-per-thread InK-Compact", T::KIND))?;
    let n = whole_input(input, output)?;
    let tile = kernel.tile_size(T::KIND);
    let tiles = n.div_ceil(tile);
    let needed = tiles as usize * tile as usize;
    if intermediate.len() < needed {
        return Err(CudaError::InvalidArgument(format!(
            "InK-Compact needs an intermediate buffer of {needed} elements (whole tiles), got {}",
            intermediate.len()
        )));
    }
    let state = workspace.prepare(device, tiles)?;
    if n == 0 {
        return Ok(());
    }
    let args = (input.raw().into(), output.raw_mut().into(), intermediate.raw_mut().into(), state, n, threshold);
    device.launch(compaction, linear(tiles, COMPACTION_BLOCK), args)
}

/// Elements the intermediate buffer of [`sections`] needs for `n` elements (whole tiles).
pub fn intermediate_len(kernel: SectionsKernel, kind: ElementKind, n: usize) -> usize {
    let tile = kernel.tile_size(kind) as usize;
    n.div_ceil(tile) * tile
}

/// `compaction_lookback_*(const T* in, T* out, CompactionState, n, threshold)`:
/// order-preserving single-pass compaction by decoupled look-back. The tiled and x1 kernels
/// run one block per tile; the persistent one as many blocks as fit the GPU at once.
pub fn lookback<T: CompactionElement>(
    device: &CudaDevice,
    kernel: LookbackKernel,
    input: &DeviceBuffer<T>,
    output: &mut DeviceBuffer<T>,
    workspace: &mut CompactionWorkspace,
    threshold: u64,
) -> CudaResult<()> {
    let compaction =
        kernel.kernel(T::KIND).ok_or_else(|| not_instantiated(&format!("{kernel:?} look-back"), T::KIND))?;
    let n = whole_input(input, output)?;
    let tiles = n.div_ceil(kernel.tile_size(T::KIND));
    let state = workspace.prepare(device, tiles)?;
    if n == 0 {
        return Ok(());
    }
    let blocks = if kernel.persistent() {
        let function = device.entry_function(compaction.entry(), &compaction.program().source())?;
        let per_multiprocessor = device.blocks_per_multiprocessor(&function, COMPACTION_BLOCK)?;
        tiles.min((per_multiprocessor * device.info().multiprocessors).max(1))
    } else {
        tiles
    };
    let args = (input.raw().into(), output.raw_mut().into(), state, n, threshold);
    device.launch(compaction, linear(blocks, COMPACTION_BLOCK), args)
}

/// `compaction_flags_*(const T* in, unsigned char* flags, n, threshold)`: `flags[i] =
/// keep(input[i])` (the producer before OfK).
pub fn write_flags<T: CompactionElement>(
    device: &CudaDevice,
    input: &DeviceBuffer<T>,
    flags: &mut DeviceBuffer<u8>,
    threshold: u64,
) -> CudaResult<()> {
    let n = checked_count(input.len())?;
    if flags.len() < input.len() {
        return Err(CudaError::InvalidArgument(format!("{} flags for {} elements", flags.len(), input.len())));
    }
    if n == 0 {
        return Ok(());
    }
    let config = linear(n.div_ceil(COMPACTION_BLOCK), COMPACTION_BLOCK);
    device.launch(flags_kernel(T::KIND), config, (input.raw().into(), flags.raw_mut().into(), n, threshold))
}

/// [`out_of_kernel_prefix`] over all of `input`.
pub fn out_of_kernel<T: CompactionElement>(
    device: &CudaDevice,
    input: &DeviceBuffer<T>,
    flags: &DeviceBuffer<u8>,
    output: &mut DeviceBuffer<T>,
    workspace: &mut CompactionWorkspace,
) -> CudaResult<()> {
    let n = whole_input(input, output)?;
    out_of_kernel_prefix(device, input, flags, output, workspace, n)
}

/// `compaction_ofk_*(const T* in, const unsigned char* flags, T* out, CompactionState, n)`:
/// OfK, the look-back compaction in its own kernel from `flags` and the data, over the first
/// `n` elements of `input` (and of `flags`): the separate compaction pass of a wavefront path
/// tracer, whose buffers hold a whole wave.
pub fn out_of_kernel_prefix<T: CompactionElement>(
    device: &CudaDevice,
    input: &DeviceBuffer<T>,
    flags: &DeviceBuffer<u8>,
    output: &mut DeviceBuffer<T>,
    workspace: &mut CompactionWorkspace,
    n: u32,
) -> CudaResult<()> {
    if n as usize > input.len().min(output.len()).min(flags.len()) {
        return Err(CudaError::InvalidArgument(format!(
            "compacting {n} elements of a buffer of {} with {} flags into one of {}",
            input.len(),
            flags.len(),
            output.len()
        )));
    }
    let tiles = n.div_ceil(COMPACTION_BLOCK * T::KIND.items_per_thread());
    let state = workspace.prepare(device, tiles)?;
    if n == 0 {
        return Ok(());
    }
    let args = (input.raw().into(), flags.raw().into(), output.raw_mut().into(), state, n);
    device.launch(out_of_kernel_kernel(T::KIND), linear(tiles, COMPACTION_BLOCK), args)
}

/// Three-pass scan-then-scatter, as Thrust's `copy_if` did: [`count_tiles`] (kept per tile),
/// [`scan_counts`] (one block), [`scatter_tiles`] (re-reads the data).
pub fn three_pass<T: CompactionElement>(
    device: &CudaDevice,
    input: &DeviceBuffer<T>,
    output: &mut DeviceBuffer<T>,
    workspace: &mut CompactionWorkspace,
    threshold: u64,
) -> CudaResult<()> {
    let n = whole_input(input, output)?;
    let tiles = n.div_ceil(COMPACTION_BLOCK * T::KIND.items_per_thread());
    let state = workspace.prepare(device, tiles)?;
    if n == 0 {
        return Ok(());
    }
    count_tiles(device, input, state.block_counts, n, threshold, tiles)?;
    scan_counts(device, state.block_counts, tiles, state.count)?;
    scatter_tiles(device, input, output, state.block_counts, n, threshold, tiles)
}

/// `compaction_count_*(const T* in, unsigned* block_counts, n, threshold)`: kept elements per
/// tile, for `tiles` tiles, to the device array at `block_counts`.
fn count_tiles<T: CompactionElement>(
    device: &CudaDevice,
    input: &DeviceBuffer<T>,
    block_counts: u64,
    n: u32,
    threshold: u64,
    tiles: u32,
) -> CudaResult<()> {
    let args = (input.raw().into(), block_counts.into(), n, threshold);
    device.launch(count_kernel(T::KIND), linear(tiles, COMPACTION_BLOCK), args)
}

/// `compaction_scan_counts(unsigned* counts, tiles, unsigned* count)`: one block of 1024
/// threads scans the tile counts in place to exclusive offsets and writes the total.
fn scan_counts(device: &CudaDevice, block_counts: u64, tiles: u32, count: u64) -> CudaResult<()> {
    device.launch(catalog::COMPACTION_SCAN_COUNTS, linear(1, 1024), (block_counts.into(), tiles, count.into()))
}

/// `compaction_scatter_*(const T* in, T* out, const unsigned* block_offsets, n, threshold)`:
/// each tile re-reads its elements, ranks them and writes the kept ones at its offset.
fn scatter_tiles<T: CompactionElement>(
    device: &CudaDevice,
    input: &DeviceBuffer<T>,
    output: &mut DeviceBuffer<T>,
    block_offsets: u64,
    n: u32,
    threshold: u64,
    tiles: u32,
) -> CudaResult<()> {
    let args = (input.raw().into(), output.raw_mut().into(), block_offsets.into(), n, threshold);
    device.launch(scatter_kernel(T::KIND), linear(tiles, COMPACTION_BLOCK), args)
}

/// `compaction_layout_report(unsigned* out)`: the device's sizes, offsets and tile shapes, in
/// the order of [`super::host_layout`].
pub fn layout_report(device: &CudaDevice) -> CudaResult<Vec<u32>> {
    let mut out = DeviceBuffer::<u32>::zeroed(device, super::layout::LAYOUT_REPORT_LEN)?;
    device.launch(catalog::COMPACTION_LAYOUT_REPORT, linear(1, 32), (out.raw_mut().into(),))?;
    out.download(device)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every compaction kernel of the catalog is one the launches above can use.
    #[test]
    fn the_launches_reach_every_catalogued_compaction_kernel() {
        let mut launched = vec![catalog::COMPACTION_SCAN_COUNTS.name(), catalog::COMPACTION_LAYOUT_REPORT.name()];
        for kind in ElementKind::ALL {
            launched.extend([
                fill_kernel(kind).name(),
                flags_kernel(kind).name(),
                out_of_kernel_kernel(kind).name(),
                count_kernel(kind).name(),
                scatter_kernel(kind).name(),
            ]);
            launched.extend([CollateKernel::Tiled, CollateKernel::X1].iter().filter_map(|k| k.name(kind)));
            launched.extend([SectionsKernel::Tiled, SectionsKernel::X1].iter().filter_map(|k| k.name(kind)));
            launched.extend(
                [LookbackKernel::Tiled, LookbackKernel::X1, LookbackKernel::DeepAhead]
                    .iter()
                    .filter_map(|k| k.name(kind)),
            );
        }
        launched.sort_unstable();
        let mut listed = catalog::kernels_of(crate::kernels::Program::Compaction);
        listed.sort_unstable();
        assert_eq!(launched, listed);
    }

    #[test]
    fn one_per_thread_and_deep_kernels_are_u32_only() {
        for kind in [ElementKind::Elem16, ElementKind::PathState] {
            assert_eq!(CollateKernel::X1.name(kind), None);
            assert_eq!(SectionsKernel::X1.name(kind), None);
            assert_eq!(LookbackKernel::X1.name(kind), None);
            assert_eq!(LookbackKernel::DeepAhead.name(kind), None);
        }
        assert_eq!(LookbackKernel::DeepAhead.tile_size(ElementKind::U32), 4096);
        assert_eq!(intermediate_len(SectionsKernel::Tiled, ElementKind::Elem16, 2049), 4096);
        assert_eq!(intermediate_len(SectionsKernel::X1, ElementKind::U32, 257), 512);
    }
}
