//! Stream compaction (issue 4): typed launches of `kernels/compaction.cu`, the device
//! library `kernels/compaction.cuh` (seed 001 §2: InK-Collate, InK-Compact with block
//! sections; Merrill & Garland 2016: decoupled look-back) and its out-of-kernel baselines
//! (OfK from a flag array, three-pass count/scan/scatter), plus [`bench_compaction`].
//!
//! Every method keeps the elements whose key hashes below a threshold
//! ([`threshold_for`]: `hash(key) < selectivity · 2^32`), so the selectivity is exact in
//! expectation on random keys and [`cpu_filter`] is the reference. The order-preserving
//! methods ([`CompactionMethod::preserves_order`]) produce exactly `cpu_filter`; InK-Collate
//! produces the same multiset. The kept count lands in the [`CompactionWorkspace`], whose
//! state (tile tickets, look-back status words, section counters and flags) is zeroed by
//! one memset before every launch.
//!
//! For order-preserving u32 compaction use [`CompactionMethod::LookbackDeepAhead`] (the
//! fastest on the H100, docs/benchmarks/compaction.md); the other look-back variants, the
//! Hopper bulk-copy methods (`RoundScan`, `CollateBulk`: cooperative launches with dynamic
//! shared memory) and their experiment knobs (`WARPATH_COMPACTION_BULK_VARIANT`,
//! `WARPATH_COMPACTION_BLOCKS_PER_SM`) stay for the measurements that compare them.

use crate::buffer::DeviceBuffer;
use crate::error::{CudaError, CudaResult};
use crate::kernels::COMPACTION;
use crate::runtime::CudaDevice;
use bytemuck::{Pod, Zeroable};
use cudarc::driver::{CudaSlice, DevicePtr, LaunchConfig, PushKernelArg};

/// Threads per block of every compaction kernel (`COMPACTION_BLOCK`).
pub const COMPACTION_BLOCK: u32 = 256;
/// Threads per block of the `lookback-384` kernels (CUB's sm90 block for 4-byte select).
pub const WIDE_BLOCK: u32 = 384;
/// Blocks per InK-Compact section (`COMPACTION_SECTION_BLOCKS`, seed 001 §2.3).
pub const SECTION_BLOCKS: u32 = 32;

/// Every kernel of `compaction.cu` the Rust side launches (checked by `kernels_compile`).
pub const KERNEL_NAMES: &[&str] = &[
    "compaction_collate_u32",
    "compaction_collate_elem16",
    "compaction_collate_path64",
    "compaction_collate_x1_u32",
    "compaction_collate_api_u32",
    "compaction_lookback_u32",
    "compaction_lookback_elem16",
    "compaction_lookback_path64",
    "compaction_lookback_x1_u32",
    "compaction_lookback_staged_u32",
    "compaction_lookback_staged_elem16",
    "compaction_lookback_staged_path64",
    "compaction_lookback_pipelined_u32",
    "compaction_lookback_pipelined_elem16",
    "compaction_lookback_pipelined_path64",
    "compaction_lookback_deep_u32",
    "compaction_lookback_deep_vec4_u32",
    "compaction_lookback_deep_ahead_u32",
    "compaction_collate_vec4_u32",
    "compaction_round_scan_u32",
    "compaction_round_scan_elem16",
    "compaction_round_scan_path64",
    "compaction_round_scan_i16s4d1_u32",
    "compaction_round_scan_i16s5d2_u32",
    "compaction_round_scan_i16s5d3_u32",
    "compaction_round_scan_i8s12d6_u32",
    "compaction_collate_bulk_u32",
    "compaction_collate_bulk_elem16",
    "compaction_collate_bulk_path64",
    "compaction_lookback384_u32",
    "compaction_lookback384_elem16",
    "compaction_lookback384_path64",
    "compaction_sections_u32",
    "compaction_sections_elem16",
    "compaction_sections_path64",
    "compaction_sections_x1_u32",
    "compaction_fill_u32",
    "compaction_fill_elem16",
    "compaction_fill_path64",
    "compaction_flags_u32",
    "compaction_flags_elem16",
    "compaction_flags_path64",
    "compaction_ofk_u32",
    "compaction_ofk_elem16",
    "compaction_ofk_path64",
    "compaction_count_u32",
    "compaction_count_elem16",
    "compaction_count_path64",
    "compaction_scatter_u32",
    "compaction_scatter_elem16",
    "compaction_scatter_path64",
    "compaction_scan_counts",
    "compaction_layout_report",
];

/// A 16-byte element: a key and three payload words (`CompactElem16` in compaction.cuh).
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct CompactElem16 {
    pub key: u32,
    pub payload: [u32; 3],
}

/// A 64-byte path-state-like element (`CompactPathState` in compaction.cuh): what a
/// wavefront path tracer carries per path between stages.
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct CompactPathState {
    /// The value the benchmark predicate hashes.
    pub key: u32,
    pub pixel: u32,
    pub depth: u32,
    pub rng: u32,
    pub origin: [f32; 3],
    pub pdf: f32,
    pub direction: [f32; 3],
    pub t_max: f32,
    pub throughput: [f32; 3],
    pub flags: u32,
}

const _: () = assert!(std::mem::size_of::<CompactElem16>() == 16);
const _: () = assert!(std::mem::size_of::<CompactPathState>() == 64);

/// The element types the kernels are instantiated for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElementKind {
    U32,
    Elem16,
    PathState,
}

impl ElementKind {
    pub const ALL: [ElementKind; 3] = [ElementKind::U32, ElementKind::Elem16, ElementKind::PathState];

