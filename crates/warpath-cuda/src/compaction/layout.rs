//! The layouts the compaction kernels share with Rust: the host's view of the sizes, offsets
//! and tile shapes `compaction_layout_report` writes ([`host_layout`], checked against the
//! device by the GPU test), and the structs whose `static_assert`s compaction.cuh must state
//! ([`layout_entries`], checked without a GPU).

use super::elements::{CompactElem16, CompactPathState, ElementKind};
use super::workspace::COMPACTION_BLOCK;
use super::workspace::{CompactionState, SECTION_BLOCKS};
use crate::layout::{LayoutEntry, layout_list};
use std::mem::{offset_of, size_of};

/// Values `compaction_layout_report` writes.
pub const LAYOUT_REPORT_LEN: usize = 15;

/// The host's view of what `compaction_layout_report` writes: [sizeof Elem16, sizeof
/// PathState, offsets of origin, pdf, direction, t_max, throughput, flags, block, items u32,
/// items elem16, items path64, blocks per section, sizeof CompactionState, offset of its
/// `tiles`].
pub fn host_layout() -> Vec<u32> {
    let layout = vec![
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
        SECTION_BLOCKS,
        size_of::<CompactionState>() as u32,
        offset_of!(CompactionState, tiles) as u32,
    ];
    debug_assert_eq!(layout.len(), LAYOUT_REPORT_LEN);
    layout
}

/// Sizes and field offsets of the structs compaction.cuh mirrors.
pub fn layout_entries() -> Vec<LayoutEntry> {
    layout_list! {
        CompactElem16 { key, payload }
        CompactPathState { key, pixel, depth, rng, origin, pdf, direction, t_max, throughput, flags }
        CompactionState {
            ticket, count, tile_status, block_counts, section_counters, section_flags, section_offsets, tiles
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// compaction.cuh states every size and offset of Rust's layout in a `static_assert`.
    #[test]
    fn header_static_asserts_match_rust_layout() {
        let header = include_str!("../../kernels/compaction/compaction.cuh");
        let missing = crate::layout::missing_header_asserts(header, &layout_entries());
        assert!(missing.is_empty(), "compaction/compaction.cuh lacks static_assert for: {missing:?}");
    }

    #[test]
    fn the_report_has_its_length() {
        assert_eq!(host_layout().len(), LAYOUT_REPORT_LEN);
    }
}
