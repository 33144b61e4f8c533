// traversal/wide.cuh — closest-hit and any-hit traversal of the compressed 8-wide BVH of
// Ylitie, Karras and Laine ("Efficient Incoherent Ray Traversal on GPUs Through Compressed
// Wide BVHs", HPG 2017), one ray per thread. It ports warpath_bvh::wide's CPU traversal
// (crates/warpath-bvh/src/wide/traverse.rs, the specification; layout in docs/wide-bvh.md)
// operation for operation, so a hit here equals WideBvh::intersect's bit for bit (the lockstep
// crate compiles this header as host C++ and checks exactly that):
//
// * The state is two groups of two words (base, bits): the node group (a node's child_base;
//   bits 24..31 the hit internal children still to visit, child in slot s at bit
//   24 + (s ^ oct_inv); bits 0..7 that node's imask) and the triangle group (a node's tri_base;
//   bits 0..23 the triangles prim_indices[base + i] still to test). The stack holds node
//   groups and, when a kernel asks for the paper's postponing (few lanes of the warp have
//   triangles to test), triangle groups (bits 24..31 clear) to test later.
// * Children are visited highest bit first: s ^ oct = 0, 1, ..., 7, near to far in the ray's
//   octant (slots were assigned by octant at build time).
// * A node is five 16-byte loads; its 8 child boxes are decoded plane by plane
//   (origin + q * 2^e, exact) and slab-tested as the binary kernels test a box (entry and exit
//   planes by the direction's sign, NaN slabs dropped, exit widened by 1 + 2γ₃, culled at the
//   best hit plus 1e-5 relative). Empty slots have meta 0, so whatever their (zero) box gives,
//   they add no bit: the 8 tests need no branch per slot.
// * Triangles are the binary kernels' Möller–Trumbore records (v0, v1 - v0, v2 - v0) stored per
//   reference in prim_indices order, the original triangle id in v0.w's bits (WideTraversalScene);
//   ties in t go to the lower id. The traversal is a template over the scene type, whose
//   triangle test is wide_intersect_reference's overload: traversal/woop.cuh's WideWoopScene tests the same
//   references in Woop's layout instead (the benchmark's option; warpath_bvh::wide's
//   intersect_woop is its specification).
#pragma once
#include "common/layout.cuh"
#include "traversal/ray_triangle.cuh"

// Levels below the root a tree may have (warpath_cuda::wide_bvh::WIDE_MAX_DEPTH refuses deeper
// ones): the node groups on the stack, one per level.
#define WARPATH_WIDE_MAX_DEPTH 64
// The largest |1/d| a node test works with: 2^64 (warpath_bvh::wide's INV_DIRECTION_LIMIT).
#define WARPATH_WIDE_INV_LIMIT 18446744073709551616.0f
// Stack entries per ray: the node groups, and as many postponed triangle groups.
#define WARPATH_WIDE_STACK_SIZE 128
// Node-group bits: hit internal children not yet visited.
#define WARPATH_WIDE_NODE_BITS 0xff000000u
// Triangle-group bits.
#define WARPATH_WIDE_TRI_BITS 0x00ffffffu

// warpath_bvh::wide::WideNode, 80 bytes: read as five float4 (the struct is here for the
// layout checks; the traversal decodes the words itself).
struct alignas(16) WideNode {
    float origin[3];               // quantization origin p
    signed char exponents[3];      // per-axis scale 2^e
    unsigned char imask;           // bit s: slot s holds an internal child
    unsigned int child_base;       // first internal child; the others follow in slot order
    unsigned int tri_base;         // first triangle reference of the node's leaves
    unsigned char meta[8];         // per slot: 0 empty, 0b001_11sss internal, 0bccc_ooooo leaf
    unsigned char q_lo[3][8];      // quantized minimum planes [axis][slot]
    unsigned char q_hi[3][8];      // quantized maximum planes [axis][slot]
};

// The wide scene as the kernels read it (warpath_cuda::wide_bvh::DeviceWideBvh), plain records.
struct WideTraversalScene {
    const float4* __restrict__ nodes;      // WideNode, 5 float4 each; node 0 is the root
    const float4* __restrict__ triangles;  // 3 float4 per reference: v0 (w: triangle id bits), e1, e2
};

