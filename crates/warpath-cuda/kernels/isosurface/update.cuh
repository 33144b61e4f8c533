// isosurface/update.cuh — seed 001's per-isovalue BVH update on the device (issue 14): the
// full brick tree (built once per volume on the host, warpath_isosurface::BrickBvh) is
// condensed for an isovalue level by level, deepest first — the wide bottom levels by a
// launch each over the whole GPU, the rest by one block with barriers: a brick is valid
// when min ≤ isovalue ≤ max; an inner node whose children both reach a valid brick keeps
// them (its box the union of theirs); with one, it is replaced by that child (its reference
// is the child's); with none, it is dropped. The condensed tree keeps the full tree's node
// indices (unused slots are never reached) and its root is refs[0], which the casters read
// through IsoRenderArgs.root_slot — no read-back between the update and the frame.
// BrickBvh::condense is the host's version; the GPU test asks for the same tree.
// Layouts (IsoTreeNode, IsoUpdateArgs) are owned by Rust (src/isosurface.rs).
#pragma once
#include "isosurface/caster.cuh"

// A node of the full tree: its cells lo..hi, children (ISO_NO_NODE for a brick), and the
// min and max of the samples its cells read.
struct IsoTreeNode {
    unsigned int lo[3];
    unsigned int hi[3];
    unsigned int left;
    unsigned int right;
    float min;
    float max;
};
static_assert(sizeof(IsoTreeNode) == 40, "IsoTreeNode size");
static_assert(WARPATH_OFFSETOF(IsoTreeNode, lo) == 0, "IsoTreeNode.lo");
static_assert(WARPATH_OFFSETOF(IsoTreeNode, hi) == 12, "IsoTreeNode.hi");
static_assert(WARPATH_OFFSETOF(IsoTreeNode, left) == 24, "IsoTreeNode.left");
static_assert(WARPATH_OFFSETOF(IsoTreeNode, right) == 28, "IsoTreeNode.right");
static_assert(WARPATH_OFFSETOF(IsoTreeNode, min) == 32, "IsoTreeNode.min");
static_assert(WARPATH_OFFSETOF(IsoTreeNode, max) == 36, "IsoTreeNode.max");

struct IsoUpdateArgs {
    const IsoTreeNode* tree;            // the full tree
    const unsigned int* level_nodes;    // node indices, level by level from the root's
    const unsigned int* level_offsets;  // [levels + 1]: level l is level_nodes[off[l] .. off[l+1])
    IsoNode* nodes;                     // out: the condensed tree, at the full tree's indices
    unsigned int* refs;                 // out: per node, what replaces it (ISO_NO_NODE: nothing)
    unsigned int levels;
    float isovalue;
};
static_assert(sizeof(IsoUpdateArgs) == 48, "IsoUpdateArgs size");
static_assert(WARPATH_OFFSETOF(IsoUpdateArgs, tree) == 0, "IsoUpdateArgs.tree");
static_assert(WARPATH_OFFSETOF(IsoUpdateArgs, level_nodes) == 8, "IsoUpdateArgs.level_nodes");
static_assert(WARPATH_OFFSETOF(IsoUpdateArgs, level_offsets) == 16, "IsoUpdateArgs.level_offsets");
static_assert(WARPATH_OFFSETOF(IsoUpdateArgs, nodes) == 24, "IsoUpdateArgs.nodes");
static_assert(WARPATH_OFFSETOF(IsoUpdateArgs, refs) == 32, "IsoUpdateArgs.refs");
static_assert(WARPATH_OFFSETOF(IsoUpdateArgs, levels) == 40, "IsoUpdateArgs.levels");
static_assert(WARPATH_OFFSETOF(IsoUpdateArgs, isovalue) == 44, "IsoUpdateArgs.isovalue");

// One node of the update: a brick is kept when valid; an inner node is kept when both
// children's subtrees reach a valid brick, else replaced by the one that does (or dropped).
// Reads only the refs and nodes of deeper levels.
__device__ __forceinline__ void iso_update_node(const IsoUpdateArgs& a, unsigned int n) {
    const IsoTreeNode t = a.tree[n];
    unsigned int ref = ISO_NO_NODE;
    if (t.left == ISO_NO_NODE) {
        if (t.min <= a.isovalue && a.isovalue <= t.max) {
            IsoNode leaf;
            for (int c = 0; c < 3; ++c) {
                leaf.lo[c] = t.lo[c];
                leaf.hi[c] = t.hi[c];
            }
            leaf.left = leaf.right = ISO_NO_NODE;
            a.nodes[n] = leaf;
            ref = n;
        }
    } else {
        const unsigned int l = a.refs[t.left], r = a.refs[t.right];
        if (l != ISO_NO_NODE && r != ISO_NO_NODE) {
            const IsoNode ln = a.nodes[l], rn = a.nodes[r];
            IsoNode inner;
            for (int c = 0; c < 3; ++c) {
                inner.lo[c] = min(ln.lo[c], rn.lo[c]);
                inner.hi[c] = max(ln.hi[c], rn.hi[c]);
            }
            inner.left = l;
            inner.right = r;
            a.nodes[n] = inner;
            ref = n;
        } else {
            ref = l != ISO_NO_NODE ? l : r;
        }
    }
    a.refs[n] = ref;
}

// Called by every thread of one block: levels a.levels − 1 .. 0 bottom-up, a barrier between
// levels (a level reads only what deeper levels wrote; global writes of a block are visible
// to it after __syncthreads). Deeper levels, when there are more, were updated before by
// iso_update_level launches (the host's split: levels too wide for one block).
__device__ __forceinline__ void iso_update_levels(const IsoUpdateArgs& a) {
    for (int level = (int)a.levels - 1; level >= 0; --level) {
        const unsigned int end = a.level_offsets[level + 1];
        for (unsigned int k = a.level_offsets[level] + threadIdx.x; k < end; k += blockDim.x)
            iso_update_node(a, a.level_nodes[k]);
        __syncthreads();
    }
}

// One level by the whole grid (a thread per node): the wide bottom levels, one launch each,
// deepest first (kernel boundaries order the levels).
__device__ __forceinline__ void iso_update_one_level(const IsoUpdateArgs& a, unsigned int level) {
    const unsigned int k = a.level_offsets[level] + blockIdx.x * blockDim.x + threadIdx.x;
    if (k < a.level_offsets[level + 1]) iso_update_node(a, a.level_nodes[k]);
}
