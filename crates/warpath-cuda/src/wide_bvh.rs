//! The compressed 8-wide BVH (Ylitie, Karras and Laine, HPG 2017; `warpath_bvh::wide`) on the
//! device: its layout ([`GpuWideBvh`]: the 80-byte [`WideNode`]s as built, and one
//! Möller–Trumbore triangle record per reference) and its upload ([`DeviceWideBvh`]), which the
//! estimators trace through `traversal/trace.cuh` and `traversal/wide.cuh` when a scene is
//! uploaded as [`BvhLayout::Wide8`]. The stand-alone traversal kernels over it (rays in, hits out)
//! are benchmark kernels: warpath-bench's `kernels/traverse.cu` and `wide_traverse.rs`.
//!
//! Triangle records: reference `i` (the `i`-th entry of `WideBvh::prim_indices`, which the nodes'
//! `tri_base + offset` address) is three float4 from float4 `3 i`: `v0` with `w` holding the
//! original triangle id's bits, `v1 - v0`, `v2 - v0` (the binary layout's
//! [`GpuTriangle`](crate::layout::GpuTriangle), so the two kernels share `intersect_triangle`
//! and its arithmetic). SBVH's duplicate references get a record each. The plain records make
//! the wide kernel's hits bit-identical to the CPU's `WideBvh::intersect`.
//!
//! Or, [`WideTriangles::Woop`] ([`GpuWideBvh::from_wide_with`]; the traversal benchmark's option,
//! not the renderers'): reference `i` is three float4 of Woop's rows
//! (`warpath_bvh::wide::woop_rows`: the affine map to the unit triangle, 48 bytes as the plain
//! record) and `triangle_ids[i]` its triangle id, tested by `traversal/woop.cuh`; hits
//! bit-identical to `WideBvh::intersect_woop`'s.

use crate::buffer::DeviceBuffer;
use crate::error::{CudaError, CudaResult};
use crate::runtime::CudaDevice;
use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use warpath_bvh::Bvh;
pub use warpath_bvh::wide::WideTriangles;
use warpath_bvh::wide::{Collapse, WideBvh, WideNode, WideStats, woop_rows};

/// The BVH layout a scene is uploaded with and traced in (`--bvh-layout`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BvhLayout {
    /// The binary Aila–Laine layout (`bvh_layout.rs`, traversal/traversal.cuh).
    #[default]
    Binary,
    /// The compressed 8-wide BVH (this module, traversal/wide.cuh), collapsed with
    /// [`Collapse::Optimal`].
    Wide8,
}

impl BvhLayout {
    pub const ALL: [BvhLayout; 2] = [BvhLayout::Binary, BvhLayout::Wide8];

    /// `binary` or `wide8`.
    pub fn name(self) -> &'static str {
        match self {
            BvhLayout::Binary => "binary",
            BvhLayout::Wide8 => "wide8",
        }
    }

    /// Parses [`BvhLayout::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.name() == name)
    }
}

impl std::fmt::Display for BvhLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The depth (levels below the root) a tree must stay below (`WARPATH_WIDE_MAX_DEPTH` in
/// traversal/wide.cuh: the node groups the kernels' stack holds, one per level; the stack has as
/// many entries again for postponed triangle groups).
pub const WIDE_MAX_DEPTH: usize = 64;

/// The wide scene's device addresses as `traversal/wide.cuh`'s `WideTraversalScene` reads them.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct WideTraversalSceneArgs {
    pub nodes: u64,
    pub triangles: u64,
}

/// The wide layout of one BVH, on the host.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GpuWideBvh {
    /// The compressed nodes as built (node 0 the root).
    pub nodes: Vec<WideNode>,
    /// Three float4 per reference (see the module docs): plain records or Woop rows.
    pub triangles: Vec<[f32; 4]>,
    /// What `triangles` holds.
    pub triangle_layout: WideTriangles,
    /// [`WideTriangles::Woop`]: the triangle id of each reference (`WideBvh::prim_indices`; one
    /// 0 for a tree without references). Plain: empty (the ids are in the records).
    pub triangle_ids: Vec<u32>,
    /// Levels below the root (the stack entries a traversal may need).
    pub max_depth: usize,
}

