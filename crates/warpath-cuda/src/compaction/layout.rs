//! The host's view of the sizes, offsets and tile shapes `compaction_layout_report` writes
//! ([`host_layout`], checked against the device by the GPU test). The tile shapes (block
//! size, items per thread, blocks per section) are `#define`s of compaction.cu, not struct
//! layouts, so this report stays; the structs' sizes and offsets are also checked at compile
//! time by the generated layout checks (`crate::layout_registry`).

use super::elements::{CompactElem16, CompactPathState, ElementKind};
use super::workspace::COMPACTION_BLOCK;
use super::workspace::{CompactionState, SECTION_BLOCKS};
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_has_its_length() {
        assert_eq!(host_layout().len(), LAYOUT_REPORT_LEN);
    }
}