// The triangle test of a scene's reference `reference` (wide_step calls it by the scene's type;
// traversal/woop.cuh overloads it for WideWoopScene): true with (t, u, v) and the triangle id
// `prim` for a hit with t in (t_min, t_max). Here Möller–Trumbore on the plain record; the float
// after the reference, the best hit's t, is for tests that reject early (this one does not).
__device__ __forceinline__ bool wide_intersect_reference(const WideTraversalScene& scene, const PreparedRay& ray,
                                                         unsigned int reference, float, float& t, float& u,
                                                         float& v, int& prim) {
    const float4* record = scene.triangles + (size_t)reference * 3u;
    const float4 v0 = __ldg(record + 0);
    if (!intersect_triangle(ray, v0, __ldg(record + 1), __ldg(record + 2), t, u, v)) return false;
    prim = __float_as_int(v0.w);
    return true;
}

// A closest (or any) hit: prim = original triangle id, -1 for none (t is then t_max).
struct WideHit {
    float t;
    float u;
    float v;
    int prim;
};

// 2^e from the exponent byte e (two's complement): f32 bits (e + 127) << 23.
__device__ __forceinline__ float wide_scale(unsigned int exponent_byte) {
    return __uint_as_float(((exponent_byte + 127u) & 0xffu) << 23);
}

// Byte `index` (0..3) of `word` as the float 1 + q * 2^-15, exactly: one PRMT builds its bits
// 0x3f80qq00. (An int-to-float conversion runs at an eighth of the FP32 rate on Hopper, and the
// node test needs 48 per node; the 1 + is folded into the plane's offset below.)
__device__ __forceinline__ float wide_byte(unsigned int word, unsigned int index) {
    return __uint_as_float(__byte_perm(word, 0x3f800000u, 0x7604u | (index << 4)));
}

// The slab distances of one axis of a node as one FMA per plane (the paper's node-relative
// ray): t(q) = q * 2^e / d + (p - o) / d, computed as fma(1 + q * 2^-15, scaled_inv,
// offset - scaled_inv) with scaled_inv = 2^15 * 2^e / d (exact). The offsets are rounded,
// and the box is the exact p + q * 2^e where the builder bounded the rounded decode, so the
// entry offset moves down and the exit offset up by `slack`, a bound on those errors:
// 2^-21 (|(p - o) / d| + |1/d| (|p| + 2^16 * 2^e)) covers them at least twice over. The FMA's
// own rounding is the exit widening's to cover, as in the binary slab test. 1/d is clamped to
// ±2^64 first (WARPATH_WIDE_INV_LIMIT): an infinite one (a zero direction component) made every
// offset NaN, so that axis never culled a child and such rays visited thousands of nodes.
struct WideAxisRay {
    float scaled_inv;
    float near_offset;
    float far_offset;
};

__device__ __forceinline__ WideAxisRay wide_axis_ray(float node_origin, float scale, float ray_origin,
                                                     float inv_direction_unclamped) {
    const float inv_direction = fminf(fmaxf(inv_direction_unclamped, -WARPATH_WIDE_INV_LIMIT), WARPATH_WIDE_INV_LIMIT);
    WideAxisRay axis;
    axis.scaled_inv = __fmul_rn(__fmul_rn(scale, 32768.0f), inv_direction);
    const float offset = __fmul_rn(__fsub_rn(node_origin, ray_origin), inv_direction);
    const float reach = __fmaf_rn(65536.0f, scale, fabsf(node_origin));
    const float slack = __fmul_rn(__fmaf_rn(fabsf(inv_direction), reach, fabsf(offset)), 4.76837158203125e-7f);
    axis.near_offset = __fsub_rn(__fsub_rn(offset, slack), axis.scaled_inv);
    axis.far_offset = __fsub_rn(__fadd_rn(offset, slack), axis.scaled_inv);
    return axis;
}

// Entry and exit plane words of one axis for slots 0..3 (`half` 0) or 4..7 (`half` 1):
// the minimum planes are entered first unless the direction is negative on that axis.
struct WideAxisPlanes {
    unsigned int near_words[2];
    unsigned int far_words[2];
};