    /// `u32`, `elem16`, `path64`: the kernels' suffix and the CLI's name.
    pub fn name(self) -> &'static str {
        match self {
            ElementKind::U32 => "u32",
            ElementKind::Elem16 => "elem16",
            ElementKind::PathState => "path64",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    pub fn size_bytes(self) -> usize {
        match self {
            ElementKind::U32 => 4,
            ElementKind::Elem16 => 16,
            ElementKind::PathState => 64,
        }
    }

    /// Elements per thread of the tiled kernels (`COMPACTION_ITEMS_*`).
    pub fn items_per_thread(self) -> u32 {
        match self {
            ElementKind::U32 => 16,
            ElementKind::Elem16 => 8,
            ElementKind::PathState => 2,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// An element type the compaction kernels handle.
pub trait CompactionElement: Pod + PartialEq + std::fmt::Debug + Send + Sync {
    const KIND: ElementKind;
    /// The value the predicate hashes.
    fn key(&self) -> u32;
    /// The element `compaction_fill_*` makes at `index` with `key` (the tests use it too).
    fn make(index: u32, key: u32) -> Self;
}

impl CompactionElement for u32 {
    const KIND: ElementKind = ElementKind::U32;
    fn key(&self) -> u32 {
        *self
    }
    fn make(_index: u32, key: u32) -> Self {
        key
    }
}

impl CompactionElement for CompactElem16 {
    const KIND: ElementKind = ElementKind::Elem16;
    fn key(&self) -> u32 {
        self.key
    }
    fn make(index: u32, key: u32) -> Self {
        CompactElem16 { key, payload: [index, !index, key ^ 0x5bd1_e995] }
    }
}

impl CompactionElement for CompactPathState {
    const KIND: ElementKind = ElementKind::PathState;
    fn key(&self) -> u32 {
        self.key
    }
    fn make(index: u32, key: u32) -> Self {
        let i = index as f32;
        CompactPathState {
            key,
            pixel: index,
            depth: index & 7,
            rng: compaction_hash(key),
            origin: [i, (index + 1) as f32, (index + 2) as f32],
            pdf: 1.0,
            direction: [-1.0, 0.0, 1.0],
            t_max: 1e30,
            throughput: [0.5; 3],
            flags: !index,
        }
    }
}

/// The compaction methods (see the module docs and docs/benchmarks/compaction.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompactionMethod {
    /// InK-Collate, tiled: one atomicAdd per block; order kept within a block only.
    Collate,
    /// InK-Compact, tiled: order kept by sections of 32 blocks and an intermediate buffer.
    Sections,
    /// Single pass with decoupled look-back, tiled: order kept.
    Lookback,
    /// Look-back with the kept elements staged in shared memory during the look-back and
    /// stored coalesced.
    LookbackStaged,
    /// Look-back in persistent blocks, the next tile's loads issued before the current
    /// tile's look-back (software pipelining).
    LookbackPipelined,
    /// Pipelined one tile deeper: a tile's look-back runs after the next tile is ranked,
    /// staged and published (u32 only).
    LookbackDeep,
    /// `LookbackDeep` with each thread's elements in vectors of 4 consecutive u32 (16-byte
    /// loads, three ballots per vector; u32 only).
    LookbackDeepVec4,
    /// `LookbackDeepVec4` taking each tile's ticket one tile early (u32 only).
    LookbackDeepAhead,
    /// InK-Collate with the same vec4 layout (u32 only).
    CollateVec4,
    /// Order-preserving over a ring of shared-memory tiles fed by Hopper bulk copies (TMA):
    /// co-resident blocks (a cooperative launch) take tiles by round; a tile's offset comes
    /// from all counts of its round, read a round later, plus a running total.
    RoundScan,
    /// InK-Collate fed by the same bulk-copy ring (one atomicAdd per tile; order kept
    /// within a tile only).
    CollateBulk,
    /// Look-back with blocks of 384 threads (CUB's sm90 shape for 4-byte select).
    LookbackWideBlocks,
    /// OfK: look-back compaction in its own kernel from a flag array + the data.
    OutOfKernel,
    /// Three passes: per-tile counts, one-block scan, scatter re-reading the data.
    ThreePass,
    /// InK-Collate with one element per thread (the in-kernel API as a producer calls it).
    CollateX1,
    /// InK-Compact with one element per thread (u32 only).
    SectionsX1,
    /// Look-back with one element per thread (u32 only).
    LookbackX1,
}

impl CompactionMethod {
    pub const ALL: [CompactionMethod; 17] = [
        CompactionMethod::Collate,
        CompactionMethod::Sections,
        CompactionMethod::Lookback,
        CompactionMethod::LookbackStaged,
        CompactionMethod::LookbackWideBlocks,
        CompactionMethod::LookbackPipelined,
        CompactionMethod::LookbackDeep,
        CompactionMethod::LookbackDeepVec4,
        CompactionMethod::LookbackDeepAhead,
        CompactionMethod::CollateVec4,
        CompactionMethod::RoundScan,
        CompactionMethod::CollateBulk,
        CompactionMethod::OutOfKernel,
        CompactionMethod::ThreePass,
        CompactionMethod::CollateX1,
        CompactionMethod::SectionsX1,
        CompactionMethod::LookbackX1,
    ];

    pub fn name(self) -> &'static str {
        match self {
            CompactionMethod::Collate => "ink-collate",
            CompactionMethod::Sections => "ink-compact",
            CompactionMethod::Lookback => "lookback",
            CompactionMethod::LookbackStaged => "lookback-staged",
            CompactionMethod::LookbackWideBlocks => "lookback-384",
            CompactionMethod::LookbackPipelined => "lookback-pipelined",
            CompactionMethod::LookbackDeep => "lookback-deep",
            CompactionMethod::LookbackDeepVec4 => "lookback-deep-vec4",
            CompactionMethod::LookbackDeepAhead => "lookback-deep-ahead",
            CompactionMethod::CollateVec4 => "ink-collate-vec4",
            CompactionMethod::RoundScan => "round-scan",
            CompactionMethod::CollateBulk => "ink-collate-bulk",
            CompactionMethod::OutOfKernel => "ofk",
            CompactionMethod::ThreePass => "three-pass",
            CompactionMethod::CollateX1 => "ink-collate-x1",
            CompactionMethod::SectionsX1 => "ink-compact-x1",
            CompactionMethod::LookbackX1 => "lookback-x1",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Whether the output is exactly the kept elements in input order.
    pub fn preserves_order(self) -> bool {
        !matches!(
            self,
            CompactionMethod::Collate
                | CompactionMethod::CollateX1
                | CompactionMethod::CollateBulk
                | CompactionMethod::CollateVec4
        )
    }

    /// Whether the method reads a flag array instead of evaluating the predicate.
    pub fn reads_flags(self) -> bool {
        self == CompactionMethod::OutOfKernel
    }

    /// Whether kernels exist for `kind` (the one-per-thread variants are u32 only).
    pub fn supports(self, kind: ElementKind) -> bool {
        match self {
            CompactionMethod::CollateX1
            | CompactionMethod::SectionsX1
            | CompactionMethod::LookbackX1
            | CompactionMethod::LookbackDeep
            | CompactionMethod::LookbackDeepVec4
            | CompactionMethod::LookbackDeepAhead
            | CompactionMethod::CollateVec4 => kind == ElementKind::U32,
            _ => true,
        }
    }

    /// Elements per tile (block) for `kind`.
    pub fn tile_size(self, kind: ElementKind) -> u32 {
        match self {
            CompactionMethod::CollateX1 | CompactionMethod::SectionsX1 | CompactionMethod::LookbackX1 => {
                COMPACTION_BLOCK
            }
            CompactionMethod::LookbackWideBlocks => WIDE_BLOCK * kind.items_per_thread(),
            _ => COMPACTION_BLOCK * kind.items_per_thread(),
        }
    }

    /// Why `self` cannot run on `device` for `kind` elements, if it cannot: the element type
    /// (u32-only kernels), or for the bulk-copy methods a device without cooperative launch
    /// or with too little shared memory per block for their ring.
    pub fn unavailable_reason(self, device: &CudaDevice, kind: ElementKind) -> Option<String> {
        if !self.supports(kind) {
            return Some(format!("{self} exists for u32 elements only"));
        }
        if matches!(self, CompactionMethod::RoundScan | CompactionMethod::CollateBulk) {
            return bulk_kernel(self, kind).ok()?.unavailable(device, self, kind);
        }
        None
    }

    /// Whether the method's kernel is persistent (a grid that fits the GPU, tiles by ticket).
    pub fn persistent(self) -> bool {
        matches!(
            self,
            CompactionMethod::LookbackPipelined
                | CompactionMethod::LookbackDeep
                | CompactionMethod::LookbackDeepVec4
                | CompactionMethod::LookbackDeepAhead
                | CompactionMethod::RoundScan
                | CompactionMethod::CollateBulk
        )
    }

    /// Threads per block of the method's kernel.
    pub fn block_size(self) -> u32 {
        if self == CompactionMethod::LookbackWideBlocks { WIDE_BLOCK } else { COMPACTION_BLOCK }
    }
}

/// Tiles in the shared-memory ring of the bulk-copy methods (`COMPACTION_BULK_STAGES`).
pub const BULK_STAGES: u32 = 4;

/// The kernel of a bulk-copy method and its ring depth: `COMPACTION_BULK_STAGES` tiles, or
/// for u32 round-scan the shape `WARPATH_COMPACTION_BULK_VARIANT` names (`iIsSdD`: I items
/// per thread, a ring of S tiles of which D are held for their store; [`ROUND_SCAN_VARIANTS`]; the
/// experiment of docs/benchmarks/compaction.md).
fn bulk_kernel(method: CompactionMethod, kind: ElementKind) -> CudaResult<BulkShape> {
    let items = kind.items_per_thread();
    if method == CompactionMethod::CollateBulk {
        let names = ["compaction_collate_bulk_u32", "compaction_collate_bulk_elem16", "compaction_collate_bulk_path64"];
        return Ok(BulkShape { kernel: names[kind.index()], stages: BULK_STAGES, items });
    }
    let variant = std::env::var("WARPATH_COMPACTION_BULK_VARIANT").unwrap_or_default();
    let variant = variant.trim();
    if variant.is_empty() || kind != ElementKind::U32 {
        let names = ["compaction_round_scan_u32", "compaction_round_scan_elem16", "compaction_round_scan_path64"];
        return Ok(BulkShape { kernel: names[kind.index()], stages: round_scan_stages(kind), items });
    }
    ROUND_SCAN_VARIANTS
        .iter()
        .find(|(_, items, stages, defer)| variant == format!("i{items}s{stages}d{defer}"))
        .map(|&(kernel, items, stages, _)| BulkShape { kernel, stages, items })
        .ok_or_else(|| {
            CudaError::InvalidArgument(format!(
                "WARPATH_COMPACTION_BULK_VARIANT={variant}: expected one of {}",
                ROUND_SCAN_VARIANTS.iter().map(|(_, i, s, d)| format!("i{i}s{s}d{d}")).collect::<Vec<_>>().join(", ")
            ))
        })
}

/// A bulk-copy kernel and its ring: `stages` tiles of `items` elements per thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BulkShape {
    kernel: &'static str,
    stages: u32,
    items: u32,
}

impl BulkShape {
    fn tile(&self) -> u32 {
        self.items * COMPACTION_BLOCK
    }

    /// Dynamic shared memory per block: the ring.
    fn ring_bytes(&self, kind: ElementKind) -> u32 {
        self.stages * self.tile() * kind.size_bytes() as u32
    }

    /// Why `method` in this shape cannot run on `device`: no cooperative launch, or less
    /// shared memory per block than the ring plus the kernel's static scratch (at most 4 KiB).
    fn unavailable(&self, device: &CudaDevice, method: CompactionMethod, kind: ElementKind) -> Option<String> {
        let info = device.info();
        if !info.cooperative_launch {
            return Some(format!("{method} needs cooperative launches, which {} lacks", info.name));
        }
        let needed = self.ring_bytes(kind) as usize + 4096;
        (needed > info.max_shared_bytes_per_block_optin).then(|| {
            format!(
                "{method} needs {} KiB of shared memory per block for {} elements; {} allows {} KiB",
                needed >> 10,
                kind.name(),
                info.name,
                info.max_shared_bytes_per_block_optin >> 10
            )
        })
    }
}

/// Tiles in round-scan's ring per element type (`COMPACTION_ROUND_SCAN_STAGES_*`).
pub fn round_scan_stages(kind: ElementKind) -> u32 {
    if kind == ElementKind::U32 { 6 } else { 4 }
}

/// The most blocks round-scan takes: each thread reads `COMPACTION_ROUND_SCAN_LOADS` (4)
/// counts of a round.
pub const ROUND_SCAN_MAX_BLOCKS: u32 = 4 * COMPACTION_BLOCK;

/// The u32 round-scan shapes compiled for the experiment: (kernel, items per thread, stages,
/// deferral).
const ROUND_SCAN_VARIANTS: &[(&str, u32, u32, u32)] = &[
    ("compaction_round_scan_i16s4d1_u32", 16, 4, 1),
    ("compaction_round_scan_i16s5d2_u32", 16, 5, 2),
    ("compaction_round_scan_i16s5d3_u32", 16, 5, 3),
    ("compaction_round_scan_i8s12d6_u32", 8, 12, 6),
];

impl std::fmt::Display for CompactionMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// lowbias32 (C. Wellons), the predicate's hash; mirrors `compaction_hash` in compaction.cuh.
pub fn compaction_hash(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// The threshold that keeps a `selectivity` fraction (0..=1) of random keys.
pub fn threshold_for(selectivity: f64) -> u64 {
    (selectivity.clamp(0.0, 1.0) * 4_294_967_296.0).round() as u64
}

/// Whether the predicate keeps `key` under `threshold`.
pub fn keeps(key: u32, threshold: u64) -> bool {
    (compaction_hash(key) as u64) < threshold
}

/// The reference: the kept elements in input order.
pub fn cpu_filter<T: CompactionElement>(input: &[T], threshold: u64) -> Vec<T> {
    input.iter().filter(|e| keeps(e.key(), threshold)).copied().collect()
}

fn kernel_name(prefix: &str, kind: ElementKind) -> CudaResult<&'static str> {
    let table: &[(&str, [&'static str; 3])] = &[
        ("collate", ["compaction_collate_u32", "compaction_collate_elem16", "compaction_collate_path64"]),
        ("lookback", ["compaction_lookback_u32", "compaction_lookback_elem16", "compaction_lookback_path64"]),
        (
            "lookback_pipelined",
            [
                "compaction_lookback_pipelined_u32",
                "compaction_lookback_pipelined_elem16",
                "compaction_lookback_pipelined_path64",
            ],
        ),
        (
            "lookback384",
            ["compaction_lookback384_u32", "compaction_lookback384_elem16", "compaction_lookback384_path64"],
        ),
        (
            "lookback_staged",
            [
                "compaction_lookback_staged_u32",
                "compaction_lookback_staged_elem16",
                "compaction_lookback_staged_path64",
            ],
        ),
        ("sections", ["compaction_sections_u32", "compaction_sections_elem16", "compaction_sections_path64"]),
        ("fill", ["compaction_fill_u32", "compaction_fill_elem16", "compaction_fill_path64"]),
        ("flags", ["compaction_flags_u32", "compaction_flags_elem16", "compaction_flags_path64"]),
        ("ofk", ["compaction_ofk_u32", "compaction_ofk_elem16", "compaction_ofk_path64"]),
        ("count", ["compaction_count_u32", "compaction_count_elem16", "compaction_count_path64"]),
        ("scatter", ["compaction_scatter_u32", "compaction_scatter_elem16", "compaction_scatter_path64"]),
    ];
    table
        .iter()
        .find(|(name, _)| *name == prefix)
        .map(|(_, names)| names[kind.index()])
        .ok_or_else(|| CudaError::InvalidArgument(format!("no compaction kernel `{prefix}`")))
}

/// The per-launch state of the compaction kernels: one device allocation holding the tile
/// ticket, the kept count, the look-back status words, the section counters, flags and
/// offsets, and the per-tile counts. Laid out so that the part that must start at zero is
/// one prefix, cleared by one memset per launch.
pub struct CompactionWorkspace {
    state: CudaSlice<u8>,
    tiles_capacity: u32,
}

struct StateLayout {
    tile_status: usize,
    section_counters: usize,
    section_flags: usize,
    zeroed_bytes: usize,
    section_offsets: usize,
    block_counts: usize,
    total_bytes: usize,
}

fn state_layout(tiles: u32) -> StateLayout {
    let tiles = tiles.max(1) as usize;
    let sections = tiles.div_ceil(SECTION_BLOCKS as usize);
    let tile_status = 16;
    let section_counters = tile_status + 8 * tiles;
    let section_flags = section_counters + 4 * sections;
    let zeroed_bytes = section_flags + 4 * sections;
    let section_offsets = zeroed_bytes;
    let block_counts = section_offsets + 4 * sections;
    let total_bytes = block_counts + 4 * tiles;
    StateLayout {
        tile_status,
        section_counters,
        section_flags,
        zeroed_bytes,
        section_offsets,
        block_counts,
        total_bytes,
    }
}

impl CompactionWorkspace {
    /// State for launches of up to `tiles` tiles.
    pub fn new(device: &CudaDevice, tiles: u32) -> CudaResult<Self> {
        let layout = state_layout(tiles);
        Ok(CompactionWorkspace {
            state: device.allocate_bytes("compaction state", layout.total_bytes)?,
            tiles_capacity: tiles.max(1),
        })
    }

    /// State for compacting `n` elements of `kind` with any method.
    pub fn for_elements(device: &CudaDevice, n: usize) -> CudaResult<Self> {
        let tiles = (n as u64).div_ceil(COMPACTION_BLOCK as u64).max(1);
        Self::new(device, u32::try_from(tiles).map_err(|_| too_many(n))?)
    }

    pub(crate) fn ensure(&mut self, device: &CudaDevice, tiles: u32) -> CudaResult<()> {
        if tiles > self.tiles_capacity {
            *self = Self::new(device, tiles)?;
        }
        Ok(())
    }

    /// Zeroes the ticket, the count, the status words and the section counters and flags of
    /// the layout for `tiles` tiles (one memset: they are its prefix).
    pub(crate) fn reset(&mut self, device: &CudaDevice, tiles: u32) -> CudaResult<()> {
        let bytes = state_layout(tiles).zeroed_bytes;
        device
            .stream()
            .memset_zeros(&mut self.state.slice_mut(0..bytes))
            .map_err(|e| device.fault("clearing the compaction state", e))
    }

    /// Device addresses of [ticket, count, tile_status, block_counts, section_counters,
    /// section_flags, section_offsets] (the kernels' `COMPACTION_STATE_PARAMS` order), laid
    /// out for a launch of `tiles` tiles (the layout [`Self::reset`] clears).
    pub(crate) fn pointers(&self, device: &CudaDevice, tiles: u32) -> [u64; 7] {
        debug_assert!(tiles <= self.tiles_capacity);
        let layout = state_layout(tiles);
        let (base, _record) = self.state.device_ptr(device.stream());
        [
            base,
            base + 4,
            base + layout.tile_status as u64,
            base + layout.block_counts as u64,
            base + layout.section_counters as u64,
            base + layout.section_flags as u64,
            base + layout.section_offsets as u64,
        ]
    }

    /// The kept count of the last launch (waits for the stream).
    pub fn count(&self, device: &CudaDevice) -> CudaResult<u32> {
        let mut host = [0u8; 4];
        device
            .stream()
            .memcpy_dtoh(&self.state.slice(4..8), &mut host)
            .map_err(|e| device.fault("reading the compaction count", e))?;
        device.synchronize()?;
        Ok(u32::from_le_bytes(host))
    }
}

fn too_many(n: usize) -> CudaError {
    CudaError::InvalidArgument(format!("{n} elements exceed the compaction kernels' limit of 2^31"))
}

fn checked_count(n: usize) -> CudaResult<u32> {
    if n > (1usize << 31) {
        return Err(too_many(n));
    }
    Ok(n as u32)
}

fn check_lengths<T: CompactionElement>(input: &DeviceBuffer<T>, output: &DeviceBuffer<T>) -> CudaResult<u32> {
    if output.len() < input.len() {
        return Err(CudaError::InvalidArgument(format!(
            "compacting {} elements needs an output of as many, got {}",
            input.len(),
            output.len()
        )));
    }
    checked_count(input.len())
}

fn grid(blocks: u32) -> LaunchConfig {
    LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (COMPACTION_BLOCK, 1, 1), shared_mem_bytes: 0 }
}

/// `compaction_fill_*`: `buffer[i] = T::make(i, hash(i ^ hash(seed)))`, random keys.
pub fn fill<T: CompactionElement>(device: &CudaDevice, buffer: &mut DeviceBuffer<T>, seed: u32) -> CudaResult<()> {
    let n = checked_count(buffer.len())?;
    if n == 0 {
        return Ok(());
    }
    let name = kernel_name("fill", T::KIND)?;
    let function = device.function(&COMPACTION, name)?;
    let mut launch = device.stream().launch_builder(&function);
    launch.arg(buffer.raw_mut()).arg(&n).arg(&seed);
    // SAFETY: matches `compaction_fill_*(T*, unsigned, unsigned)`; the buffer holds n values.
    let launched = unsafe { launch.launch(grid(n.div_ceil(COMPACTION_BLOCK))) };
    device.check_launch(name, launched)
}

/// `compaction_collate_*` (InK-Collate, tiled): kept elements of `input` to the front of
/// `output`, in tile order within a block, blocks in any order.
pub fn collate<T: CompactionElement>(
    device: &CudaDevice,
    input: &DeviceBuffer<T>,
    output: &mut DeviceBuffer<T>,
    workspace: &mut CompactionWorkspace,
    threshold: u64,
) -> CudaResult<()> {
    collate_kernel(device, input, output, workspace, threshold, CompactionMethod::Collate)
}

fn collate_kernel<T: CompactionElement>(
    device: &CudaDevice,
    input: &DeviceBuffer<T>,
    output: &mut DeviceBuffer<T>,
    workspace: &mut CompactionWorkspace,
    threshold: u64,
    method: CompactionMethod,
) -> CudaResult<()> {
    let n = check_lengths(input, output)?;
    let tiles = n.div_ceil(method.tile_size(T::KIND));
    workspace.ensure(device, tiles)?;
    workspace.reset(device, tiles)?;
    if n == 0 {
        return Ok(());
    }
    let name = match method {
        CompactionMethod::Collate => kernel_name("collate", T::KIND)?,
        CompactionMethod::CollateX1 => "compaction_collate_x1_u32",
        CompactionMethod::CollateVec4 if T::KIND == ElementKind::U32 => "compaction_collate_vec4_u32",
        _ => unreachable!("collate_kernel is only called for the collate methods"),
    };
    let function = device.function(&COMPACTION, name)?;
    let pointers = workspace.pointers(device, tiles);
    let mut launch = device.stream().launch_builder(&function);
    launch.arg(input.raw()).arg(output.raw_mut()).arg(&pointers[1]).arg(&n).arg(&threshold);
    // SAFETY: matches `compaction_collate_*(const T*, T*, unsigned*, unsigned, u64)`; the
    // output holds n values (checked) and the counter lies in the workspace.
    let launched = unsafe { launch.launch(grid(tiles)) };
    device.check_launch(name, launched)
}

/// `compaction_collate_x1_u32`: InK-Collate with one element per thread.
pub fn collate_x1(
    device: &CudaDevice,
    input: &DeviceBuffer<u32>,
    output: &mut DeviceBuffer<u32>,
    workspace: &mut CompactionWorkspace,
    threshold: u64,
) -> CudaResult<()> {
    collate_kernel(device, input, output, workspace, threshold, CompactionMethod::CollateX1)
}

/// `compaction_collate_api_u32`: a producer that calls `ink_collate_store(out, counter,
/// value, keep)` at its end, one element per thread (the in-kernel API).
pub fn collate_api(
    device: &CudaDevice,
    input: &DeviceBuffer<u32>,
    output: &mut DeviceBuffer<u32>,
    workspace: &mut CompactionWorkspace,
    threshold: u64,
) -> CudaResult<()> {
    let n = check_lengths(input, output)?;
    let tiles = n.div_ceil(COMPACTION_BLOCK);
    workspace.ensure(device, tiles)?;
    workspace.reset(device, tiles)?;
    if n == 0 {
        return Ok(());
    }
    let name = "compaction_collate_api_u32";
    let function = device.function(&COMPACTION, name)?;
    let pointers = workspace.pointers(device, tiles);
    let mut launch = device.stream().launch_builder(&function);
    launch.arg(input.raw()).arg(output.raw_mut()).arg(&pointers[1]).arg(&n).arg(&threshold);
    // SAFETY: matches `compaction_collate_api_u32(const unsigned*, unsigned*, unsigned*,
    // unsigned, u64)`; the output holds n values.
    let launched = unsafe { launch.launch(grid(tiles)) };
    device.check_launch(name, launched)
}

/// How many blocks an order-preserving launch starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GridShape {
    /// One block per tile.
    PerTile,
    /// As many blocks as fit the GPU at once with this much dynamic shared memory each;
    /// they take tiles by ticket in a loop.
    Persistent { dynamic_shared_bytes: u32 },
    /// As [`GridShape::Persistent`], launched cooperatively so that the driver guarantees
    /// every block is resident at once (or fails the launch): the kernel takes tiles by
    /// round and block index and waits on other blocks' tiles of the same round.
    CoResident { dynamic_shared_bytes: u32 },
}

/// Launches an order-preserving kernel: `prefix_args` (the buffers), the state, `n`, and
/// (unless `None`) the threshold.
#[allow(clippy::too_many_arguments)]
fn launch_ordered<T: CompactionElement>(
    device: &CudaDevice,
    name: &'static str,
    input: &DeviceBuffer<T>,
    flags: Option<&DeviceBuffer<u8>>,
    output: &mut DeviceBuffer<T>,
    intermediate: Option<&mut DeviceBuffer<T>>,
    workspace: &mut CompactionWorkspace,
    tile_size: u32,
    threshold: Option<u64>,
) -> CudaResult<()> {
    let n = check_lengths(input, output)?;
    let block = COMPACTION_BLOCK;
    launch_ordered_prefix(
        device,
        name,
        input,
        flags,
        output,
        intermediate,
        workspace,
        tile_size,
        block,
        threshold,
        n,
        GridShape::PerTile,
    )
}

/// [`launch_ordered`] over the first `n` elements of `input` only.
#[allow(clippy::too_many_arguments)]
fn launch_ordered_prefix<T: CompactionElement>(
    device: &CudaDevice,
    name: &'static str,
    input: &DeviceBuffer<T>,
    flags: Option<&DeviceBuffer<u8>>,
    output: &mut DeviceBuffer<T>,
    intermediate: Option<&mut DeviceBuffer<T>>,
    workspace: &mut CompactionWorkspace,
    tile_size: u32,
    block: u32,
    threshold: Option<u64>,
    n: u32,
    shape: GridShape,
) -> CudaResult<()> {
    if n as usize > input.len().min(output.len()) {
        return Err(CudaError::InvalidArgument(format!(
            "compacting {n} elements of a buffer of {} into one of {}",
            input.len(),
            output.len()
        )));
    }
    let tiles = n.div_ceil(tile_size);
    workspace.ensure(device, tiles)?;
    workspace.reset(device, tiles)?;
    if n == 0 {
        return Ok(());
    }
    let function = device.function(&COMPACTION, name)?;
    let pointers = workspace.pointers(device, tiles);
    let mut launch = device.stream().launch_builder(&function);
    launch.arg(input.raw());
    if let Some(flags) = flags {
        if flags.len() < input.len() {
            return Err(CudaError::InvalidArgument(format!("{} flags for {} elements", flags.len(), input.len())));
        }
        launch.arg(flags.raw());
    }
    launch.arg(output.raw_mut());
    if let Some(intermediate) = intermediate {
        if (intermediate.len() as u64) < tiles as u64 * tile_size as u64 {
            return Err(CudaError::InvalidArgument(format!(
                "InK-Compact needs an intermediate buffer of {} elements (whole tiles), got {}",
                tiles as u64 * tile_size as u64,
                intermediate.len()
            )));
        }
        launch.arg(intermediate.raw_mut());
    }
    for pointer in &pointers {
        launch.arg(pointer);
    }
    launch.arg(&tiles).arg(&n);
    if let Some(threshold) = &threshold {
        launch.arg(threshold);
    }
    // Persistent kernels take their tiles by ticket in a loop: as many blocks as fit the GPU.
    let (grid, shared_bytes) = match shape {
        GridShape::PerTile => (tiles, 0),
        GridShape::Persistent { dynamic_shared_bytes } | GridShape::CoResident { dynamic_shared_bytes } => {
            // Static plus dynamic shared memory above 48 KiB needs the opt-in; ask whenever
            // there is any dynamic part.
            if dynamic_shared_bytes > 0 {
                device.allow_dynamic_shared_memory(&function, name, dynamic_shared_bytes)?;
            }
            let mut per_sm = device.blocks_per_multiprocessor_with_shared(&function, block, dynamic_shared_bytes)?;
            // Experiment knob: fewer resident blocks per SM than fit.
            if let Some(cap) =
                std::env::var("WARPATH_COMPACTION_BLOCKS_PER_SM").ok().and_then(|v| v.parse::<u32>().ok())
            {
                per_sm = per_sm.min(cap.max(1));
            }
            let mut grid = tiles.min((per_sm * device.info().multiprocessors).max(1));
            // Round-scan reads a round's counts with a fixed number of loads per thread; the
            // cap binds only on GPUs with over 1024 resident blocks, for both bulk kernels.
            if matches!(shape, GridShape::CoResident { .. }) {
                grid = grid.min(ROUND_SCAN_MAX_BLOCKS);
            }
            (grid, dynamic_shared_bytes)
        }
    };
    let config = LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: shared_bytes };
    // SAFETY: the arguments follow the kernels' signatures in compaction.cu (buffers,
    // COMPACTION_STATE_PARAMS, n[, threshold]); lengths are checked above and the state
    // pointers lie inside the workspace, sized for `tiles` (a persistent grid covers them
    // by ticket).
    let launched = unsafe {
        match shape {
            GridShape::CoResident { .. } => launch.launch_cooperative(config),
            _ => launch.launch(config),
        }
    };
    device.check_launch(name, launched)
}

/// Elements the intermediate buffer of [`sections`] needs for `n` elements (whole tiles).
pub fn intermediate_len(method: CompactionMethod, kind: ElementKind, n: usize) -> usize {
    let tile = method.tile_size(kind) as usize;
    n.div_ceil(tile) * tile
}

/// `compaction_lookback_*`: order-preserving single-pass compaction (decoupled look-back).
pub fn lookback<T: CompactionElement>(
    device: &CudaDevice,
    input: &DeviceBuffer<T>,
    output: &mut DeviceBuffer<T>,
    workspace: &mut CompactionWorkspace,
    threshold: u64,
) -> CudaResult<()> {
    lookback_variant(device, CompactionMethod::Lookback, input, output, workspace, threshold)
}

/// A look-back method that reads its input and evaluates the predicate, with its kernel,
/// tile shape, block size and grid (persistent kernels: as many blocks as fit the GPU):
/// `Lookback`, `LookbackStaged` (kept elements staged in shared memory during the
/// look-back), `LookbackWideBlocks` (384-thread blocks), `LookbackPipelined` (persistent
/// blocks load their next tile before looking back) and `LookbackDeep` (u32 only: one
/// tile deeper).
pub fn lookback_variant<T: CompactionElement>(
    device: &CudaDevice,
    method: CompactionMethod,
    input: &DeviceBuffer<T>,
    output: &mut DeviceBuffer<T>,
    workspace: &mut CompactionWorkspace,
    threshold: u64,
) -> CudaResult<()> {
    let kernel = match method {
        CompactionMethod::Lookback => kernel_name("lookback", T::KIND)?,
        CompactionMethod::LookbackStaged => kernel_name("lookback_staged", T::KIND)?,
        CompactionMethod::LookbackWideBlocks => kernel_name("lookback384", T::KIND)?,
        CompactionMethod::LookbackPipelined => kernel_name("lookback_pipelined", T::KIND)?,
        CompactionMethod::LookbackDeep if T::KIND == ElementKind::U32 => "compaction_lookback_deep_u32",
        CompactionMethod::LookbackDeepVec4 if T::KIND == ElementKind::U32 => "compaction_lookback_deep_vec4_u32",
        CompactionMethod::LookbackDeepAhead if T::KIND == ElementKind::U32 => "compaction_lookback_deep_ahead_u32",
        CompactionMethod::RoundScan | CompactionMethod::CollateBulk => {
            // Resolved once: the kernel, its tile and its ring.
            let bulk = bulk_kernel(method, T::KIND)?;
            if let Some(reason) = bulk.unavailable(device, method, T::KIND) {
                return Err(CudaError::InvalidArgument(reason));
            }
            let n = check_lengths(input, output)?;
            let shape = GridShape::CoResident { dynamic_shared_bytes: bulk.ring_bytes(T::KIND) };
            let (tile, block) = (bulk.tile(), COMPACTION_BLOCK);
            return launch_ordered_prefix(
                device,
                bulk.kernel,
                input,
                None,
                output,
                None,
                workspace,
                tile,
                block,
                Some(threshold),
                n,
                shape,
            );
        }
        _ => {
            return Err(CudaError::InvalidArgument(format!(
                "{method} is not a look-back method for {} elements",
                T::KIND.name()
            )));
        }
    };
    let n = check_lengths(input, output)?;
    let (tile, block) = (method.tile_size(T::KIND), method.block_size());
    let shape =
        if method.persistent() { GridShape::Persistent { dynamic_shared_bytes: 0 } } else { GridShape::PerTile };
    launch_ordered_prefix(device, kernel, input, None, output, None, workspace, tile, block, Some(threshold), n, shape)
}

/// `compaction_lookback_x1_u32`: look-back with one element per thread.
pub fn lookback_x1(
    device: &CudaDevice,
    input: &DeviceBuffer<u32>,
    output: &mut DeviceBuffer<u32>,
    workspace: &mut CompactionWorkspace,
    threshold: u64,
) -> CudaResult<()> {
    let name = "compaction_lookback_x1_u32";
    launch_ordered(device, name, input, None, output, None, workspace, COMPACTION_BLOCK, Some(threshold))
}

/// `compaction_sections_*`: InK-Compact (seed 001 §2.3), order kept by block sections;
/// `intermediate` holds [`intermediate_len`] elements.
pub fn sections<T: CompactionElement>(
    device: &CudaDevice,
    input: &DeviceBuffer<T>,
    output: &mut DeviceBuffer<T>,
    intermediate: &mut DeviceBuffer<T>,
    workspace: &mut CompactionWorkspace,
    threshold: u64,
) -> CudaResult<()> {
    let name = kernel_name("sections", T::KIND)?;
    let tile = CompactionMethod::Sections.tile_size(T::KIND);
    launch_ordered(device, name, input, None, output, Some(intermediate), workspace, tile, Some(threshold))
}

/// `compaction_sections_x1_u32`: InK-Compact with one element per thread.
pub fn sections_x1(
    device: &CudaDevice,
    input: &DeviceBuffer<u32>,
    output: &mut DeviceBuffer<u32>,
    intermediate: &mut DeviceBuffer<u32>,
    workspace: &mut CompactionWorkspace,
    threshold: u64,
) -> CudaResult<()> {
    let name = "compaction_sections_x1_u32";
    launch_ordered(device, name, input, None, output, Some(intermediate), workspace, COMPACTION_BLOCK, Some(threshold))
}

/// `compaction_flags_*`: `flags[i] = keep(input[i])` (the producer before OfK).
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
    let name = kernel_name("flags", T::KIND)?;
    let function = device.function(&COMPACTION, name)?;
    let mut launch = device.stream().launch_builder(&function);
    launch.arg(input.raw()).arg(flags.raw_mut()).arg(&n).arg(&threshold);
    // SAFETY: matches `compaction_flags_*(const T*, unsigned char*, unsigned, u64)`.
    let launched = unsafe { launch.launch(grid(n.div_ceil(COMPACTION_BLOCK))) };
    device.check_launch(name, launched)
}

/// `compaction_ofk_*`: OfK, the look-back compaction in its own kernel from `flags` + data.
pub fn out_of_kernel<T: CompactionElement>(
    device: &CudaDevice,
    input: &DeviceBuffer<T>,
    flags: &DeviceBuffer<u8>,
    output: &mut DeviceBuffer<T>,
    workspace: &mut CompactionWorkspace,
) -> CudaResult<()> {
    let name = kernel_name("ofk", T::KIND)?;
    let tile = CompactionMethod::OutOfKernel.tile_size(T::KIND);
    launch_ordered(device, name, input, Some(flags), output, None, workspace, tile, None)
}

/// [`out_of_kernel`] over the first `n` elements of `input` (and of `flags`): the separate
/// compaction pass of a wavefront path tracer, whose buffers hold a whole wave.
pub fn out_of_kernel_prefix<T: CompactionElement>(
    device: &CudaDevice,
    input: &DeviceBuffer<T>,
    flags: &DeviceBuffer<u8>,
    output: &mut DeviceBuffer<T>,
    workspace: &mut CompactionWorkspace,
    n: u32,
) -> CudaResult<()> {
    let name = kernel_name("ofk", T::KIND)?;
    let tile = CompactionMethod::OutOfKernel.tile_size(T::KIND);
    launch_ordered_prefix(
        device,
        name,
        input,
        Some(flags),
        output,
        None,
        workspace,
        tile,
        COMPACTION_BLOCK,
        None,
        n,
        GridShape::PerTile,
    )
}

/// Three-pass scan-then-scatter: `compaction_count_*` (kept per tile),
/// `compaction_scan_counts` (one block), `compaction_scatter_*` (re-reads the data).
pub fn three_pass<T: CompactionElement>(
    device: &CudaDevice,
    input: &DeviceBuffer<T>,
    output: &mut DeviceBuffer<T>,
    workspace: &mut CompactionWorkspace,
    threshold: u64,
) -> CudaResult<()> {
    let n = check_lengths(input, output)?;
    let tiles = n.div_ceil(CompactionMethod::ThreePass.tile_size(T::KIND));
    workspace.ensure(device, tiles)?;
    workspace.reset(device, tiles)?;
    if n == 0 {
        return Ok(());
    }
    let pointers = workspace.pointers(device, tiles);
    let block_counts = pointers[3];
    let stream = device.stream();

    let count_name = kernel_name("count", T::KIND)?;
    let function = device.function(&COMPACTION, count_name)?;
    let mut launch = stream.launch_builder(&function);
    launch.arg(input.raw()).arg(&block_counts).arg(&n).arg(&threshold);
    // SAFETY: matches `compaction_count_*(const T*, unsigned*, unsigned, u64)`; the
    // workspace holds `tiles` block counts.
    let launched = unsafe { launch.launch(grid(tiles)) };
    device.check_launch(count_name, launched)?;

    let scan_name = "compaction_scan_counts";
    let function = device.function(&COMPACTION, scan_name)?;
    let mut launch = stream.launch_builder(&function);
    launch.arg(&block_counts).arg(&tiles).arg(&pointers[1]);
    let config = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1024, 1, 1), shared_mem_bytes: 0 };
    // SAFETY: matches `compaction_scan_counts(unsigned*, unsigned, unsigned*)`.
    let launched = unsafe { launch.launch(config) };
    device.check_launch(scan_name, launched)?;

    let scatter_name = kernel_name("scatter", T::KIND)?;
    let function = device.function(&COMPACTION, scatter_name)?;
    let mut launch = stream.launch_builder(&function);
    launch.arg(input.raw()).arg(output.raw_mut()).arg(&block_counts).arg(&n).arg(&threshold);
    // SAFETY: matches `compaction_scatter_*(const T*, T*, const unsigned*, unsigned, u64)`.
    let launched = unsafe { launch.launch(grid(tiles)) };
    device.check_launch(scatter_name, launched)
}

