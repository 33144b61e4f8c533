// traverse.cu — BVH traversal kernels over the Aila–Laine layout, after seed 004 ("The
// traversal algorithm": while-while traversal, persistent threads with dynamic fetch,
// postponed leaf testing) and Aila & Laine 2009, "Understanding the Efficiency of Ray
// Traversal on GPUs" (with its 2012 Kepler/Fermi addendum).
//
// Four schedules of the same traversal, each in a closest-hit and an any-hit (shadow ray)
// variant, generated from one template per schedule:
//   while_while     one ray per thread; an inner-node loop until a leaf, then a leaf loop.
//   speculative     one ray per thread; a ray that finds a leaf postpones it (one slot)
//                   and keeps traversing inner nodes until every ray of the warp has a
//                   leaf to test, so the warp runs the triangle tests together.
//   persistent      a grid that just fills the GPU; each warp takes rays from a global
//                   counter, one atomicAdd per warp for as many rays as it has idle lanes,
//                   and goes back for more as soon as fewer than `fetch_threshold` of its
//                   lanes are busy (__popc(__ballot_sync(...)) < threshold): dynamic fetch.
//   postponed       persistent threads with dynamic fetch plus postponed leaf testing:
//                   the full 2012 kernel.
//
// Warp votes need every lane of the warp at the same call, so the kernels that vote keep
// all 32 lanes in their loops (a lane with no ray, or whose ray is done, just idles) and
// are launched with blocks of a multiple of 32 threads.
//
// And the compressed 8-wide BVH (Ylitie, Karras and Laine, HPG 2017; traversal/wide.cuh),
// closest and any hit: one ray per thread (traverse_wide_closest, traverse_wide_any), and
// persistent threads with dynamic fetch as above, optionally postponing triangle groups while
// few lanes have triangles to test (traverse_wide_persistent_closest, ..._any). Each again with
// the triangles in Woop's layout (traversal/woop.cuh: the rows of the map to the unit triangle
// and the ids beside them): traverse_wide_woop_closest, ..._any, traverse_wide_woop_persistent_*.
#include "traversal/traversal.cuh"
#include "traversal/wide.cuh"
#include "traversal/woop.cuh"

// Threads per block of every traversal kernel (a multiple of 32).
#define WARPATH_TRAVERSAL_BLOCK 128

// ---- while-while --------------------------------------------------------------------

template <bool AnyHit>
__device__ __forceinline__ void trace_while_while(const TraversalScene& scene, const GpuRay* __restrict__ rays,
                                                  GpuHit* __restrict__ hits, int ray_count) {
    const int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= ray_count) return;
    store_hit(scene, hits, index, trace_while_while_one<AnyHit>(scene, prepare_ray(rays, index)));
}

// ---- speculative traversal / postponed leaves (shared by two schedules) -------------

// Inner-node phase with postponed leaves: a ray that reaches its first leaf parks it in
// `leaf` and keeps traversing; a ray that reaches a second leaf waits. The phase ends when
// no lane of the warp is still looking for its first leaf. All 32 lanes must call this.
__device__ __forceinline__ void traverse_postponing_leaves(const TraversalScene& scene, const PreparedRay& ray,
                                                           float t_limit, int& node, int& leaf, TraversalStack& stack) {
    while (true) {
        if (is_inner_node(node)) {
            visit_inner_node(scene, ray, t_limit, node, stack);
            if (node < 0 && leaf >= 0) {  // first leaf: postpone it, keep going
                leaf = node;
                node = stack.pop();
            }
        }
        const bool searching = is_inner_node(node) && leaf >= 0;
        if (!__any_sync(WARPATH_FULL_WARP, searching)) break;
    }
}

