//! Seed 001's min-max sub-volume and its BVH (§3): the lattice's cells in bricks of B³
//! (the seed's optimum B = 16, a parameter), each brick with the min and max of every sample
//! its cells read (its own samples and the one-sample apron on its upper faces that
//! trilinear interpolation touches), and a balanced BVH over the bricks built once per volume
//! by halving the largest dimension. Per isovalue the tree is condensed bottom-up
//! ([`BrickBvh::condense`]): a brick is valid when min ≤ isovalue ≤ max; a node is valid when
//! a child is; a node with one valid child is replaced by that child, and the boxes of what
//! remains are recomputed from the valid bricks. An isovalue outside the volume's range
//! leaves an empty tree.

use crate::lattice::Lattice;

/// The seed's brick size: 16³ cells.
pub const DEFAULT_BRICK_CELLS: u32 = 16;

/// A node of the full tree: a box of bricks `lo..hi` (brick coordinates, half-open).
#[derive(Clone, Debug, PartialEq)]
pub struct BrickNode {
    pub lo: [u32; 3],
    pub hi: [u32; 3],
    /// Min and max over the subtree's samples.
    pub min: f32,
    pub max: f32,
    /// Child node indices, or None for a leaf (one brick, `lo`).
    pub children: Option<[u32; 2]>,
}

/// The bricks of a lattice and the BVH over them.
#[derive(Clone, Debug)]
pub struct BrickBvh {
    /// Cells per brick along each axis.
    pub brick_cells: u32,
    /// Bricks along each axis.
    pub bricks: [u32; 3],
    /// Cells along each axis (of the lattice).
    pub cells: [u32; 3],
    /// Per brick (x fastest): min and max of the samples it reads.
    pub brick_min: Vec<f32>,
    pub brick_max: Vec<f32>,
    /// The tree, root first.
    pub nodes: Vec<BrickNode>,
}

impl BrickBvh {
    /// Bricks in all.
    pub fn brick_count(&self) -> usize {
        self.bricks.iter().map(|&b| b as usize).product()
    }
}

/// A node of the tree of one isovalue.
#[derive(Clone, Debug, PartialEq)]
pub enum CondensedNode {
    /// A valid brick.
    Leaf { brick: [u32; 3] },
    /// Two subtrees, each holding at least one valid brick; `lo..hi` bounds their bricks.
    Inner { lo: [u32; 3], hi: [u32; 3], children: [u32; 2] },
}

/// The tree of one isovalue: only valid bricks, no node with a single child.
#[derive(Clone, Debug, PartialEq)]
pub struct CondensedTree {
    pub nodes: Vec<CondensedNode>,
    pub root: Option<u32>,
}

impl BrickBvh {
    /// Bricks of `brick_cells`³ cells (at least 1) and their tree.
    pub fn build(lattice: &Lattice, brick_cells: u32) -> Self {
        let brick_cells = brick_cells.max(1);
        let cells = lattice.cells();
        let bricks = cells.map(|c| c.div_ceil(brick_cells));
        let count = bricks.iter().map(|&b| b as usize).product::<usize>();
        let (mut brick_min, mut brick_max) = (vec![f32::INFINITY; count], vec![f32::NEG_INFINITY; count]);
        for bz in 0..bricks[2] {
            for by in 0..bricks[1] {
                for bx in 0..bricks[0] {
                    let b = [bx, by, bz];
                    let lo = b.map(|v| v * brick_cells);
                    // The samples of cells lo .. lo + B: up to and including lo + B (the apron).
                    let hi: [u32; 3] = std::array::from_fn(|a| (lo[a] + brick_cells).min(cells[a]));
                    let (mut mn, mut mx) = (f32::INFINITY, f32::NEG_INFINITY);
                    for k in lo[2]..=hi[2] {
                        for j in lo[1]..=hi[1] {
                            for i in lo[0]..=hi[0] {
                                let v = lattice.sample(i, j, k);
                                mn = mn.min(v);
                                mx = mx.max(v);
                            }
                        }
                    }
                    let index = ((bz * bricks[1] + by) * bricks[0] + bx) as usize;
                    brick_min[index] = mn;
                    brick_max[index] = mx;
                }
            }
        }
        let mut bvh = BrickBvh { brick_cells, bricks, cells, brick_min, brick_max, nodes: Vec::new() };
        bvh.nodes.push(BrickNode { lo: [0; 3], hi: bricks, min: 0.0, max: 0.0, children: None });
        bvh.split(0);
        bvh
    }

