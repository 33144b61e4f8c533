// isosurface/pipeline.cuh — seed 001's isosurface ray-casting pipelines (§3, issue 14): the
// stages of one ray — generation (the ray clipped to the lattice box, the root pushed),
// traversal (to the next valid brick, near child first, the brick left on top of the
// stack), intersection (the brick on top popped and its cells marched; after a miss the
// ray stays while the next stack item is a brick too: the seed's "stack peek"), shading
// (Blinn–Phong under a head light, render.cuh) — written once over a stack type, and run
// two ways:
//   single kernel   iso_pipeline_single: one thread per pixel from generation to shading,
//                   the stack in local memory (IsoLocalStack);
//   multi-kernel    one kernel per stage, the rays of each stage's queue compacted into the
//                   next stage's queue at the end of the producing kernel, the per-ray stack
//                   in device memory between kernels (IsoMemoryStack, indexed by pixel so a
//                   compaction moves only the pixel index). The compaction is METHOD:
//                     ISO_COLLATE   InK-Collate (seed 001 §2.4),
//                     ISO_COMPACT   InK-Compact, order kept by block sections (§2.3),
//                     ISO_LOOKBACK  order-preserving single pass with decoupled look-back,
//                     ISO_FLAGS     a flag per input slot; the host compacts afterwards
//                                   (OfK-Compact, compaction.cu, or CUB's DeviceSelect).
// A ray ends at its first hit: the bricks are disjoint boxes met in order along the ray
// (each inner node's children lie on either side of a split plane), so the first hit in
// near-first order is the nearest — the hit caster.cuh's iso_cast (which keeps looking,
// pruned by the best t) returns; the GPU test asks every pipeline for the CPU's hits.
// Layouts (IsoPipelineArgs, IsoStageOut) are owned by Rust (src/isosurface/pipeline.rs).
#pragma once
#include "compaction/compaction.cuh"
#include "isosurface/render.cuh"

#define ISO_COLLATE 0
#define ISO_COMPACT 1
#define ISO_LOOKBACK 2
#define ISO_FLAGS 3

// What the intersection stage does with a ray next.
#define ISO_NEXT_DONE 0      // a miss: the stack is empty
#define ISO_NEXT_SHADE 1     // a hit
#define ISO_NEXT_TRAVERSE 2  // an inner node is on top of the stack

struct IsoPipelineArgs {
    IsoRenderArgs frame;         // the tree, the camera, the shading, the image (and hits)
    unsigned int* stack_node;    // [stack_capacity][pixel_count]: entry k of pixel p at k·pixel_count + p
    double* stack_entry;         // [stack_capacity][pixel_count]: the ray's entry t into the node
    unsigned int* stack_top;     // [pixel_count]: items on each pixel's stack
    double* normals;             // [4 · pixel_count]: the hit's normal and (shadow rays) t, for shading
    unsigned int stack_capacity;
    unsigned int pixel_count;
};

// Where a stage puts the rays it passes on: a queue of pixel indices with its compaction
// state (state.count ends as the queue's length), InK-Compact's intermediate buffer, or —
// ISO_FLAGS — a flag per input slot.
struct IsoStageOut {
    unsigned int* items;
    unsigned char* flags;
    unsigned int* intermediate;
    CompactionState state;
};

// ---- stacks ---------------------------------------------------------------------------------

// The single kernel's stack, in the thread's local memory.
struct IsoLocalStack {
    unsigned int node[ISO_STACK];
    double entry[ISO_STACK];
    int top = 0;
    __device__ __forceinline__ int size() const { return top; }
    __device__ __forceinline__ bool has_room(int k) const { return top + k <= ISO_STACK; }
    __device__ __forceinline__ void push(unsigned int n, double e) {
        node[top] = n;
        entry[top] = e;
        ++top;
    }
    __device__ __forceinline__ unsigned int peek_node() const { return node[top - 1]; }
    __device__ __forceinline__ void pop(unsigned int& n, double& e) {
        --top;
        n = node[top];
        e = entry[top];
    }
};

