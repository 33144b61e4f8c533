// traversal/traversal.cuh — the pieces every Aila–Laine traversal schedule shares (seed 004, "Data
// structures" and "Traversal algorithm"): the per-ray stack with its entrypoint
// sentinel, one inner-node step (fetch both child boxes with __ldg float4 loads, test
// both, go to the nearer, push the farther), the leaf loop over consecutive triangles
// up to the end marker, and the result store with the remap to original triangle ids.
#pragma once
#include "common/layout.cuh"
#include "traversal/ray_triangle.cuh"

// Entries of the per-ray traversal stack (local memory). The host refuses trees that
// could need more (warpath-bvh keeps depth below 60).
#define WARPATH_STACK_SIZE 64
// Bottom-of-stack marker; popping it ends the traversal. Larger than any node index,
// so `(unsigned)node < SENTINEL` means "an inner node" and `node < 0` means "a leaf".
#define WARPATH_ENTRYPOINT_SENTINEL 0x76543210
#define WARPATH_FULL_WARP 0xffffffffu

// The scene as the kernels read it (warpath_cuda::bvh_layout::DeviceBvh).
struct TraversalScene {
    const float4* __restrict__ nodes;          // AilaLaineNode, 4 float4 each
    const float4* __restrict__ triangles;      // GpuTriangle records and end markers, as float4 slots
    const int* __restrict__ triangle_ids;      // original triangle id per float4 slot (-1 elsewhere)
};

// The best hit so far: `slot` is the float4 slot of its triangle, -1 for none.
struct HitRecord {
    float t;
    float u;
    float v;
    int slot;
};

__device__ __forceinline__ HitRecord no_hit(const PreparedRay& ray) {
    HitRecord record;
    record.t = ray.t_max;
    record.u = 0.0f;
    record.v = 0.0f;
    record.slot = -1;
    return record;
}

struct TraversalStack {
    int entries[WARPATH_STACK_SIZE];
    int top;  // index of the top entry; entries[0] is the sentinel

    __device__ __forceinline__ void reset() {
        top = 0;
        entries[0] = WARPATH_ENTRYPOINT_SENTINEL;
    }
    __device__ __forceinline__ void push(int node) { entries[++top] = node; }
    __device__ __forceinline__ int pop() { return entries[top--]; }
};

__device__ __forceinline__ bool is_inner_node(int node) {
    return (unsigned int)node < (unsigned int)WARPATH_ENTRYPOINT_SENTINEL;
}

// One inner-node step: continue with the nearer intersected child and push the farther;
// pop when neither child is intersected (the popped entry may be a leaf or the sentinel).
__device__ __forceinline__ void visit_inner_node(const TraversalScene& scene, const PreparedRay& ray, float t_limit,
                                                 int& node, TraversalStack& stack) {
    const float4* words = scene.nodes + (size_t)node * 4;
    const float4 child0_xy = __ldg(words + 0);
    const float4 child1_xy = __ldg(words + 1);
    const float4 children_z = __ldg(words + 2);
    const int2 children = __ldg(reinterpret_cast<const int2*>(words + 3));
    float t_enter0, t_enter1;
    const bool hit0 = enter_box(ray, child0_xy.x, child0_xy.y, child0_xy.z, child0_xy.w, children_z.x, children_z.y,
                                t_limit, t_enter0);
    const bool hit1 = enter_box(ray, child1_xy.x, child1_xy.y, child1_xy.z, child1_xy.w, children_z.z, children_z.w,
                                t_limit, t_enter1);
    if (!hit0 && !hit1) {
        node = stack.pop();
        return;
    }
    int next = hit0 ? children.x : children.y;
    if (hit0 && hit1) {
        int farther = children.y;
        if (t_enter1 < t_enter0) {
            farther = next;
            next = children.y;
        }
        stack.push(farther);
    }
    node = next;
}

// Tests the triangles of `leaf` (~first slot), three float4 each, until the end marker.
// Closest hit: keeps the lowest (t, original id). Any hit: returns true at the first hit.
// The triangle array ends with two spare float4, so the three loads before the marker
// test never read past it.
template <bool AnyHit>
__device__ __forceinline__ bool intersect_leaf(const TraversalScene& scene, int leaf, const PreparedRay& ray,
                                               HitRecord& best) {
    for (int slot = ~leaf;; slot += 3) {
        const float4 v0 = __ldg(scene.triangles + slot);
        const float4 edge1 = __ldg(scene.triangles + slot + 1);
        const float4 edge2 = __ldg(scene.triangles + slot + 2);
        if (__float_as_uint(v0.w) == WARPATH_END_OF_LEAF) break;
        float t, u, v;
        if (!intersect_triangle(ray, v0, edge1, edge2, t, u, v)) continue;
        if (AnyHit) {
            best.t = t;
            best.u = u;
            best.v = v;
            best.slot = slot;
            return true;
        }
        // Ties in t go to the lower original id (SBVH may test one triangle twice).
        const bool closer =
            t < best.t || (t == best.t && best.slot >= 0 &&
                           (unsigned int)__ldg(scene.triangle_ids + slot) <
                               (unsigned int)__ldg(scene.triangle_ids + best.slot));
        if (closer) {
            best.t = t;
            best.u = u;
            best.v = v;
            best.slot = slot;
        }
    }
    return false;
}

// Writes ray `index`'s result with one 16-byte store, remapping the slot to the id.
__device__ __forceinline__ void store_hit(const TraversalScene& scene, GpuHit* __restrict__ hits, int index,
                                          const HitRecord& best) {
    const int prim = best.slot >= 0 ? __ldg(scene.triangle_ids + best.slot) : -1;
    reinterpret_cast<float4*>(hits)[index] = make_float4(best.t, best.u, best.v, __int_as_float(prim));
}

// One while-while step (seed 004): descend inner nodes to a leaf, then test leaves until the
// next inner node; `node` ends at the sentinel when the stack is empty or an any-hit ray hit.
template <bool AnyHit>
__device__ __forceinline__ void while_while_step(const TraversalScene& scene, const PreparedRay& ray, HitRecord& best,
                                                 int& node, TraversalStack& stack) {
    while (is_inner_node(node)) visit_inner_node(scene, ray, cull_distance(best.t), node, stack);
    while (node < 0) {
        if (intersect_leaf<AnyHit>(scene, node, ray, best)) {
            node = WARPATH_ENTRYPOINT_SENTINEL;
            break;
        }
        node = stack.pop();
    }
}

// One ray, one thread, while-while (seed 004): the loop of the while-while batch kernel
// and of the estimator's extension and shadow rays.
template <bool AnyHit>
__device__ __forceinline__ HitRecord trace_while_while_one(const TraversalScene& scene, const PreparedRay& ray) {
    HitRecord best = no_hit(ray);
    TraversalStack stack;
    stack.reset();
    int node = 0;  // the root
    while (node != WARPATH_ENTRYPOINT_SENTINEL) while_while_step<AnyHit>(scene, ray, best, node, stack);
    return best;
}

// The sizes and field offsets of this header's structs are Rust's (src/layout_registry.rs),
// checked by the generated header once the headers each struct needs are complete.
#define WARPATH_LAYOUT_TRAVERSAL_TRAVERSAL
#include "generated/layout_checks.cuh"