/// The buffers one compaction of `n` elements of `T` needs, for every method.
pub struct CompactionBuffers<T: CompactionElement> {
    pub input: DeviceBuffer<T>,
    pub output: DeviceBuffer<T>,
    /// InK-Compact's intermediate buffer (whole tiles; sized for the x1 variant too).
    pub intermediate: DeviceBuffer<T>,
    /// OfK's flag array.
    pub flags: DeviceBuffer<u8>,
    pub workspace: CompactionWorkspace,
}

impl<T: CompactionElement> CompactionBuffers<T> {
    /// Allocates for `input` (already on the device).
    pub fn new(device: &CudaDevice, input: DeviceBuffer<T>) -> CudaResult<Self> {
        let n = input.len();
        let intermediate = intermediate_len(CompactionMethod::Sections, T::KIND, n).max(intermediate_len(
            CompactionMethod::SectionsX1,
            T::KIND,
            n,
        ));
        Ok(CompactionBuffers {
            output: DeviceBuffer::zeroed(device, n)?,
            intermediate: DeviceBuffer::zeroed(device, intermediate)?,
            flags: DeviceBuffer::zeroed(device, n)?,
            workspace: CompactionWorkspace::for_elements(device, n)?,
            input,
        })
    }

    /// Runs `method` (OfK uses the flags as they are: call [`write_flags`] first) and
    /// returns nothing; the count is in the workspace.
    pub fn run(&mut self, device: &CudaDevice, method: CompactionMethod, threshold: u64) -> CudaResult<()> {
        let CompactionBuffers { input, output, intermediate, flags, workspace } = self;
        let u32_only = |what: &str| {
            CudaError::InvalidArgument(format!("{what} exists for u32 elements only, not {}", T::KIND.name()))
        };
        match method {
            CompactionMethod::Collate => collate(device, input, output, workspace, threshold),
            CompactionMethod::Sections => sections(device, input, output, intermediate, workspace, threshold),
            CompactionMethod::LookbackDeep if T::KIND != ElementKind::U32 => Err(u32_only(method.name())),
            CompactionMethod::Lookback
            | CompactionMethod::LookbackStaged
            | CompactionMethod::LookbackWideBlocks
            | CompactionMethod::LookbackPipelined
            | CompactionMethod::LookbackDeep
            | CompactionMethod::LookbackDeepVec4
            | CompactionMethod::LookbackDeepAhead
            | CompactionMethod::RoundScan
            | CompactionMethod::CollateBulk => lookback_variant(device, method, input, output, workspace, threshold),
            CompactionMethod::CollateVec4 => {
                let (Some(input), Some(output)) = (as_u32_buffer(input), as_u32_buffer_mut(output)) else {
                    return Err(u32_only(method.name()));
                };
                collate_kernel(device, input, output, workspace, threshold, method)
            }
            CompactionMethod::OutOfKernel => out_of_kernel(device, input, flags, output, workspace),
            CompactionMethod::ThreePass => three_pass(device, input, output, workspace, threshold),
            CompactionMethod::CollateX1 | CompactionMethod::SectionsX1 | CompactionMethod::LookbackX1 => {
                let (Some(input), Some(output)) = (as_u32_buffer(input), as_u32_buffer_mut(output)) else {
                    return Err(u32_only(method.name()));
                };
                match method {
                    CompactionMethod::CollateX1 => collate_x1(device, input, output, workspace, threshold),
                    CompactionMethod::LookbackX1 => lookback_x1(device, input, output, workspace, threshold),
                    _ => {
                        let Some(intermediate) = as_u32_buffer_mut(intermediate) else {
                            return Err(u32_only(method.name()));
                        };
                        sections_x1(device, input, output, intermediate, workspace, threshold)
                    }
                }
            }
        }
    }