// Leaf phase: tests the postponed leaf and, when the current node is a leaf too, that one
// and whatever leaves follow on the stack. Leaves `leaf >= 0` and `node` an inner node or
// the sentinel. Any hit: a hit ends the ray (node = sentinel).
template <bool AnyHit>
__device__ __forceinline__ void test_postponed_leaves(const TraversalScene& scene, const PreparedRay& ray,
                                                      HitRecord& best, int& node, int& leaf, TraversalStack& stack) {
    while (leaf < 0) {
        if (intersect_leaf<AnyHit>(scene, leaf, ray, best)) {
            node = WARPATH_ENTRYPOINT_SENTINEL;
            leaf = 0;
            break;
        }
        leaf = node;  // another leaf waiting? (>= 0: no)
        if (node < 0) node = stack.pop();
    }
}

template <bool AnyHit>
__device__ __forceinline__ void trace_speculative(const TraversalScene& scene, const GpuRay* __restrict__ rays,
                                                  GpuHit* __restrict__ hits, int ray_count) {
    const int index = blockIdx.x * blockDim.x + threadIdx.x;
    const bool has_ray = index < ray_count;  // lanes without a ray still take part in the votes
    PreparedRay ray{};
    HitRecord best{};
    TraversalStack stack;
    int node = WARPATH_ENTRYPOINT_SENTINEL;
    int leaf = 0;  // postponed leaf (< 0), or none (>= 0)
    if (has_ray) {
        ray = prepare_ray(rays, index);
        best = no_hit(ray);
        stack.reset();
        node = 0;
    }
    while (__any_sync(WARPATH_FULL_WARP, node != WARPATH_ENTRYPOINT_SENTINEL)) {
        traverse_postponing_leaves(scene, ray, cull_distance(best.t), node, leaf, stack);
        test_postponed_leaves<AnyHit>(scene, ray, best, node, leaf, stack);
    }
    if (has_ray) store_hit(scene, hits, index, best);
}

// ---- persistent threads with dynamic fetch --------------------------------------------

template <bool AnyHit, bool PostponeLeaves>
__device__ __forceinline__ void trace_persistent(const TraversalScene& scene, const GpuRay* __restrict__ rays,
                                                 GpuHit* __restrict__ hits, int ray_count,
                                                 unsigned int* __restrict__ ray_counter, int fetch_threshold) {
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int lanes_below = (1u << lane) - 1u;
    const int threshold = max(fetch_threshold, 1);  // 1: fetch only when the whole warp is idle
    PreparedRay ray{};
    HitRecord best{};
    TraversalStack stack;
    int ray_index = -1;
    int node = WARPATH_ENTRYPOINT_SENTINEL;  // sentinel: this lane is idle
    int leaf = 0;
    bool pool_empty = false;  // uniform across the warp

    while (true) {
        // Idle lanes store their finished ray and fetch the next ones: one atomicAdd per
        // warp for a batch of as many rays as there are idle lanes.
        const bool idle = node == WARPATH_ENTRYPOINT_SENTINEL;
        if (idle && ray_index >= 0) {
            store_hit(scene, hits, ray_index, best);
            ray_index = -1;
        }
        if (!pool_empty) {
            const unsigned int idle_mask = __ballot_sync(WARPATH_FULL_WARP, idle);
            const int idle_count = __popc(idle_mask);
            if (idle_count > 0) {
                const int leader = __ffs(idle_mask) - 1;
                unsigned int batch_start = 0;
                if ((int)lane == leader) batch_start = atomicAdd(ray_counter, (unsigned int)idle_count);
                batch_start = __shfl_sync(WARPATH_FULL_WARP, batch_start, leader);
                if (batch_start + (unsigned int)idle_count >= (unsigned int)ray_count) pool_empty = true;
                if (idle) {
                    const unsigned int mine = batch_start + __popc(idle_mask & lanes_below);
                    if (mine < (unsigned int)ray_count) {
                        ray_index = (int)mine;
                        ray = prepare_ray(rays, ray_index);
                        best = no_hit(ray);
                        stack.reset();
                        node = 0;
                        leaf = 0;
                    }
                }
            }
        }
        if (!__any_sync(WARPATH_FULL_WARP, node != WARPATH_ENTRYPOINT_SENTINEL)) break;

        // Traverse until fewer than `threshold` lanes are still busy, then fetch again.
        while (true) {
            if (PostponeLeaves) {
                traverse_postponing_leaves(scene, ray, cull_distance(best.t), node, leaf, stack);
                test_postponed_leaves<AnyHit>(scene, ray, best, node, leaf, stack);
            } else {
                while_while_step<AnyHit>(scene, ray, best, node, stack);
            }
            const unsigned int busy = __ballot_sync(WARPATH_FULL_WARP, node != WARPATH_ENTRYPOINT_SENTINEL);
            if (__popc(busy) < threshold) break;
        }
    }
}