// The multi-kernel pipeline's stack of one pixel, in device memory; its depth is held in a
// register during a stage and written back by save().
struct IsoMemoryStack {
    unsigned int* node;
    double* entry;
    size_t stride;
    size_t pixel;
    int top;
    int capacity;
    __device__ __forceinline__ IsoMemoryStack(const IsoPipelineArgs& a, unsigned int p, bool fresh)
        : node(a.stack_node), entry(a.stack_entry), stride(a.pixel_count), pixel(p),
          top(fresh ? 0 : (int)a.stack_top[p]), capacity((int)a.stack_capacity) {}
    __device__ __forceinline__ void save(const IsoPipelineArgs& a) const { a.stack_top[pixel] = (unsigned int)top; }
    __device__ __forceinline__ int size() const { return top; }
    __device__ __forceinline__ bool has_room(int k) const { return top + k <= capacity; }
    __device__ __forceinline__ void push(unsigned int n, double e) {
        node[(size_t)top * stride + pixel] = n;
        entry[(size_t)top * stride + pixel] = e;
        ++top;
    }
    __device__ __forceinline__ unsigned int peek_node() const { return node[(size_t)(top - 1) * stride + pixel]; }
    __device__ __forceinline__ void pop(unsigned int& n, double& e) {
        --top;
        n = node[(size_t)top * stride + pixel];
        e = entry[(size_t)top * stride + pixel];
    }
};

// ---- the stages of one ray -------------------------------------------------------------------

// The ray's segment inside the lattice box (caster.rs cast_bvh's first clip).
__device__ __forceinline__ bool iso_lattice_segment(const IsoArgs& g, const IsoRay& ray, double& seg0, double& seg1) {
    const double zero[3] = {0.0, 0.0, 0.0};
    const double upper[3] = {(double)(g.samples[0] - 1u), (double)(g.samples[1] - 1u), (double)(g.samples[2] - 1u)};
    return iso_slab(ray.origin, ray.direction, zero, upper, 0.0, ISO_INF, seg0, seg1);
}

// The entry t of the ray into node `index`'s box within the segment, if it meets it.
__device__ __forceinline__ bool iso_node_entry(const IsoArgs& g, unsigned int index, const IsoRay& ray, double seg0,
                                               double seg1, double& t0) {
    const IsoNode& n = g.nodes[index];
    const double lo[3] = {(double)n.lo[0], (double)n.lo[1], (double)n.lo[2]};
    const double hi[3] = {(double)n.hi[0], (double)n.hi[1], (double)n.hi[2]};
    double t1;
    return iso_slab(ray.origin, ray.direction, lo, hi, seg0, seg1, t0, t1);
}

// Generation: true (the root pushed) when the ray meets the root's box.
template <class Stack>
__device__ __forceinline__ bool iso_stage_generate(const IsoArgs& g, const IsoRay& ray, double& seg0, double& seg1,
                                                   Stack& stack) {
    if (g.root == ISO_NO_NODE || !iso_lattice_segment(g, ray, seg0, seg1)) return false;
    double t0;
    if (!iso_node_entry(g, g.root, ray, seg0, seg1, t0)) return false;
    stack.push(g.root, t0);
    return true;
}

// Traversal: inner nodes popped, the children the ray meets pushed far first, until a
// brick is on top (true) or the stack is empty (false: a miss).
template <class Stack>
__device__ __forceinline__ bool iso_stage_traverse(const IsoArgs& g, const IsoRay& ray, double seg0, double seg1,
                                                   Stack& stack) {
    while (stack.size() > 0) {
        const IsoNode n = g.nodes[stack.peek_node()];
        if (n.left == ISO_NO_NODE) return true;
        unsigned int index;
        double entry;
        stack.pop(index, entry);
        double tl, tr;
        const bool l = iso_node_entry(g, n.left, ray, seg0, seg1, tl);
        const bool r = iso_node_entry(g, n.right, ray, seg0, seg1, tr);
        // The near child is popped first (ties: the right one, as in iso_cast).
        if (l && r) {
            if (!stack.has_room(2)) return false;
            const bool left_near = tl < tr;
            stack.push(left_near ? n.right : n.left, left_near ? tr : tl);
            stack.push(left_near ? n.left : n.right, left_near ? tl : tr);
        } else if (l || r) {
            if (!stack.has_room(1)) return false;
            stack.push(l ? n.left : n.right, l ? tl : tr);
        }
    }
    return false;
}