    /// The kept count and the first `count` output elements (waits for the stream).
    pub fn result(&self, device: &CudaDevice) -> CudaResult<Vec<T>> {
        let count = self.workspace.count(device)? as usize;
        let mut all = self.output.download(device)?;
        if count > all.len() {
            return Err(CudaError::InvalidArgument(format!(
                "the kernel reported {count} kept elements of {}",
                all.len()
            )));
        }
        all.truncate(count);
        Ok(all)
    }
}

fn as_u32_buffer<T: CompactionElement>(buffer: &DeviceBuffer<T>) -> Option<&DeviceBuffer<u32>> {
    (std::any::TypeId::of::<T>() == std::any::TypeId::of::<u32>()).then(|| {
        // SAFETY: T is u32 (checked by TypeId): the same type.
        unsafe { &*(buffer as *const DeviceBuffer<T> as *const DeviceBuffer<u32>) }
    })
}

fn as_u32_buffer_mut<T: CompactionElement>(buffer: &mut DeviceBuffer<T>) -> Option<&mut DeviceBuffer<u32>> {
    (std::any::TypeId::of::<T>() == std::any::TypeId::of::<u32>()).then(|| {
        // SAFETY: T is u32 (checked by TypeId): the same type.
        unsafe { &mut *(buffer as *mut DeviceBuffer<T> as *mut DeviceBuffer<u32>) }
    })
}