__device__ __forceinline__ WideAxisPlanes wide_axis_planes(unsigned int lo0, unsigned int lo1, unsigned int hi0,
                                                           unsigned int hi1, bool negative) {
    WideAxisPlanes planes;
    planes.near_words[0] = negative ? hi0 : lo0;
    planes.near_words[1] = negative ? hi1 : lo1;
    planes.far_words[0] = negative ? lo0 : hi0;
    planes.far_words[1] = negative ? lo1 : hi1;
    return planes;
}

// The hit mask of a node's 8 children within [t_min, cull] (traverse.rs's intersect_node):
// hit internal children at bit 24 + (s ^ oct_inv), hit leaves' triangles at their offsets.
// w0..w4 are the node's five float4 words. A child's bit index and bits are worked out four
// slots at a time (Ylitie et al.): a meta byte 0b001_11sss is internal (bits 3 and 4 set, which
// no leaf offset < 24 has), its index swizzled by the octant.
__device__ __forceinline__ unsigned int wide_intersect_children(const PreparedRay& ray, unsigned int oct_inv,
                                                                float cull, float4 w0, float4 w1, float4 w2,
                                                                float4 w3, float4 w4) {
    const unsigned int exponents_imask = __float_as_uint(w0.w);
    const WideAxisRay ax =
        wide_axis_ray(w0.x, wide_scale(exponents_imask & 0xffu), ray.origin.x, ray.inv_direction.x);
    const WideAxisRay ay =
        wide_axis_ray(w0.y, wide_scale((exponents_imask >> 8) & 0xffu), ray.origin.y, ray.inv_direction.y);
    const WideAxisRay az =
        wide_axis_ray(w0.z, wide_scale((exponents_imask >> 16) & 0xffu), ray.origin.z, ray.inv_direction.z);
    // q_lo.x at w2.xy, q_lo.y at w2.zw, q_lo.z at w3.xy, q_hi.x at w3.zw, q_hi.y at w4.xy, q_hi.z at w4.zw.
    const WideAxisPlanes x = wide_axis_planes(__float_as_uint(w2.x), __float_as_uint(w2.y), __float_as_uint(w3.z),
                                              __float_as_uint(w3.w), ray.negative_x);
    const WideAxisPlanes y = wide_axis_planes(__float_as_uint(w2.z), __float_as_uint(w2.w), __float_as_uint(w4.x),
                                              __float_as_uint(w4.y), ray.negative_y);
    const WideAxisPlanes z = wide_axis_planes(__float_as_uint(w3.x), __float_as_uint(w3.y), __float_as_uint(w4.z),
                                              __float_as_uint(w4.w), ray.negative_z);
    const unsigned int oct_inv4 = oct_inv * 0x01010101u;
    unsigned int hits = 0u;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
        const unsigned int meta4 = __float_as_uint(half == 0 ? w1.z : w1.w);
        const unsigned int inner4 = ((meta4 & (meta4 << 1)) & 0x10101010u) >> 4;  // 1 per internal child
        const unsigned int bit_index4 = (meta4 ^ (oct_inv4 & (inner4 * 0xffu))) & 0x1f1f1f1fu;
        const unsigned int child_bits4 = (meta4 >> 5) & 0x07070707u;
#pragma unroll
        for (unsigned int byte = 0; byte < 4u; ++byte) {
            const float near_x = __fmaf_rn(wide_byte(x.near_words[half], byte), ax.scaled_inv, ax.near_offset);
            const float far_x = __fmaf_rn(wide_byte(x.far_words[half], byte), ax.scaled_inv, ax.far_offset);
            const float near_y = __fmaf_rn(wide_byte(y.near_words[half], byte), ay.scaled_inv, ay.near_offset);
            const float far_y = __fmaf_rn(wide_byte(y.far_words[half], byte), ay.scaled_inv, ay.far_offset);
            const float near_z = __fmaf_rn(wide_byte(z.near_words[half], byte), az.scaled_inv, az.near_offset);
            const float far_z = __fmaf_rn(wide_byte(z.far_words[half], byte), az.scaled_inv, az.far_offset);
            // fmaxf/fminf drop a NaN operand. Widening the least exit equals the CPU's least
            // widened exit: rounding a product by a positive constant is monotonic.
            const float near = fmaxf(fmaxf(fmaxf(ray.t_min, near_x), near_y), near_z);
            const float far = fminf(__fmul_rn(fminf(fminf(far_x, far_y), far_z), WARPATH_EXIT_WIDENING), cull);
            if (near <= far) {
                const unsigned int shift = 8u * byte;
                hits |= ((child_bits4 >> shift) & 0x7u) << ((bit_index4 >> shift) & 0x1fu);
            }
        }
    }
    return hits;
}