// ---- kernels ---------------------------------------------------------------------------

#define WARPATH_ONE_RAY_PER_THREAD_KERNEL(name, trace, any_hit)                                               \
    extern "C" __global__ void __launch_bounds__(WARPATH_TRAVERSAL_BLOCK)                                     \
        name(const float4* __restrict__ nodes, const float4* __restrict__ triangles,                          \
             const int* __restrict__ triangle_ids, const GpuRay* __restrict__ rays, GpuHit* __restrict__ hits, \
             int ray_count) {                                                                                 \
        const TraversalScene scene = {nodes, triangles, triangle_ids};                                        \
        trace<any_hit>(scene, rays, hits, ray_count);                                                         \
    }

#define WARPATH_PERSISTENT_KERNEL(name, any_hit, postpone_leaves)                                              \
    extern "C" __global__ void __launch_bounds__(WARPATH_TRAVERSAL_BLOCK)                                     \
        name(const float4* __restrict__ nodes, const float4* __restrict__ triangles,                          \
             const int* __restrict__ triangle_ids, const GpuRay* __restrict__ rays, GpuHit* __restrict__ hits, \
             int ray_count, unsigned int* __restrict__ ray_counter, int fetch_threshold) {                    \
        const TraversalScene scene = {nodes, triangles, triangle_ids};                                        \
        trace_persistent<any_hit, postpone_leaves>(scene, rays, hits, ray_count, ray_counter, fetch_threshold); \
    }

WARPATH_ONE_RAY_PER_THREAD_KERNEL(traverse_while_while_closest, trace_while_while, false)
WARPATH_ONE_RAY_PER_THREAD_KERNEL(traverse_while_while_any, trace_while_while, true)
WARPATH_ONE_RAY_PER_THREAD_KERNEL(traverse_speculative_closest, trace_speculative, false)
WARPATH_ONE_RAY_PER_THREAD_KERNEL(traverse_speculative_any, trace_speculative, true)
WARPATH_PERSISTENT_KERNEL(traverse_persistent_closest, false, false)
WARPATH_PERSISTENT_KERNEL(traverse_persistent_any, true, false)
WARPATH_PERSISTENT_KERNEL(traverse_postponed_closest, false, true)
WARPATH_PERSISTENT_KERNEL(traverse_postponed_any, true, true)

// ---- the compressed 8-wide BVH ---------------------------------------------------------

template <bool AnyHit, class Scene>
__device__ __forceinline__ void trace_wide_batch(const Scene& scene, const GpuRay* __restrict__ rays,
                                                 GpuHit* __restrict__ hits, int ray_count) {
    const int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= ray_count) return;
    const WideHit best = wide_trace<AnyHit>(scene, prepare_ray(rays, index));
    reinterpret_cast<float4*>(hits)[index] = make_float4(best.t, best.u, best.v, __int_as_float(best.prim));
}

#define WARPATH_WIDE_KERNEL(name, any_hit)                                                                     \
    extern "C" __global__ void __launch_bounds__(WARPATH_TRAVERSAL_BLOCK)                                     \
        name(const float4* __restrict__ nodes, const float4* __restrict__ triangles,                          \
             const GpuRay* __restrict__ rays, GpuHit* __restrict__ hits, int ray_count) {                     \
        const WideTraversalScene scene = {nodes, triangles};                                                  \
        trace_wide_batch<any_hit>(scene, rays, hits, ray_count);                                              \
    }