/// Device `sizeof`/`offsetof` and tile shapes (`compaction_layout_report`): [sizeof Elem16,
/// sizeof PathState, offsets of origin, pdf, direction, t_max, throughput, flags, block,
/// items u32, items elem16, items path64].
pub fn layout_report(device: &CudaDevice) -> CudaResult<Vec<u32>> {
    let mut out = DeviceBuffer::<u32>::zeroed(device, 16)?;
    let name = "compaction_layout_report";
    let function = device.function(&COMPACTION, name)?;
    let mut launch = device.stream().launch_builder(&function);
    launch.arg(out.raw_mut());
    let config = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 };
    // SAFETY: matches `compaction_layout_report(unsigned*)`; the buffer holds 16 values.
    let launched = unsafe { launch.launch(config) };
    device.check_launch(name, launched)?;
    out.download(device)
}

/// The host's view of the same numbers as [`layout_report`].
pub fn host_layout() -> Vec<u32> {
    use std::mem::{offset_of, size_of};
    vec![
        size_of::<CompactElem16>() as u32,
        size_of::<CompactPathState>() as u32,
        offset_of!(CompactPathState, origin) as u32,
        offset_of!(CompactPathState, pdf) as u32,
        offset_of!(CompactPathState, direction) as u32,
        offset_of!(CompactPathState, t_max) as u32,
        offset_of!(CompactPathState, throughput) as u32,
        offset_of!(CompactPathState, flags) as u32,
        COMPACTION_BLOCK,
        ElementKind::U32.items_per_thread(),
        ElementKind::Elem16.items_per_thread(),
        ElementKind::PathState.items_per_thread(),
        BULK_STAGES,
        round_scan_stages(ElementKind::U32),
        round_scan_stages(ElementKind::Elem16),
        ROUND_SCAN_MAX_BLOCKS,
    ]
}