impl GpuWideBvh {
    /// The layout of `wide`, built over `tris`, with plain triangle records (the renderers').
    pub fn from_wide(wide: &WideBvh, tris: &[[Vec3; 3]]) -> CudaResult<GpuWideBvh> {
        Self::from_wide_with(wide, tris, WideTriangles::Plain)
    }

    /// The layout of `wide`, built over `tris`, with the triangles in `triangle_layout`.
    pub fn from_wide_with(
        wide: &WideBvh,
        tris: &[[Vec3; 3]],
        triangle_layout: WideTriangles,
    ) -> CudaResult<GpuWideBvh> {
        if tris.len() > i32::MAX as usize {
            return Err(CudaError::InvalidBvh(format!("{} triangles exceed the 32-bit triangle ids", tris.len())));
        }
        if wide.nodes.is_empty() {
            return Err(CudaError::InvalidBvh("a wide BVH has at least its root node".into()));
        }
        if wide.prim_indices.len().saturating_mul(3) > u32::MAX as usize {
            return Err(CudaError::InvalidBvh(format!("{} references exceed 32-bit indices", wide.prim_indices.len())));
        }
        let max_depth = wide.max_depth() as usize;
        if max_depth >= WIDE_MAX_DEPTH {
            return Err(CudaError::InvalidBvh(format!(
                "the wide tree is {max_depth} levels deep; the kernels' stack allows {}",
                WIDE_MAX_DEPTH - 1
            )));
        }
        let mut triangles = Vec::with_capacity(3 * wide.prim_indices.len());
        for &prim in &wide.prim_indices {
            let tri = tris
                .get(prim as usize)
                .ok_or_else(|| CudaError::InvalidBvh(format!("a leaf references triangle {prim} of {}", tris.len())))?;
            match triangle_layout {
                WideTriangles::Plain => {
                    let (v0, edge1, edge2) = (tri[0], tri[1] - tri[0], tri[2] - tri[0]);
                    triangles.push([v0.x, v0.y, v0.z, f32::from_bits(prim)]);
                    triangles.push([edge1.x, edge1.y, edge1.z, 0.0]);
                    triangles.push([edge2.x, edge2.y, edge2.z, 0.0]);
                }
                WideTriangles::Woop => triangles.extend_from_slice(&woop_rows(tri)),
            }
        }
        if triangles.is_empty() {
            // Device buffers are never empty; the kernels read no record of a tree without triangles.
            triangles.extend_from_slice(&[[0.0; 4]; 3]);
        }
        let triangle_ids = match triangle_layout {
            WideTriangles::Plain => Vec::new(),
            WideTriangles::Woop if wide.prim_indices.is_empty() => vec![0],
            WideTriangles::Woop => wide.prim_indices.clone(),
        };
        Ok(GpuWideBvh { nodes: wide.nodes.clone(), triangles, triangle_layout, triangle_ids, max_depth })
    }

    /// Collapses `bvh` (built over `tris`) with `collapse` and converts it; also the build's
    /// statistics (their `build_seconds` is the collapse and compression time).
    pub fn from_bvh(bvh: &Bvh, tris: &[[Vec3; 3]], collapse: Collapse) -> CudaResult<(GpuWideBvh, WideStats)> {
        let (wide, stats) = WideBvh::from_binary(bvh, tris, collapse);
        Ok((GpuWideBvh::from_wide(&wide, tris)?, stats))
    }

    /// Bytes the layout takes in device memory.
    pub fn size_bytes(&self) -> usize {
        self.nodes.len() * std::mem::size_of::<WideNode>() + self.triangles.len() * 16 + self.triangle_ids.len() * 4
    }
}

/// A [`GpuWideBvh`] in device memory.
#[derive(Debug)]
pub struct DeviceWideBvh {
    pub(crate) nodes: DeviceBuffer<WideNode>,
    pub(crate) triangles: DeviceBuffer<[f32; 4]>,
    /// [`WideTriangles::Woop`]'s ids (None for plain records).
    triangle_ids: Option<DeviceBuffer<u32>>,
    pub triangle_layout: WideTriangles,
    pub node_count: usize,
    pub reference_count: usize,
}