WARPATH_WIDE_KERNEL(traverse_wide_closest, false)
WARPATH_WIDE_KERNEL(traverse_wide_any, true)

// The same over Woop's rows, the triangle ids beside them.
#define WARPATH_WIDE_WOOP_KERNEL(name, any_hit)                                                                \
    extern "C" __global__ void __launch_bounds__(WARPATH_TRAVERSAL_BLOCK)                                     \
        name(const float4* __restrict__ nodes, const float4* __restrict__ rows,                               \
             const unsigned int* __restrict__ triangle_ids, const GpuRay* __restrict__ rays,                  \
             GpuHit* __restrict__ hits, int ray_count) {                                                      \
        const WideWoopScene scene = {nodes, rows, triangle_ids};                                              \
        trace_wide_batch<any_hit>(scene, rays, hits, ray_count);                                              \
    }

WARPATH_WIDE_WOOP_KERNEL(traverse_wide_woop_closest, false)
WARPATH_WIDE_WOOP_KERNEL(traverse_wide_woop_any, true)

// Persistent warps with dynamic fetch (Aila and Laine 2009, as seed 004 measured them; Ylitie
// et al. 2017 traverse the wide BVH so) over wide.cuh's wide_step: a warp takes work items from a
// global counter for its idle lanes whenever fewer than `fetch_threshold` of its lanes are still
// traversing. What an item is comes from `Work` (count(), counter(): zeroed before the launch,
// begin(item) -> the lane's PreparedRay, finish(item, hit)); every lane of every warp calls it.
// (The renderers' multi-stage wavefront traced its intersect and shadow queues through this
// driver in one experiment and got slower: docs/benchmarks/traversal.md.)
template <bool AnyHit, class Scene, class Work, class Stack>
__device__ __forceinline__ void wide_persistent(const Scene& scene, Work& work, Stack& stack,
                                                int fetch_threshold, int postpone_lanes) {
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int lanes_below = (1u << lane) - 1u;
    const int threshold = max(fetch_threshold, 1);
    const unsigned int count = work.count();
    PreparedRay ray{};
    WideTraversal state;
    state.done = true;  // idle
    unsigned int item = 0xffffffffu;
    bool pool_empty = false;  // uniform across the warp
    while (true) {
        const bool idle = state.done;
        if (idle && item != 0xffffffffu) {
            work.finish(item, state.best);
            item = 0xffffffffu;
        }
        if (!pool_empty) {
            // One atomic for the warp's idle lanes.
            const unsigned int idle_mask = __ballot_sync(0xffffffffu, idle);
            const unsigned int idle_count = (unsigned int)__popc(idle_mask);
            if (idle_count > 0u) {
                const int leader = __ffs(idle_mask) - 1;
                unsigned int first = 0u;
                if ((int)lane == leader) first = atomicAdd(work.counter(), idle_count);
                first = __shfl_sync(0xffffffffu, first, leader);
                if (first >= count || count - first <= idle_count) pool_empty = true;
                const unsigned int mine = first + (unsigned int)__popc(idle_mask & lanes_below);
                if (idle && first < count && mine < count) {
                    item = mine;
                    ray = work.begin(item);
                    wide_begin(state, ray);
                }
            }
        }
        if (!__any_sync(0xffffffffu, !state.done)) break;
        while (true) {
            if (!state.done) wide_step<AnyHit>(scene, ray, state, stack, postpone_lanes);
            const unsigned int busy = __ballot_sync(0xffffffffu, !state.done);
            if (__popc(busy) < threshold) break;
        }
    }
}