// Intersection: the brick on top popped and marched; after a miss, the next brick on top
// is marched in the same stage (stack peek). Returns ISO_NEXT_*; the hit is in `result`.
template <class Stack>
__device__ __forceinline__ int iso_stage_intersect(const IsoArgs& g, const IsoRay& ray, double seg0, double seg1,
                                                   Stack& stack, IsoCastResult& result) {
    while (true) {
        unsigned int index;
        double entry;
        stack.pop(index, entry);
        const IsoNode& n = g.nodes[index];
        if (iso_march(g, n.lo, n.hi, ray.origin, ray.direction, seg0, seg1, entry, result)) return ISO_NEXT_SHADE;
        if (stack.size() == 0) return ISO_NEXT_DONE;
        if (g.nodes[stack.peek_node()].left != ISO_NO_NODE) return ISO_NEXT_TRAVERSE;
    }
}

__device__ __forceinline__ IsoRay iso_pixel_index_ray(const IsoRenderArgs& f, unsigned int pixel) {
    return iso_pixel_ray(f, pixel % f.width, pixel / f.width);
}

// Rays are made in tiles of ISO_TILE × ISO_TILE pixels (a block of 256 threads is one
// tile, as iso_render_single's blocks): ray slot s → its pixel, or false for a slot of an
// edge tile outside the image. Neighbouring rays of a warp then stay close, and the
// order-preserving compactions keep them so.
#define ISO_TILE 16u
__device__ __forceinline__ unsigned int iso_ray_slots(const IsoRenderArgs& f) {
    return ((f.width + ISO_TILE - 1u) / ISO_TILE) * ((f.height + ISO_TILE - 1u) / ISO_TILE) * ISO_TILE * ISO_TILE;
}
__device__ __forceinline__ bool iso_slot_pixel(const IsoRenderArgs& f, unsigned int slot, unsigned int& pixel) {
    const unsigned int tiles_x = (f.width + ISO_TILE - 1u) / ISO_TILE;
    const unsigned int tile = slot / (ISO_TILE * ISO_TILE), within = slot % (ISO_TILE * ISO_TILE);
    const unsigned int x = (tile % tiles_x) * ISO_TILE + within % ISO_TILE;
    const unsigned int y = (tile / tiles_x) * ISO_TILE + within / ISO_TILE;
    pixel = y * f.width + x;
    return x < f.width && y < f.height;
}

// ---- the single kernel -------------------------------------------------------------------------

__device__ __forceinline__ void iso_pipeline_pixel(const IsoPipelineArgs& a, unsigned int pixel) {
    const IsoArgs g = iso_frame_caster(a.frame);
    const IsoRay ray = iso_pixel_index_ray(a.frame, pixel);
    IsoLocalStack stack;
    IsoCastResult result;
    result.hit.t = 0.0;
    result.hit.cell[0] = result.hit.cell[1] = result.hit.cell[2] = 0u;
    result.hit.hit = 0u;
    double seg0, seg1;
    if (iso_stage_generate(g, ray, seg0, seg1, stack)) {
        while (iso_stage_traverse(g, ray, seg0, seg1, stack)) {
            const int next = iso_stage_intersect(g, ray, seg0, seg1, stack, result);
            if (next != ISO_NEXT_TRAVERSE) break;
        }
    }
    if (iso_write_pixel<double>(a.frame, g, pixel, result.hit.hit != 0u, ray, result.hit.t, result.normal)) {
        result.hit.hit |= ISO_SHADOWED;
    }
    if (a.frame.hits != nullptr) a.frame.hits[pixel] = result.hit;
}

// ---- the multi-kernel stages ---------------------------------------------------------------

// A stage's ticket-ordered tile (ISO_COMPACT, ISO_LOOKBACK: tiles numbered in start order,
// compaction.cuh) or its block index.
template <int METHOD>
__device__ __forceinline__ unsigned int iso_tile(BlockScanStorage<1>& scratch, const IsoStageOut& out) {
    if constexpr (METHOD == ISO_COMPACT || METHOD == ISO_LOOKBACK) return compaction_ticket(scratch, out.state.ticket);
    return blockIdx.x;
}

// Passes pixel `pixel` (input slot `slot`) on to `out` when `keep`. Called by every thread.
template <int METHOD>
__device__ __forceinline__ void iso_emit(BlockScanStorage<1>& scratch, const IsoStageOut& out, unsigned int tile,
                                         unsigned int slot, unsigned int bound, unsigned int pixel, bool keep) {
    const unsigned int elems[1] = {pixel};
    const bool keeps[1] = {keep};
    if constexpr (METHOD == ISO_COLLATE) {
        ink_collate_store<unsigned int, 1>(scratch, out.items, out.state.count, elems, keeps);
    } else if constexpr (METHOD == ISO_COMPACT) {
        ink_compact_store<unsigned int, 1>(scratch, out.items, out.intermediate, out.state, tile, elems, keeps);
    } else if constexpr (METHOD == ISO_LOOKBACK) {
        ink_lookback_store<unsigned int, 1>(scratch, out.items, out.state, tile, elems, keeps);
    } else {
        static_assert(METHOD == ISO_FLAGS, "unknown compaction");
        if (slot < bound) out.flags[slot] = keep ? 1 : 0;
    }
}