// The ray's octant: bit a set when the direction is negative on axis a (1/d < 0, so -0
// counts as negative); the traversal uses 7 - octant.
__device__ __forceinline__ unsigned int wide_oct_inv(const PreparedRay& ray) {
    const unsigned int octant =
        (ray.negative_x ? 1u : 0u) | (ray.negative_y ? 2u : 0u) | (ray.negative_z ? 4u : 0u);
    return 7u - octant;
}

// One stack entry: a node group or a postponed triangle group.
struct WideGroup {
    unsigned int base;
    unsigned int bits;
};

// Where a ray's stack entries live. WideLocalStack: all in the thread's own (local-memory) array.
// WideSharedStack: the first `shared_entries` in shared memory (entry i of the thread at
// `shared[i * stride]`, stride = the block's threads, so a warp's lanes touch consecutive words),
// the deeper ones in the local array. Where an entry lives does not change any result.
struct WideLocalStack {
    WideGroup* entries;
    __device__ __forceinline__ void store(int index, WideGroup group) { entries[index] = group; }
    __device__ __forceinline__ WideGroup load(int index) const { return entries[index]; }
};

struct WideSharedStack {
    uint2* shared;  // this thread's first entry
    unsigned int stride;
    int shared_entries;
    WideGroup* local;  // entries from shared_entries on
    __device__ __forceinline__ void store(int index, WideGroup group) {
        if (index < shared_entries) {
            shared[(unsigned int)index * stride] = make_uint2(group.base, group.bits);
        } else {
            local[index - shared_entries] = group;
        }
    }
    __device__ __forceinline__ WideGroup load(int index) const {
        if (index < shared_entries) {
            const uint2 entry = shared[(unsigned int)index * stride];
            return WideGroup{entry.x, entry.y};
        }
        return local[index - shared_entries];
    }
};

// One ray's traversal state, advanced by wide_step: the node group, the best hit, the stack's
// size. The stack itself is a separate array: a struct holding a dynamically indexed array
// would keep every field in local memory, where these scalars belong in registers.
struct WideTraversal {
    int stack_size;
    WideGroup node_group;
    unsigned int oct_inv;
    float cull;
    WideHit best;
    bool done;
};

__device__ __forceinline__ void wide_begin(WideTraversal& state, const PreparedRay& ray) {
    state.oct_inv = wide_oct_inv(ray);
    state.best.t = ray.t_max;
    state.best.u = 0.0f;
    state.best.v = 0.0f;
    state.best.prim = -1;
    state.cull = cull_distance(ray.t_max);
    state.stack_size = 0;
    // A pretend parent whose only hit child, slot `octant` at bit 31 with imask 0, is node 0.
    state.node_group.base = 0u;
    state.node_group.bits = 0x80000000u;
    state.done = false;
}

// Whether the lanes now testing triangles should postpone them (Ylitie et al., section 3.2):
// when at most postpone_lanes / 32 of the active lanes have triangles to test. 0 never
// postpones, 32 always (on the host, a one-lane warp). The stack's upper half is kept for node
// groups (one per level, depth < WARPATH_WIDE_MAX_DEPTH), so postponing never overflows it.
__device__ __forceinline__ bool wide_postpone(bool has_triangles, int stack_size, int postpone_lanes) {
    const unsigned int active = __activemask();
    const unsigned int testing = __ballot_sync(active, has_triangles);
    return has_triangles && stack_size < WARPATH_WIDE_STACK_SIZE - WARPATH_WIDE_MAX_DEPTH &&
           (unsigned int)__popc(testing) * 32u <= (unsigned int)postpone_lanes * (unsigned int)__popc(active);
}