// Persistent warps with dynamic fetch over wide_step (wide_persistent above): a warp fetches rays once fewer than
// `fetch_threshold` lanes are busy; `postpone_lanes` (0..32, 0 off) postpones triangle groups
// while at most that many 32nds of the stepping lanes have triangles; `shared_entries` (0 off)
// keeps the first entries of each ray's stack in the block's dynamic shared memory
// (shared_entries * 8 bytes a thread, launched with that much).
struct WideRayBatch {
    const GpuRay* __restrict__ rays;
    GpuHit* __restrict__ hits;
    unsigned int ray_count;
    unsigned int* ray_counter;
    __device__ __forceinline__ unsigned int count() const { return ray_count; }
    __device__ __forceinline__ unsigned int* counter() const { return ray_counter; }
    __device__ __forceinline__ PreparedRay begin(unsigned int item) { return prepare_ray(rays, (int)item); }
    __device__ __forceinline__ void finish(unsigned int item, const WideHit& best) {
        reinterpret_cast<float4*>(hits)[item] = make_float4(best.t, best.u, best.v, __int_as_float(best.prim));
    }
};

template <bool AnyHit, class Scene>
__device__ __forceinline__ void trace_wide_persistent(const Scene& scene,
                                                      const GpuRay* __restrict__ rays, GpuHit* __restrict__ hits,
                                                      int ray_count, unsigned int* __restrict__ ray_counter,
                                                      int fetch_threshold, int postpone_lanes,
                                                      int shared_entries) {
    extern __shared__ uint2 wide_shared_stack[];
    WideGroup entries[WARPATH_WIDE_STACK_SIZE];
    WideRayBatch batch{rays, hits, (unsigned int)max(ray_count, 0), ray_counter};
    if (shared_entries > 0) {
        WideSharedStack stack{wide_shared_stack + threadIdx.x, blockDim.x, shared_entries, entries};
        wide_persistent<AnyHit>(scene, batch, stack, fetch_threshold, postpone_lanes);
    } else {
        WideLocalStack stack{entries};
        wide_persistent<AnyHit>(scene, batch, stack, fetch_threshold, postpone_lanes);
    }
}

#define WARPATH_WIDE_PERSISTENT_KERNEL(name, any_hit)                                                          \
    extern "C" __global__ void __launch_bounds__(WARPATH_TRAVERSAL_BLOCK)                                     \
        name(const float4* __restrict__ nodes, const float4* __restrict__ triangles,                          \
             const GpuRay* __restrict__ rays, GpuHit* __restrict__ hits, int ray_count,                       \
             unsigned int* __restrict__ ray_counter, int fetch_threshold, int postpone_lanes,                  \
             int shared_entries) {                                                                            \
        const WideTraversalScene scene = {nodes, triangles};                                                  \
        trace_wide_persistent<any_hit>(scene, rays, hits, ray_count, ray_counter, fetch_threshold,            \
                                       postpone_lanes, shared_entries);                                       \
    }

WARPATH_WIDE_PERSISTENT_KERNEL(traverse_wide_persistent_closest, false)
WARPATH_WIDE_PERSISTENT_KERNEL(traverse_wide_persistent_any, true)

#define WARPATH_WIDE_WOOP_PERSISTENT_KERNEL(name, any_hit)                                                     \
    extern "C" __global__ void __launch_bounds__(WARPATH_TRAVERSAL_BLOCK)                                     \
        name(const float4* __restrict__ nodes, const float4* __restrict__ rows,                               \
             const unsigned int* __restrict__ triangle_ids, const GpuRay* __restrict__ rays,                  \
             GpuHit* __restrict__ hits, int ray_count, unsigned int* __restrict__ ray_counter,                \
             int fetch_threshold, int postpone_lanes, int shared_entries) {                                   \
        const WideWoopScene scene = {nodes, rows, triangle_ids};                                              \
        trace_wide_persistent<any_hit>(scene, rays, hits, ray_count, ray_counter, fetch_threshold,            \
                                       postpone_lanes, shared_entries);                                       \
    }

WARPATH_WIDE_WOOP_PERSISTENT_KERNEL(traverse_wide_woop_persistent_closest, false)
WARPATH_WIDE_WOOP_PERSISTENT_KERNEL(traverse_wide_woop_persistent_any, true)