// ---- benchmark --------------------------------------------------------------------------

/// How [`bench_compaction`] runs.
#[derive(Clone, Debug, PartialEq)]
pub struct CompactionBenchOptions {
    /// log2 of the element counts.
    pub sizes_log2: Vec<u32>,
    /// Kept fractions in percent.
    pub selectivities_percent: Vec<f64>,
    pub kinds: Vec<ElementKind>,
    pub methods: Vec<CompactionMethod>,
    pub warmup_runs: usize,
    pub timed_runs: usize,
    /// Combinations whose input buffer would exceed this many bytes are skipped.
    pub max_buffer_bytes: usize,
    pub seed: u32,
}

impl Default for CompactionBenchOptions {
    fn default() -> Self {
        CompactionBenchOptions {
            sizes_log2: vec![16, 20, 24, 28],
            selectivities_percent: vec![1.0, 10.0, 50.0, 90.0, 100.0],
            kinds: ElementKind::ALL.to_vec(),
            methods: vec![
                CompactionMethod::Collate,
                CompactionMethod::Sections,
                CompactionMethod::Lookback,
                CompactionMethod::LookbackStaged,
                CompactionMethod::LookbackWideBlocks,
                CompactionMethod::LookbackPipelined,
                CompactionMethod::LookbackDeep,
                CompactionMethod::LookbackDeepAhead,
                CompactionMethod::RoundScan,
                CompactionMethod::OutOfKernel,
                CompactionMethod::ThreePass,
            ],
            warmup_runs: 3,
            timed_runs: 10,
            max_buffer_bytes: 4 << 30,
            seed: 0x2545_f491,
        }
    }
}

