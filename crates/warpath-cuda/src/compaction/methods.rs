//! The compaction methods: the table of what each is called, which kernels it launches,
//! whether it keeps the input order and which element types it has. Kept are the methods a
//! renderer uses and those the benchmark table compares them with (docs/benchmarks/
//! compaction.md says why, and which commit holds the experiments that were dropped).

use super::elements::ElementKind;
use super::launch::{CollateKernel, LookbackKernel, SectionsKernel};

/// The compaction methods (docs/benchmarks/compaction.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompactionMethod {
    /// InK-Collate, tiled: one atomicAdd per block; order kept within a block only.
    Collate,
    /// InK-Compact, tiled: order kept by sections of 32 blocks and an intermediate buffer.
    Sections,
    /// Single pass with decoupled look-back, tiled: order kept.
    Lookback,
    /// The deep look-back with tickets ahead (u32 only): the fastest order-preserving u32
    /// method on the H100.
    LookbackDeepAhead,
    /// OfK: look-back compaction in its own kernel from a flag array + the data (the
    /// wavefront's separate pass).
    OutOfKernel,
    /// Three passes: per-tile counts, one-block scan, scatter re-reading the data.
    ThreePass,
    /// InK-Collate with one element per thread (u32 only): the wavefront's in-kernel form.
    CollateX1,
    /// InK-Compact with one element per thread (u32 only).
    SectionsX1,
    /// Look-back with one element per thread (u32 only).
    LookbackX1,
}

/// The kernels a method launches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MethodKernels {
    Collate(CollateKernel),
    Sections(SectionsKernel),
    Lookback(LookbackKernel),
    /// `compaction_ofk_*` (after `compaction_flags_*`, which the caller runs).
    OutOfKernel,
    /// `compaction_count_*`, `compaction_scan_counts`, `compaction_scatter_*`.
    ThreePass,
}

impl CompactionMethod {
    pub const ALL: [CompactionMethod; 9] = [
        CompactionMethod::Collate,
        CompactionMethod::Sections,
        CompactionMethod::Lookback,
        CompactionMethod::LookbackDeepAhead,
        CompactionMethod::OutOfKernel,
        CompactionMethod::ThreePass,
        CompactionMethod::CollateX1,
        CompactionMethod::SectionsX1,
        CompactionMethod::LookbackX1,
    ];

    /// The name in the benchmark's tables and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            CompactionMethod::Collate => "ink-collate",
            CompactionMethod::Sections => "ink-compact",
            CompactionMethod::Lookback => "lookback",
            CompactionMethod::LookbackDeepAhead => "lookback-deep-ahead",
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

    /// The kernels the method launches.
    pub fn kernels(self) -> MethodKernels {
        match self {
            CompactionMethod::Collate => MethodKernels::Collate(CollateKernel::Tiled),
            CompactionMethod::CollateX1 => MethodKernels::Collate(CollateKernel::X1),
            CompactionMethod::Sections => MethodKernels::Sections(SectionsKernel::Tiled),
            CompactionMethod::SectionsX1 => MethodKernels::Sections(SectionsKernel::X1),
            CompactionMethod::Lookback => MethodKernels::Lookback(LookbackKernel::Tiled),
            CompactionMethod::LookbackX1 => MethodKernels::Lookback(LookbackKernel::X1),
            CompactionMethod::LookbackDeepAhead => MethodKernels::Lookback(LookbackKernel::DeepAhead),
            CompactionMethod::OutOfKernel => MethodKernels::OutOfKernel,
            CompactionMethod::ThreePass => MethodKernels::ThreePass,
        }
    }

    /// Whether the output is exactly the kept elements in input order (InK-Collate keeps the
    /// same multiset, in order only within a block).
    pub fn preserves_order(self) -> bool {
        !matches!(self.kernels(), MethodKernels::Collate(_))
    }

    /// Whether the method reads a flag array instead of evaluating the predicate.
    pub fn reads_flags(self) -> bool {
        self.kernels() == MethodKernels::OutOfKernel
    }

    /// Whether kernels exist for `kind` (the one-per-thread and deep kernels are u32 only).
    pub fn supports(self, kind: ElementKind) -> bool {
        match self.kernels() {
            MethodKernels::Collate(kernel) => kernel.name(kind).is_some(),
            MethodKernels::Sections(kernel) => kernel.name(kind).is_some(),
            MethodKernels::Lookback(kernel) => kernel.name(kind).is_some(),
            MethodKernels::OutOfKernel | MethodKernels::ThreePass => true,
        }
    }
}

impl std::fmt::Display for CompactionMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_distinct() {
        for method in CompactionMethod::ALL {
            assert_eq!(CompactionMethod::from_name(method.name()), Some(method));
        }
        let mut names = CompactionMethod::ALL.map(CompactionMethod::name).to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CompactionMethod::ALL.len());
        assert_eq!(CompactionMethod::from_name("round-scan"), None, "dropped experiments are gone");
    }

    #[test]
    fn only_collate_drops_the_order_and_only_ofk_reads_flags() {
        let unordered: Vec<_> = CompactionMethod::ALL.into_iter().filter(|m| !m.preserves_order()).collect();
        assert_eq!(unordered, [CompactionMethod::Collate, CompactionMethod::CollateX1]);
        let flagged: Vec<_> = CompactionMethod::ALL.into_iter().filter(|m| m.reads_flags()).collect();
        assert_eq!(flagged, [CompactionMethod::OutOfKernel]);
        let every_kind: Vec<_> =
            CompactionMethod::ALL.into_iter().filter(|m| ElementKind::ALL.iter().all(|&k| m.supports(k))).collect();
        assert_eq!(
            every_kind,
            [
                CompactionMethod::Collate,
                CompactionMethod::Sections,
                CompactionMethod::Lookback,
                CompactionMethod::OutOfKernel,
                CompactionMethod::ThreePass
            ]
        );
        assert!(CompactionMethod::ALL.iter().all(|m| m.supports(ElementKind::U32)));
    }
}