    fn brick_index(&self, b: [u32; 3]) -> usize {
        ((b[2] * self.bricks[1] + b[1]) * self.bricks[0] + b[0]) as usize
    }

    /// Min and max of brick `b`.
    pub fn brick_range(&self, b: [u32; 3]) -> (f32, f32) {
        let i = self.brick_index(b);
        (self.brick_min[i], self.brick_max[i])
    }

    /// Splits node `index` down to single bricks (the largest dimension halved), filling in
    /// min and max on the way back up.
    fn split(&mut self, index: usize) {
        let (lo, hi) = (self.nodes[index].lo, self.nodes[index].hi);
        let extent: [u32; 3] = std::array::from_fn(|a| hi[a] - lo[a]);
        if extent == [1, 1, 1] {
            let (min, max) = self.brick_range(lo);
            self.nodes[index].min = min;
            self.nodes[index].max = max;
            return;
        }
        let axis = (0..3).max_by_key(|&a| (extent[a], 3 - a)).unwrap();
        let middle = lo[axis] + extent[axis] / 2;
        let (mut left_hi, mut right_lo) = (hi, lo);
        left_hi[axis] = middle;
        right_lo[axis] = middle;
        let left = self.nodes.len() as u32;
        self.nodes.push(BrickNode { lo, hi: left_hi, min: 0.0, max: 0.0, children: None });
        self.nodes.push(BrickNode { lo: right_lo, hi, min: 0.0, max: 0.0, children: None });
        self.split(left as usize);
        self.split(left as usize + 1);
        let (l, r) = (&self.nodes[left as usize], &self.nodes[left as usize + 1]);
        let (min, max) = (l.min.min(r.min), l.max.max(r.max));
        let node = &mut self.nodes[index];
        node.children = Some([left, left + 1]);
        node.min = min;
        node.max = max;
    }

    /// Whether brick `b` may hold the isosurface of `isovalue`.
    pub fn brick_is_valid(&self, b: [u32; 3], isovalue: f32) -> bool {
        let (min, max) = self.brick_range(b);
        min <= isovalue && isovalue <= max
    }

    /// The tree of `isovalue` (seed 001's per-frame update, on the CPU).
    pub fn condense(&self, isovalue: f32) -> CondensedTree {
        let mut tree = CondensedTree { nodes: Vec::new(), root: None };
        tree.root = self.condense_node(0, isovalue, &mut tree.nodes);
        tree
    }

    fn condense_node(&self, index: usize, isovalue: f32, out: &mut Vec<CondensedNode>) -> Option<u32> {
        let node = &self.nodes[index];
        // The subtree's range is a quick reject (a valid brick lies inside it).
        if !(node.min <= isovalue && isovalue <= node.max) {
            return None;
        }
        match node.children {
            None => {
                out.push(CondensedNode::Leaf { brick: node.lo });
                Some(out.len() as u32 - 1)
            }
            Some([l, r]) => {
                let left = self.condense_node(l as usize, isovalue, out);
                let right = self.condense_node(r as usize, isovalue, out);
                match (left, right) {
                    (None, None) => None,
                    (Some(only), None) | (None, Some(only)) => Some(only),
                    (Some(l), Some(r)) => {
                        let (llo, lhi) = bounds(out, l);
                        let (rlo, rhi) = bounds(out, r);
                        let lo = std::array::from_fn(|a| llo[a].min(rlo[a]));
                        let hi = std::array::from_fn(|a| lhi[a].max(rhi[a]));
                        out.push(CondensedNode::Inner { lo, hi, children: [l, r] });
                        Some(out.len() as u32 - 1)
                    }
                }
            }
        }
    }