impl DeviceWideBvh {
    /// Uploads `bvh`.
    pub fn upload(device: &CudaDevice, bvh: &GpuWideBvh) -> CudaResult<DeviceWideBvh> {
        let ids_expected = match bvh.triangle_layout {
            WideTriangles::Plain => bvh.triangle_ids.is_empty(),
            WideTriangles::Woop => bvh.triangle_ids.len() == (bvh.triangles.len() / 3).max(1),
        };
        if bvh.nodes.is_empty() || bvh.triangles.is_empty() || !bvh.triangles.len().is_multiple_of(3) || !ids_expected {
            return Err(CudaError::InvalidBvh(format!(
                "{} nodes, {} triangle float4 and {} ids ({}): not a converted GpuWideBvh",
                bvh.nodes.len(),
                bvh.triangles.len(),
                bvh.triangle_ids.len(),
                bvh.triangle_layout
            )));
        }
        let triangle_ids = match bvh.triangle_layout {
            WideTriangles::Plain => None,
            WideTriangles::Woop => Some(DeviceBuffer::from_slice(device, &bvh.triangle_ids)?),
        };
        Ok(DeviceWideBvh {
            nodes: DeviceBuffer::from_slice(device, &bvh.nodes)?,
            triangles: DeviceBuffer::from_slice(device, &bvh.triangles)?,
            triangle_ids,
            triangle_layout: bvh.triangle_layout,
            node_count: bvh.nodes.len(),
            reference_count: bvh.triangles.len() / 3,
        })
    }

    /// Collapses `bvh` (built over `tris`), converts and uploads it.
    pub fn from_bvh(
        device: &CudaDevice,
        bvh: &Bvh,
        tris: &[[Vec3; 3]],
        collapse: Collapse,
    ) -> CudaResult<(DeviceWideBvh, WideStats)> {
        let (layout, stats) = GpuWideBvh::from_bvh(bvh, tris, collapse)?;
        Ok((Self::upload(device, &layout)?, stats))
    }

    /// The addresses the kernels read (`WideTraversalScene`: plain records only; the renderers
    /// upload no other).
    pub fn args(&self, device: &CudaDevice) -> WideTraversalSceneArgs {
        assert_eq!(self.triangle_layout, WideTriangles::Plain, "the renderers trace plain triangle records");
        WideTraversalSceneArgs { nodes: self.nodes.address(device), triangles: self.triangles.address(device) }
    }

    /// The compressed nodes (`const float4* nodes` of the wide kernels).
    pub fn nodes(&self) -> &DeviceBuffer<WideNode> {
        &self.nodes
    }

    /// The triangle records or Woop rows, three float4 per reference (`const float4* triangles`).
    pub fn triangles(&self) -> &DeviceBuffer<[f32; 4]> {
        &self.triangles
    }