/// One timed (kind, size, selectivity, method), or the memcpy row (`method == "memcpy"`).
#[derive(Clone, Debug, PartialEq)]
pub struct CompactionTiming {
    pub element: &'static str,
    pub element_bytes: usize,
    pub elements: usize,
    pub selectivity_percent: f64,
    pub method: String,
    pub kept: usize,
    /// Bytes counted: n × size (+ n flag bytes for OfK) read, kept × size written; memcpy:
    /// 2 × n × size.
    pub effective_bytes: u64,
    pub run_ms: Vec<f32>,
    pub median_ms: f32,
    pub gigabytes_per_second: f64,
}

/// What [`bench_compaction`] skipped, and why: a whole (element, size), or one method on
/// every size of an element type (`method` set, `elements` 0).
#[derive(Clone, Debug, PartialEq)]
pub struct SkippedCombination {
    pub element: &'static str,
    pub elements: usize,
    pub method: Option<&'static str>,
    pub reason: String,
}

impl std::fmt::Display for SkippedCombination {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.method {
            Some(method) => write!(f, "{method} on {}: {}", self.element, self.reason),
            None => write!(f, "{} × 2^{}: {}", self.element, self.elements.trailing_zeros(), self.reason),
        }
    }
}

fn gigabytes_per_second(bytes: u64, ms: f32) -> f64 {
    if ms > 0.0 { bytes as f64 / (ms as f64 * 1e-3) / 1e9 } else { 0.0 }
}