    /// The cells of the bricks `lo..hi`: lo·B .. min(hi·B, cells) (half-open).
    pub fn cell_range(&self, lo: [u32; 3], hi: [u32; 3]) -> ([u32; 3], [u32; 3]) {
        let b = self.brick_cells;
        (lo.map(|v| v * b), std::array::from_fn(|a| (hi[a] * b).min(self.cells[a])))
    }

    /// The lattice box of the bricks `lo..hi` ([`BrickBvh::cell_range`] as coordinates).
    pub fn lattice_box(&self, lo: [u32; 3], hi: [u32; 3]) -> ([f64; 3], [f64; 3]) {
        let (lo, hi) = self.cell_range(lo, hi);
        (lo.map(|v| v as f64), hi.map(|v| v as f64))
    }
}

/// The brick box (`lo..hi`, brick coordinates) of a condensed node.
pub fn bounds(nodes: &[CondensedNode], index: u32) -> ([u32; 3], [u32; 3]) {
    match &nodes[index as usize] {
        CondensedNode::Leaf { brick } => (*brick, brick.map(|v| v + 1)),
        CondensedNode::Inner { lo, hi, .. } => (*lo, *hi),
    }
}

impl CondensedTree {
    /// The valid bricks the tree reaches, sorted.
    pub fn leaves(&self) -> Vec<[u32; 3]> {
        let mut leaves: Vec<[u32; 3]> = self
            .nodes
            .iter()
            .filter_map(|n| match n {
                CondensedNode::Leaf { brick } => Some(*brick),
                _ => None,
            })
            .collect();
        leaves.sort_by_key(|b| (b[2], b[1], b[0]));
        leaves
    }

    /// Whether every inner node has two children (none with a single one).
    pub fn is_condensed(&self) -> bool {
        self.nodes.iter().all(|n| match n {
            CondensedNode::Inner { children: [l, r], .. } => l != r,
            _ => true,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fields;

    /// The condensed tree of every isovalue reaches exactly the bricks a brute-force test
    /// finds valid (issue 14: "the BVH update is checked against a brute-force leaf test"),
    /// and each brick's range bounds every interpolated value of its cells.
    #[test]
    fn condensation_keeps_exactly_the_valid_bricks() {
        let lattice = fields::marschner_lobb([41, 41, 41]);
        for brick_cells in [4, 7, 16, 64] {
            let bvh = BrickBvh::build(&lattice, brick_cells);
            let (lo, hi) = lattice.range();
            for step in 0..=20 {
                let isovalue = lo + (hi - lo) * (step as f32 - 2.0) / 16.0;
                let tree = bvh.condense(isovalue);
                let mut expected = Vec::new();
                for bz in 0..bvh.bricks[2] {
                    for by in 0..bvh.bricks[1] {
                        for bx in 0..bvh.bricks[0] {
                            if bvh.brick_is_valid([bx, by, bz], isovalue) {
                                expected.push([bx, by, bz]);
                            }
                        }
                    }
                }
                assert_eq!(tree.leaves(), expected, "B = {brick_cells}, isovalue {isovalue}");
                assert!(tree.is_condensed());
                assert_eq!(tree.root.is_none(), expected.is_empty());
            }
        }
    }

    #[test]
    fn brick_ranges_include_the_apron() {
        // A ramp in x: brick 0 of 2 cells reads samples 0, 1, 2 (2 is the apron).
        let lattice = Lattice::from_fn([5, 2, 2], |i, _, _| i as f32).unwrap();
        let bvh = BrickBvh::build(&lattice, 2);
        assert_eq!(bvh.bricks, [2, 1, 1]);
        assert_eq!(bvh.brick_range([0, 0, 0]), (0.0, 2.0));
        assert_eq!(bvh.brick_range([1, 0, 0]), (2.0, 4.0));
        // A volume smaller than one brick is one leaf.
        let small = BrickBvh::build(&lattice, 16);
        assert_eq!((small.bricks, small.nodes.len()), ([1, 1, 1], 1));
        assert_eq!(small.condense(9.0).root, None, "an isovalue outside the range: an empty tree");
    }
}