    /// The Woop layout's triangle ids (`const unsigned int* triangle_ids`); None for plain records.
    pub fn triangle_ids(&self) -> Option<&DeviceBuffer<u32>> {
        self.triangle_ids.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpath_bvh::BuildOptions;

    fn quad_grid(n: usize) -> Vec<[Vec3; 3]> {
        let mut tris = Vec::new();
        for i in 0..n {
            for j in 0..n {
                let p = Vec3::new(i as f32, j as f32, (i * j % 3) as f32 * 0.1);
                tris.push([p, p + Vec3::X, p + Vec3::Y]);
                tris.push([p + Vec3::X, p + Vec3::X + Vec3::Y, p + Vec3::Y]);
            }
        }
        tris
    }

    #[test]
    fn records_follow_prim_indices_with_ids_in_w() {
        let tris = quad_grid(12);
        let (bvh, _) = Bvh::build(&tris, &BuildOptions::default());
        for collapse in [Collapse::Optimal, Collapse::Greedy] {
            let (wide, _) = WideBvh::from_binary(&bvh, &tris, collapse);
            let layout = GpuWideBvh::from_wide(&wide, &tris).unwrap();
            assert_eq!(layout.nodes, wide.nodes);
            assert_eq!(layout.triangles.len(), 3 * wide.prim_indices.len());
            assert_eq!(layout.max_depth, wide.max_depth() as usize);
            for (i, &prim) in wide.prim_indices.iter().enumerate() {
                let [v0, e1, e2] = [layout.triangles[3 * i], layout.triangles[3 * i + 1], layout.triangles[3 * i + 2]];
                let tri = tris[prim as usize];
                assert_eq!(v0[3].to_bits(), prim);
                assert_eq!(Vec3::new(v0[0], v0[1], v0[2]), tri[0]);
                assert_eq!(Vec3::new(e1[0], e1[1], e1[2]), tri[1] - tri[0]);
                assert_eq!(Vec3::new(e2[0], e2[1], e2[2]), tri[2] - tri[0]);
            }
            assert_eq!(layout.size_bytes(), 80 * wide.nodes.len() + 48 * wide.prim_indices.len());
        }
    }

    #[test]
    fn woop_rows_follow_prim_indices_with_ids_beside() {
        let tris = quad_grid(12);
        for kind in [warpath_bvh::BuildKind::Sah, warpath_bvh::BuildKind::Sbvh] {
            let (bvh, _) = Bvh::build(&tris, &BuildOptions { kind, ..Default::default() });
            let (wide, _) = WideBvh::from_binary(&bvh, &tris, Collapse::Optimal);
            let layout = GpuWideBvh::from_wide_with(&wide, &tris, WideTriangles::Woop).unwrap();
            assert_eq!(layout.triangle_layout, WideTriangles::Woop);
            assert_eq!(layout.nodes, wide.nodes);
            assert_eq!(layout.triangle_ids, wide.prim_indices);
            assert_eq!(layout.triangles.len(), 3 * wide.prim_indices.len());
            for (i, &prim) in wide.prim_indices.iter().enumerate() {
                assert_eq!(layout.triangles[3 * i..3 * i + 3], woop_rows(&tris[prim as usize]));
            }
            assert_eq!(layout.size_bytes(), 80 * wide.nodes.len() + 52 * wide.prim_indices.len());
            let plain = GpuWideBvh::from_wide(&wide, &tris).unwrap();
            assert_eq!(plain.triangle_layout, WideTriangles::Plain);
            assert!(plain.triangle_ids.is_empty());
        }
        let (bvh, _) = Bvh::build(&[], &BuildOptions::default());
        let (wide, _) = WideBvh::from_binary(&bvh, &[], Collapse::Optimal);
        let empty = GpuWideBvh::from_wide_with(&wide, &[], WideTriangles::Woop).unwrap();
        assert_eq!((empty.triangles.len(), empty.triangle_ids.len()), (3, 1));
        let (bvh, _) = Bvh::build(&tris, &BuildOptions::default());
        let (wide, _) = WideBvh::from_binary(&bvh, &tris, Collapse::Optimal);
        assert!(GpuWideBvh::from_wide_with(&wide, &tris[..4], WideTriangles::Woop).is_err(), "a bad reference");
    }

    #[test]
    fn empty_tree_keeps_one_record_and_its_root() {
        let (bvh, _) = Bvh::build(&[], &BuildOptions::default());
        let (layout, _) = GpuWideBvh::from_bvh(&bvh, &[], Collapse::Optimal).unwrap();
        assert_eq!(layout.nodes.len(), 1);
        assert_eq!(layout.nodes[0].meta, [0; 8]);
        assert_eq!(layout.triangles.len(), 3);
    }

    #[test]
    fn layout_names_round_trip() {
        for layout in BvhLayout::ALL {
            assert_eq!(BvhLayout::from_name(layout.name()), Some(layout));
        }
        assert_eq!(BvhLayout::default(), BvhLayout::Binary);
        assert_eq!(BvhLayout::from_name("wide4"), None);
    }

    #[test]
    fn bad_references_are_errors() {
        let tris = quad_grid(3);
        let (bvh, _) = Bvh::build(&tris, &BuildOptions::default());
        let (wide, _) = WideBvh::from_binary(&bvh, &tris, Collapse::Optimal);
        assert!(GpuWideBvh::from_wide(&wide, &tris[..4]).is_err());
        let no_nodes = WideBvh { nodes: Vec::new(), prim_indices: Vec::new() };
        assert!(GpuWideBvh::from_wide(&no_nodes, &tris).is_err());
    }
}