// Generation over every ray slot (iso_slot_pixel): the pixel cleared (background, no hit),
// its ray clipped and its root pushed; the rays that meet the root's box go on to traversal.
template <int METHOD>
__device__ __forceinline__ void iso_generate(const IsoPipelineArgs& a, const IsoStageOut& out) {
    __shared__ BlockScanStorage<1> scratch;
    const unsigned int tile = iso_tile<METHOD>(scratch, out);
    const unsigned int slot = tile * blockDim.x + threadIdx.x;
    unsigned int pixel = 0u;
    bool keep = false;
    if (slot < iso_ray_slots(a.frame) && iso_slot_pixel(a.frame, slot, pixel)) {
        const IsoArgs g = iso_frame_caster(a.frame);
        const IsoRay ray = iso_pixel_index_ray(a.frame, pixel);
        IsoMemoryStack stack(a, pixel, true);
        double seg0, seg1;
        keep = iso_stage_generate(g, ray, seg0, seg1, stack);
        stack.save(a);
        iso_write_background(a.frame, pixel);
        if (a.frame.hits != nullptr) a.frame.hits[pixel] = IsoHit{0.0, {0u, 0u, 0u}, 0u};
    }
    iso_emit<METHOD>(scratch, out, tile, slot, iso_ray_slots(a.frame), pixel, keep);
}

// Traversal of the queue `in` (its length at *in_count; the launch covers `bound` ≥ it).
template <int METHOD>
__device__ __forceinline__ void iso_traverse(const IsoPipelineArgs& a, const unsigned int* in,
                                             const unsigned int* in_count, unsigned int bound, const IsoStageOut& out) {
    __shared__ BlockScanStorage<1> scratch;
    const unsigned int tile = iso_tile<METHOD>(scratch, out);
    const unsigned int slot = tile * blockDim.x + threadIdx.x;
    const bool active = slot < *in_count;
    const unsigned int pixel = active ? in[slot] : 0u;
    bool keep = false;
    if (active) {
        const IsoArgs g = iso_frame_caster(a.frame);
        const IsoRay ray = iso_pixel_index_ray(a.frame, pixel);
        double seg0, seg1;
        iso_lattice_segment(g, ray, seg0, seg1);
        IsoMemoryStack stack(a, pixel, false);
        keep = iso_stage_traverse(g, ray, seg0, seg1, stack);
        stack.save(a);
    }
    iso_emit<METHOD>(scratch, out, tile, slot, bound, pixel, keep);
}

// Intersection of the queue `in`: hits go to shading (their hit and normal stored per
// pixel), rays with an inner node on top back to traversal.
template <int METHOD>
__device__ __forceinline__ void iso_intersect(const IsoPipelineArgs& a, const unsigned int* in,
                                              const unsigned int* in_count, unsigned int bound,
                                              const IsoStageOut& to_traverse, const IsoStageOut& to_shade) {
    __shared__ BlockScanStorage<1> scratch;
    const unsigned int tile = iso_tile<METHOD>(scratch, to_traverse);
    const unsigned int slot = tile * blockDim.x + threadIdx.x;
    const bool active = slot < *in_count;
    const unsigned int pixel = active ? in[slot] : 0u;
    int next = ISO_NEXT_DONE;
    if (active) {
        const IsoArgs g = iso_frame_caster(a.frame);
        const IsoRay ray = iso_pixel_index_ray(a.frame, pixel);
        double seg0, seg1;
        iso_lattice_segment(g, ray, seg0, seg1);
        IsoMemoryStack stack(a, pixel, false);
        IsoCastResult result;
        next = iso_stage_intersect(g, ray, seg0, seg1, stack, result);
        if (next == ISO_NEXT_SHADE) {
            for (int c = 0; c < 3; ++c) a.normals[4 * (size_t)pixel + c] = result.normal[c];
            if (a.frame.light_mode == ISO_LIGHT_SHADOWS) a.normals[4 * (size_t)pixel + 3] = result.hit.t;
            if (a.frame.hits != nullptr) a.frame.hits[pixel] = result.hit;
        } else if (next == ISO_NEXT_TRAVERSE) {
            stack.save(a);
        }
    }
    iso_emit<METHOD>(scratch, to_traverse, tile, slot, bound, pixel, next == ISO_NEXT_TRAVERSE);
    __syncthreads();  // the scratch is reused by the second store
    iso_emit<METHOD>(scratch, to_shade, tile, slot, bound, pixel, next == ISO_NEXT_SHADE);
}