/// Times every method of `options` on random data of every size, selectivity and element
/// kind, beside a device-to-device memcpy of the input (cuMemcpyDtoDAsync) in the same run.
/// Each method's kept count is checked against the others'. `progress` sees each row.
pub fn bench_compaction(
    device: &CudaDevice,
    options: &CompactionBenchOptions,
    mut progress: impl FnMut(&CompactionTiming),
) -> CudaResult<(Vec<CompactionTiming>, Vec<SkippedCombination>)> {
    if options.timed_runs == 0 {
        return Err(CudaError::InvalidArgument("bench_compaction needs at least one timed run".into()));
    }
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    // Methods this device cannot run are listed once per element type and left out (u32-only
    // kernels on other types are left out silently: their columns show "–").
    let mut unavailable = Vec::new();
    for &kind in &options.kinds {
        for &method in options.methods.iter().filter(|m| m.supports(kind)) {
            if let Some(reason) = method.unavailable_reason(device, kind) {
                skipped.push(SkippedCombination {
                    element: kind.name(),
                    elements: 0,
                    method: Some(method.name()),
                    reason,
                });
                unavailable.push((kind, method));
            }
        }
    }
    for &kind in &options.kinds {
        for &log2 in &options.sizes_log2 {
            if log2 > 31 {
                return Err(CudaError::InvalidArgument(format!("size 2^{log2} exceeds the 2^31 limit")));
            }
            let n = 1usize << log2;
            let bytes = n * kind.size_bytes();
            if bytes > options.max_buffer_bytes {
                skipped.push(SkippedCombination {
                    element: kind.name(),
                    elements: n,
                    method: None,
                    reason: format!(
                        "{} MiB per buffer exceeds the cap of {} MiB",
                        bytes >> 20,
                        options.max_buffer_bytes >> 20
                    ),
                });
                continue;
            }
            match kind {
                ElementKind::U32 => bench_kind::<u32>(device, options, &unavailable, n, &mut rows, &mut progress)?,
                ElementKind::Elem16 => {
                    bench_kind::<CompactElem16>(device, options, &unavailable, n, &mut rows, &mut progress)?
                }
                ElementKind::PathState => {
                    bench_kind::<CompactPathState>(device, options, &unavailable, n, &mut rows, &mut progress)?
                }
            }
        }
    }
    Ok((rows, skipped))
}

fn bench_kind<T: CompactionElement>(
    device: &CudaDevice,
    options: &CompactionBenchOptions,
    unavailable: &[(ElementKind, CompactionMethod)],
    n: usize,
    rows: &mut Vec<CompactionTiming>,
    progress: &mut impl FnMut(&CompactionTiming),
) -> CudaResult<()> {
    let kind = T::KIND;
    let mut input = DeviceBuffer::<T>::zeroed(device, n)?;
    fill(device, &mut input, options.seed ^ n as u32)?;
    let mut buffers = CompactionBuffers::new(device, input)?;
    let size = kind.size_bytes() as u64;
    let row = |selectivity: f64, method: String, kept: usize, effective_bytes: u64, run_ms: Vec<f32>| {
        let median_ms = crate::runtime::median(&run_ms);
        CompactionTiming {
            element: kind.name(),
            element_bytes: kind.size_bytes(),
            elements: n,
            selectivity_percent: selectivity,
            method,
            kept,
            effective_bytes,
            gigabytes_per_second: gigabytes_per_second(effective_bytes, median_ms),
            median_ms,
            run_ms,
        }
    };
    // memcpy of the input, once per (kind, size).
    {
        let CompactionBuffers { input, output, .. } = &mut buffers;
        let run_ms = device.time_runs(options.warmup_runs, options.timed_runs, || {
            device
                .stream()
                .memcpy_dtod(input.raw(), output.raw_mut())
                .map_err(|e| device.fault("copying device to device", e))
        })?;
        let timing = row(100.0, "memcpy".into(), n, 2 * n as u64 * size, run_ms);
        progress(&timing);
        rows.push(timing);
    }
    for &selectivity in &options.selectivities_percent {
        let threshold = threshold_for(selectivity / 100.0);
        write_flags(device, &buffers.input, &mut buffers.flags, threshold)?;
        let mut reference_count: Option<(CompactionMethod, u32)> = None;
        for &method in &options.methods {
            if !method.supports(kind) || unavailable.contains(&(kind, method)) {
                continue;
            }
            let run_ms =
                device.time_runs(options.warmup_runs, options.timed_runs, || buffers.run(device, method, threshold))?;
            let kept = buffers.workspace.count(device)?;
            if let Some((first, count)) = reference_count {
                if count != kept {
                    return Err(CudaError::Kernel {
                        kernel: method.name().to_string(),
                        message: format!(
                            "kept {kept} of {n} {} elements at {selectivity}%, but {first} kept {count}",
                            kind.name()
                        ),
                    });
                }
            } else {
                reference_count = Some((method, kept));
            }
            let flag_bytes = if method.reads_flags() { n as u64 } else { 0 };
            let effective = n as u64 * size + flag_bytes + kept as u64 * size;
            let timing = row(selectivity, method.name().to_string(), kept as usize, effective, run_ms);
            progress(&timing);
            rows.push(timing);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skipped_lines_name_the_size_or_the_method() {
        let size = SkippedCombination { element: "path64", elements: 1 << 28, method: None, reason: "too big".into() };
        assert_eq!(size.to_string(), "path64 × 2^28: too big");
        let method =
            SkippedCombination { element: "u32", elements: 0, method: Some("round-scan"), reason: "no TMA".into() };
        assert_eq!(method.to_string(), "round-scan on u32: no TMA");
    }

    #[test]
    fn method_names_round_trip_and_bulk_kernels_exist() {
        for method in CompactionMethod::ALL {
            assert_eq!(CompactionMethod::from_name(method.name()), Some(method));
        }
        for kind in ElementKind::ALL {
            for method in [CompactionMethod::RoundScan, CompactionMethod::CollateBulk] {
                let shape = bulk_kernel(method, kind).expect("a kernel");
                assert!(KERNEL_NAMES.contains(&shape.kernel), "{} is not in KERNEL_NAMES", shape.kernel);
                assert!(shape.stages >= 2 && shape.items == kind.items_per_thread());
            }
        }
        for &(name, ..) in ROUND_SCAN_VARIANTS {
            assert!(KERNEL_NAMES.contains(&name), "{name} is not in KERNEL_NAMES");
        }
    }
}
