// isosurface/update.cuh — seed 001's per-isovalue BVH update on the device (issue 14): the
// full brick tree (built once per volume on the host, warpath_isosurface::BrickBvh) is
// condensed for an isovalue. A brick is valid when min ≤ isovalue ≤ max; an inner node
// whose children both reach a valid brick keeps them (its box the union of theirs); with
// one, it is replaced by that child (its reference is the child's); with none, it is
// dropped. Two ways: in one launch from the valid bricks up (iso_climb_from_brick, below:
// the default), or as the seed does it, level by level, deepest first — the wide bottom
// levels by a launch each over the whole GPU, the rest by one block with barriers. The
// condensed tree keeps the full tree's node indices (unused slots are never reached) and
// its root is refs[0], which the casters read through IsoRenderArgs.root_slot — no
// read-back between the update and the frame. BrickBvh::condense is the host's version;
// the GPU test asks for the same tree from both. Layouts (IsoTreeNode, IsoUpdateArgs,
// IsoClimbArgs) are owned by Rust (src/isosurface/update.rs).
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

struct IsoUpdateArgs {
    const IsoTreeNode* tree;            // the full tree
    const unsigned int* level_nodes;    // node indices, level by level from the root's
    const unsigned int* level_offsets;  // [levels + 1]: level l is level_nodes[off[l] .. off[l+1])
    IsoNode* nodes;                     // out: the condensed tree, at the full tree's indices
    unsigned int* refs;                 // out: per node, what replaces it (ISO_NO_NODE: nothing)
    unsigned int levels;
    float isovalue;
};

// The condensed tree's leaf for brick t (its cells; no children).
__device__ __forceinline__ IsoNode iso_leaf_node(const IsoTreeNode& t) {
    IsoNode leaf;
    for (int c = 0; c < 3; ++c) {
        leaf.lo[c] = t.lo[c];
        leaf.hi[c] = t.hi[c];
    }
    leaf.left = leaf.right = ISO_NO_NODE;
    return leaf;
}

// The condensed tree's inner node over condensed nodes l (ln) and r (rn): the union of boxes.
__device__ __forceinline__ IsoNode iso_inner_node(unsigned int l, const IsoNode& ln, unsigned int r, const IsoNode& rn) {
    IsoNode inner;
    for (int c = 0; c < 3; ++c) {
        inner.lo[c] = min(ln.lo[c], rn.lo[c]);
        inner.hi[c] = max(ln.hi[c], rn.hi[c]);
    }
    inner.left = l;
    inner.right = r;
    return inner;
}

// One node of the update: a brick is kept when valid; an inner node is kept when both
// children's subtrees reach a valid brick, else replaced by the one that does (or dropped).
// Reads only the refs and nodes of deeper levels.
__device__ __forceinline__ void iso_update_node(const IsoUpdateArgs& a, unsigned int n) {
    const IsoTreeNode t = a.tree[n];
    unsigned int ref = ISO_NO_NODE;
    if (t.left == ISO_NO_NODE) {
        if (t.min <= a.isovalue && a.isovalue <= t.max) {
            a.nodes[n] = iso_leaf_node(t);
            ref = n;
        }
    } else {
        const unsigned int l = a.refs[t.left], r = a.refs[t.right];
        if (l != ISO_NO_NODE && r != ISO_NO_NODE) {
            a.nodes[n] = iso_inner_node(l, a.nodes[l], r, a.nodes[r]);
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

// The update in one launch ("climb"): a thread per brick; a valid brick writes its leaf and
// climbs toward the root, each parent finished by the second of its children's threads to
// arrive. It relies on what BrickBvh's ranges guarantee (bricks share their apron samples,
// so the ranges of two siblings overlap, checked on the host at upload): a subtree whose
// min–max range holds the isovalue holds a valid brick, so a thread will arrive from each
// such child and from no other. Threads of invalid bricks stop at once, and subtrees out of
// range are never visited: the work is the valid bricks and their ancestors, not the tree.
struct IsoClimbArgs {
    const IsoTreeNode* tree;        // the full tree
    const unsigned int* parents;    // per node: its parent (ISO_NO_NODE for the root)
    const unsigned int* leaves;     // the bricks' node indices
    const float* leaf_ranges;       // per brick: min, max
    unsigned int* arrivals;         // per node: threads arrived, even between updates
    IsoNode* nodes;                 // out: the condensed tree, at the full tree's indices
    unsigned int* refs;             // out: per node reached, what replaces it
    unsigned int leaf_count;
    float isovalue;
};

// A condensed node another thread wrote in this launch: read from L2 (L1 is not coherent).
__device__ __forceinline__ IsoNode iso_load_coherent(const IsoNode* nodes, unsigned int n) {
    const uint4* p = reinterpret_cast<const uint4*>(nodes + n);
    return iso_node_from_halves(__ldcg(p), __ldcg(p + 1));
}

__device__ __forceinline__ void iso_climb_from_brick(const IsoClimbArgs& a) {
    const unsigned int k = blockIdx.x * blockDim.x + threadIdx.x;
    const float iso = a.isovalue;
    // An isovalue outside the root's range: no thread reaches the root; the tree is empty.
    if (k == 0u && !(a.tree[0].min <= iso && iso <= a.tree[0].max)) a.refs[0] = ISO_NO_NODE;
    if (k >= a.leaf_count) return;
    if (!(a.leaf_ranges[2u * k] <= iso && iso <= a.leaf_ranges[2u * k + 1u])) return;
    unsigned int n = a.leaves[k];
    a.nodes[n] = iso_leaf_node(a.tree[n]);
    a.refs[n] = n;
    unsigned int ref = n;  // what replaces n
    for (;;) {
        const unsigned int p = a.parents[n];
        if (p == ISO_NO_NODE) return;
        const unsigned int left = a.tree[p].left, right = a.tree[p].right;
        const unsigned int sibling = left == n ? right : left;
        if (a.tree[sibling].min <= iso && iso <= a.tree[sibling].max) {
            // Both children reach a valid brick: the second thread to arrive builds p.
            __threadfence();
            if ((atomicAdd(a.arrivals + p, 1u) & 1u) == 0u) return;
            __threadfence();
            const unsigned int other = __ldcg(a.refs + sibling);
            const unsigned int l = left == n ? ref : other, r = left == n ? other : ref;
            a.nodes[p] = iso_inner_node(l, iso_load_coherent(a.nodes, l), r, iso_load_coherent(a.nodes, r));
            ref = p;
        }
        // Else p has one valid child, n: p is replaced by what replaces n.
        a.refs[p] = ref;
        n = p;
    }
}

// The sizes and field offsets of this header's structs are Rust's (src/layout_registry.rs),
// checked by the generated header once the headers each struct needs are complete.
#define WARPATH_LAYOUT_ISOSURFACE_UPDATE
#include "generated/layout_checks.cuh"
