//! The catalog of path scheduling strategies: every [`Strategy`] a render can use, its
//! command-line name and its one-line description (the table of the module docs of
//! [`crate::strategy`]).

/// How the whole-frame wavefront compacts its surviving paths after each bounce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WavefrontCompaction {
    /// No compaction: every launch covers the whole wave, dead slots are skipped.
    None,
    /// InK-Collate at the end of the extend kernel (seed 001 §2.4).
    Collate,
    /// Order-preserving decoupled look-back at the end of the extend kernel.
    Lookback,
    /// A separate out-of-kernel pass (OfK) after the extend kernel.
    Separate,
    /// InK-Collate after a block-level Morton sort of the survivors.
    Sorted,
    /// InK-Compact at the end of the extend kernel: order kept by sections of 32 blocks.
    Sections,
}

/// A path scheduling strategy (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    Naive,
    NaiveMk,
    Wavefront(WavefrontCompaction),
    Tiled,
    TiledShared,
    RegenThread,
    RegenWarp,
    RegenBlock,
    RegenDevice,
    StreamingSk,
    SortedSk,
    SortingSk,
    StreamingMk,
    MultiStage,
}

impl Strategy {
    /// Every strategy, in the order the benchmark reports them.
    pub const ALL: [Strategy; 19] = [
        Strategy::Naive,
        Strategy::NaiveMk,
        Strategy::Wavefront(WavefrontCompaction::Collate),
        Strategy::Wavefront(WavefrontCompaction::Lookback),
        Strategy::Wavefront(WavefrontCompaction::Sections),
        Strategy::Wavefront(WavefrontCompaction::Separate),
        Strategy::Wavefront(WavefrontCompaction::None),
        Strategy::Wavefront(WavefrontCompaction::Sorted),
        Strategy::Tiled,
        Strategy::TiledShared,
        Strategy::RegenThread,
        Strategy::RegenWarp,
        Strategy::RegenBlock,
        Strategy::RegenDevice,
        Strategy::StreamingSk,
        Strategy::SortedSk,
        Strategy::SortingSk,
        Strategy::StreamingMk,
        Strategy::MultiStage,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Strategy::Naive => "naive",
            Strategy::NaiveMk => "naive-mk",
            Strategy::Wavefront(WavefrontCompaction::Collate) => "wavefront",
            Strategy::Wavefront(WavefrontCompaction::Lookback) => "wavefront-lookback",
            Strategy::Wavefront(WavefrontCompaction::Sections) => "wavefront-inkcompact",
            Strategy::Wavefront(WavefrontCompaction::Separate) => "wavefront-ofk",
            Strategy::Wavefront(WavefrontCompaction::None) => "wavefront-nocompact",
            Strategy::Wavefront(WavefrontCompaction::Sorted) => "wavefront-sorted",
            Strategy::Tiled => "tiled",
            Strategy::TiledShared => "tiled-shared",
            Strategy::RegenThread => "regen-thread",
            Strategy::RegenWarp => "regen-warp",
            Strategy::RegenBlock => "regen-block",
            Strategy::RegenDevice => "regen-device",
            Strategy::StreamingSk => "streaming-sk",
            Strategy::SortedSk => "sorted-sk",
            Strategy::SortingSk => "sorting-sk",
            Strategy::StreamingMk => "streaming-mk",
            Strategy::MultiStage => "multistage",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }

    /// One line for `--help` and the benchmark tables.
    pub fn description(self) -> &'static str {
        match self {
            Strategy::Naive => "megakernel, one thread per pixel traces whole paths (seed 000 B.1)",
            Strategy::NaiveMk => {
                "two kernels: generate and first step of every path, then the rest of each path (seed 003 naiveMK)"
            }
            Strategy::Wavefront(WavefrontCompaction::Collate) => {
                "one bounce per launch, survivors compacted in-kernel by InK-Collate (seed 000 B.2, 001)"
            }
            Strategy::Wavefront(WavefrontCompaction::Lookback) => {
                "wavefront, in-kernel order-preserving compaction by decoupled look-back"
            }
            Strategy::Wavefront(WavefrontCompaction::Sections) => {
                "wavefront, in-kernel order-preserving InK-Compact (sections of 32 blocks, seed 001)"
            }
            Strategy::Wavefront(WavefrontCompaction::Separate) => {
                "wavefront, survivors flagged in place and compacted by a separate OfK pass"
            }
            Strategy::Wavefront(WavefrontCompaction::None) => "wavefront without compaction (dead slots skipped)",
            Strategy::Wavefront(WavefrontCompaction::Sorted) => {
                "wavefront, survivors Morton-sorted per block then collated (seed 003 reordering)"
            }
            Strategy::Tiled => "64-thread blocks run 64x8-path tiles to the end, state in global memory (seed 000 B.3)",
            Strategy::TiledShared => "tiled, path state in shared memory (seed 000 B.3)",
            Strategy::RegenThread => "persistent threads, a thread regenerates as soon as its path ends (seed 003)",
            Strategy::RegenWarp => "persistent threads, a warp regenerates when all its paths ended (seed 003)",
            Strategy::RegenBlock => "persistent threads, the block regenerates its idle threads each bounce (seed 003)",
            Strategy::RegenDevice => "two kernels over a pool: regenerate dead slots, extend live ones (seed 003)",
            Strategy::StreamingSk => "one persistent kernel: block compaction plus regeneration (seed 003 streamingSK)",
            Strategy::SortedSk => "streaming-sk storing survivors in Morton order of their origins (seed 003)",
            Strategy::SortingSk => {
                "sorted-sk with each medium vertex's albedo fetch and shadow ray after the sort (seed 003 sortingSK)"
            }
            Strategy::StreamingMk => {
                "device compaction (InK-Collate) plus a regeneration kernel (seed 003 streamingMK)"
            }
            Strategy::MultiStage => {
                "a kernel per stage of the estimator (surface: intersect, shade per material, shadow rays; volume: track, scatter), SoA paths and queues (Laine et al. 2013)"
            }
        }
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
