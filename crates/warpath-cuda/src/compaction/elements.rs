//! The element types the compaction kernels are instantiated for: `u32`, a 16-byte struct
//! ([`CompactElem16`]) and a 64-byte path state ([`CompactPathState`], what a wavefront path
//! tracer carries per path). Rust owns their layout; `kernels/compaction/compaction.cuh`
//! mirrors it with `static_assert`s.

use super::predicate::{compaction_hash, keeps};
use bytemuck::{Pod, Zeroable};

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

    /// Elements per thread of the tiled kernels (`COMPACTION_ITEMS_*` in compaction.cu).
    pub fn items_per_thread(self) -> u32 {
        match self {
            ElementKind::U32 => 16,
            ElementKind::Elem16 => 8,
            ElementKind::PathState => 2,
        }
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

/// The reference: the elements the predicate keeps under `threshold`, in input order.
pub fn cpu_filter<T: CompactionElement>(input: &[T], threshold: u64) -> Vec<T> {
    input.iter().filter(|e| keeps(e.key(), threshold)).copied().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::predicate::threshold_for;

    #[test]
    fn the_reference_filter_keeps_in_order_what_the_predicate_keeps() {
        let keys: Vec<u32> = (0..200).collect();
        assert_eq!(cpu_filter(&keys, threshold_for(1.0)), keys);
        assert!(cpu_filter(&keys, threshold_for(0.0)).is_empty());
        let half = cpu_filter(&keys, threshold_for(0.5));
        assert!(half.windows(2).all(|w| w[0] < w[1]), "input order");
        assert!(half.iter().all(|&k| keeps(k, threshold_for(0.5))));
        assert_eq!(half.len(), keys.iter().filter(|&&k| keeps(k, threshold_for(0.5))).count());
    }
}
