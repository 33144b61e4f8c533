//! The per-launch state of the compaction kernels: [`CompactionWorkspace`], one device
//! allocation holding the tile ticket, the kept count, the look-back status words, the
//! InK-Compact section counters, flags and offsets, and the per-tile counts, laid out so that
//! the part that must start at zero is one prefix, cleared by one memset per launch; and
//! [`CompactionState`], the addresses of one launch's state as the kernels take it by value
//! (`CompactionState` in `kernels/compaction/compaction.cuh`, Rust owns the layout).

use crate::error::{CudaError, CudaResult};
use crate::runtime::CudaDevice;
use bytemuck::{Pod, Zeroable};
use cudarc::driver::{CudaSlice, DevicePtr, DeviceRepr};

/// Threads per block of every compaction kernel (`COMPACTION_BLOCK`).
pub const COMPACTION_BLOCK: u32 = 256;

/// Blocks per InK-Compact section (`COMPACTION_SECTION_BLOCKS`, seed 001 §2.3).
pub const SECTION_BLOCKS: u32 = 32;

/// The state of one compacting launch (`CompactionState` of compaction/compaction.cuh): the
/// workspace's addresses and this launch's tiles. Passed by value to the compaction kernels
/// and inside `WavefrontBuffers` to the wavefront's extend kernels.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct CompactionState {
    pub ticket: u64,
    pub count: u64,
    pub tile_status: u64,
    pub block_counts: u64,
    pub section_counters: u64,
    pub section_flags: u64,
    pub section_offsets: u64,
    pub tiles: u32,
    pub _pad: u32,
}

// SAFETY: `#[repr(C)]` Pod, layout asserted by compaction/compaction.cuh; passed by value.
unsafe impl DeviceRepr for CompactionState {}

const _: () = assert!(size_of::<CompactionState>() == 64);

impl CompactionState {
    /// The state of a launch of `tiles` tiles over the workspace's seven addresses
    /// ([`CompactionWorkspace::pointers`]).
    pub fn new(addresses: [u64; 7], tiles: u32) -> Self {
        let [ticket, count, tile_status, block_counts, section_counters, section_flags, section_offsets] = addresses;
        CompactionState {
            ticket,
            count,
            tile_status,
            block_counts,
            section_counters,
            section_flags,
            section_offsets,
            tiles,
            _pad: 0,
        }
    }
}

/// The per-launch state of the compaction kernels (see the module docs).
pub struct CompactionWorkspace {
    state: CudaSlice<u8>,
    tiles_capacity: u32,
}

/// Byte offsets of the parts of the workspace for a launch of some number of tiles.
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

    /// State for compacting `n` elements with any method.
    pub fn for_elements(device: &CudaDevice, n: usize) -> CudaResult<Self> {
        let tiles = (n as u64).div_ceil(COMPACTION_BLOCK as u64).max(1);
        Self::new(device, u32::try_from(tiles).map_err(|_| too_many(n))?)
    }

    /// Grows the workspace (a new allocation) when it holds fewer than `tiles` tiles.
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
    /// section_flags, section_offsets] (the order of [`CompactionState`]), laid out for a
    /// launch of `tiles` tiles (the layout [`Self::reset`] clears).
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

    /// Makes room for a launch of `tiles` tiles, zeroes its state and returns it.
    pub(crate) fn prepare(&mut self, device: &CudaDevice, tiles: u32) -> CudaResult<CompactionState> {
        self.ensure(device, tiles)?;
        self.reset(device, tiles)?;
        Ok(CompactionState::new(self.pointers(device, tiles), tiles))
    }

    /// The device address of the kept count (the same for every launch).
    pub(crate) fn count_address(&self, device: &CudaDevice) -> u64 {
        self.pointers(device, 1)[1]
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

pub(crate) fn too_many(n: usize) -> CudaError {
    CudaError::InvalidArgument(format!("{n} elements exceed the compaction kernels' limit of 2^31"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_zeroed_prefix_holds_every_counter_and_nothing_written_before_it_is_read() {
        for tiles in [1u32, 31, 32, 33, 65_536] {
            let layout = state_layout(tiles);
            let sections = (tiles as usize).div_ceil(SECTION_BLOCKS as usize);
            // ticket + count, then a status word per tile, then counters and flags per section.
            assert_eq!(layout.tile_status, 16);
            assert_eq!(layout.section_counters, 16 + 8 * tiles as usize);
            assert_eq!(layout.zeroed_bytes, layout.section_flags + 4 * sections);
            // Offsets and block counts are written before they are read: outside the memset.
            assert!(layout.section_offsets >= layout.zeroed_bytes && layout.block_counts >= layout.zeroed_bytes);
            assert_eq!(layout.total_bytes, layout.block_counts + 4 * tiles as usize);
            // Status words are 8-byte aligned for the 64-bit relaxed loads and stores.
            assert_eq!(layout.tile_status % 8, 0);
        }
    }
}