// A slot in `count`'s list for each calling thread, one atomic per warp.
__device__ __forceinline__ unsigned int iso_append(unsigned int* count) {
    const unsigned int active = __activemask();
    const unsigned int lane = threadIdx.x & 31u;
    const int leader = __ffs(active) - 1;
    unsigned int base = 0u;
    if ((int)lane == leader) base = atomicAdd(count, (unsigned int)__popc(active));
    base = __shfl_sync(active, base, leader);
    return base + (unsigned int)__popc(active & ((1u << lane) - 1u));
}

// This thread's entry of the queue `in` (false past its end): the pixel, its ray and the hit
// intersection left (the normal and, with shadow rays, t).
__device__ __forceinline__ bool iso_queued_hit(const IsoPipelineArgs& a, const unsigned int* in,
                                               const unsigned int* in_count, unsigned int& pixel, IsoRay& ray,
                                               double normal[3], double& t) {
    const unsigned int slot = blockIdx.x * blockDim.x + threadIdx.x;
    if (slot >= *in_count) return false;
    pixel = in[slot];
    ray = iso_pixel_index_ray(a.frame, pixel);
    for (int c = 0; c < 3; ++c) normal[c] = a.normals[4 * (size_t)pixel + c];
    t = a.frame.light_mode == ISO_LIGHT_SHADOWS ? a.normals[4 * (size_t)pixel + 3] : 0.0;
    return true;
}

// Shading of the queue `in` (this round's hits). With shadow rays, a hit the key light faces
// is shaded as lit and appended to the shadow queue (shadow_items, *shadow_count): the rays
// are cast after the last round by iso_shadow_queue, in one launch, since a launch per round
// of a few thousand long shadow rays left the GPU idle behind its slowest ray (measured:
// shading 0.14 → 8.2 ms on the MRI at 512³, against +1.1 ms in the single kernel).
__device__ __forceinline__ void iso_shade_queue(const IsoPipelineArgs& a, const unsigned int* in,
                                                const unsigned int* in_count, unsigned int* shadow_items,
                                                unsigned int* shadow_count) {
    unsigned int pixel;
    IsoRay ray;
    double normal[3], n[3], t;
    if (!iso_queued_hit(a, in, in_count, pixel, ray, normal, t)) return;
    if (a.frame.light_mode == ISO_LIGHT_HEAD) {
        iso_store_colour(a.frame, pixel, iso_shade(a.frame, normal, ray.direction));
        return;
    }
    iso_facing(ray, normal, n);
    iso_store_colour(a.frame, pixel, iso_shade_key(a.frame, ray, n, false));
    if (a.frame.light_mode == ISO_LIGHT_SHADOWS && iso_key_light_faces(a.frame, n)) {
        shadow_items[iso_append(shadow_count)] = pixel;
    }
}

// The shadow rays of the queue `in` (every lit hit of the frame): a blocked one leaves its
// pixel in ambient light (render::shade_key) and sets its ISO_SHADOWED bit.
__device__ __forceinline__ void iso_shadow_queue(const IsoPipelineArgs& a, const unsigned int* in,
                                                 const unsigned int* in_count) {
    unsigned int pixel;
    IsoRay ray;
    double normal[3], n[3], t;
    if (!iso_queued_hit(a, in, in_count, pixel, ray, normal, t)) return;
    iso_facing(ray, normal, n);
    if (iso_shadow_blocked<double>(a.frame, iso_frame_caster(a.frame), ray, t, n)) {
        iso_store_colour(a.frame, pixel, iso_shade_key(a.frame, ray, n, true));
        if (a.frame.hits != nullptr) a.frame.hits[pixel].hit |= ISO_SHADOWED;
    }
}

// The sizes and field offsets of this header's structs are Rust's (src/layout_registry.rs),
// checked by the generated header once the headers each struct needs are complete.
#define WARPATH_LAYOUT_ISOSURFACE_PIPELINE
#include "generated/layout_checks.cuh"