// One iteration of the traversal loop (traverse.rs): visit the node group's nearest hit child
// (or take a postponed triangle group from the stack), test the triangle group (or, when
// postpone_lanes says so, push it for later), pop when the node group is empty. Sets `done`
// when the stack is empty, or at an any-hit ray's first hit. Every lane that calls it with
// postpone_lanes > 0 takes part in the postponing vote.
template <bool AnyHit, class Scene, class Stack>
__device__ __forceinline__ void wide_step(const Scene& scene, const PreparedRay& ray,
                                          WideTraversal& state, Stack& stack, int postpone_lanes) {
    WideGroup tri_group = {0u, 0u};
    WideGroup& node_group = state.node_group;
    if (node_group.bits & WARPATH_WIDE_NODE_BITS) {
        const unsigned int bit = 31u - (unsigned int)__clz((int)node_group.bits);
        node_group.bits &= ~(1u << bit);
        const unsigned int slot = (bit - 24u) ^ state.oct_inv;
        const unsigned int below = node_group.bits & 0xffu & ((1u << slot) - 1u);
        const unsigned int node = node_group.base + (unsigned int)__popc(below);
        if (node_group.bits & WARPATH_WIDE_NODE_BITS) stack.store(state.stack_size++, node_group);
        const float4* words = scene.nodes + (size_t)node * 5u;
        const float4 w0 = __ldg(words + 0);
        const float4 w1 = __ldg(words + 1);
        const float4 w2 = __ldg(words + 2);
        const float4 w3 = __ldg(words + 3);
        const float4 w4 = __ldg(words + 4);
        const unsigned int hits = wide_intersect_children(ray, state.oct_inv, state.cull, w0, w1, w2, w3, w4);
        node_group.base = __float_as_uint(w1.x);
        node_group.bits = (hits & WARPATH_WIDE_NODE_BITS) | (__float_as_uint(w0.w) >> 24);
        tri_group.base = __float_as_uint(w1.y);
        tri_group.bits = hits & WARPATH_WIDE_TRI_BITS;
        if (postpone_lanes > 0 && wide_postpone(tri_group.bits != 0u, state.stack_size, postpone_lanes)) {
            stack.store(state.stack_size++, tri_group);
            tri_group.bits = 0u;
        }
    } else {
        // A postponed triangle group from the stack.
        tri_group = node_group;
        node_group.base = 0u;
        node_group.bits = 0u;
    }
    while (tri_group.bits) {
        const unsigned int index = (unsigned int)(__ffs((int)tri_group.bits) - 1);
        tri_group.bits &= tri_group.bits - 1u;
        float t, u, v;
        int prim;
        if (!wide_intersect_reference(scene, ray, tri_group.base + index, state.best.t, t, u, v, prim)) continue;
        if (AnyHit) {
            state.best.t = t;
            state.best.u = u;
            state.best.v = v;
            state.best.prim = prim;
            state.done = true;
            return;
        }
        if (t < state.best.t || (t == state.best.t && (unsigned int)prim < (unsigned int)state.best.prim)) {
            state.best.t = t;
            state.best.u = u;
            state.best.v = v;
            state.best.prim = prim;
            state.cull = cull_distance(t);
        }
    }
    if (!(node_group.bits & WARPATH_WIDE_NODE_BITS)) {
        if (state.stack_size == 0) {
            state.done = true;
            return;
        }
        node_group = stack.load(--state.stack_size);
    }
}

// Closest hit (AnyHit false: the least (t, id) with t in (t_min, t_max)) or any hit (AnyHit
// true: the first hit found) of `ray` in `scene` (WideTraversalScene or traversal/woop.cuh's
// WideWoopScene); prim -1 when there is none. postpone_lanes: see
// wide_postpone (0: test every triangle group at once, as the CPU does).
template <bool AnyHit, class Scene>
__device__ __forceinline__ WideHit wide_trace(const Scene& scene, const PreparedRay& ray,
                                              int postpone_lanes = 0) {
    WideGroup entries[WARPATH_WIDE_STACK_SIZE];
    WideLocalStack stack{entries};
    WideTraversal state;
    wide_begin(state, ray);
    while (!state.done) wide_step<AnyHit>(scene, ray, state, stack, postpone_lanes);
    return state.best;
}

// The sizes and field offsets of this header's structs are Rust's (src/layout_registry.rs),
// checked by the generated header once the headers each struct needs are complete.
#define WARPATH_LAYOUT_TRAVERSAL_WIDE
#include "generated/layout_checks.cuh"
