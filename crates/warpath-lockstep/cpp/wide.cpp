// wide.cpp — traversal/wide.cuh (the compressed 8-wide BVH's closest- and any-hit traversal)
// compiled as host C++ through cuda_host_shim.h, so that src/wide.rs can compare it, ray for
// ray and bit for bit, with warpath_bvh::wide's CPU traversal (its specification) without a
// GPU. One entry point traces a batch of rays as traverse.cu's wide kernels do; a second does so
// with the triangles in Woop's layout (traversal/woop.cuh), as the _woop kernels do.
#include "cuda_host_shim.h"

#include "traversal/wide.cuh"
#include "traversal/woop.cuh"

namespace {

template <class Scene>
void trace_batch(const Scene& scene, const GpuRay* rays, size_t count, int any_hit, int postpone_lanes,
                 GpuHit* hits) {
    for (size_t i = 0; i < count; ++i) {
        const PreparedRay ray = prepare_ray(rays, (int)i);
        const WideHit best = any_hit ? wide_trace<true>(scene, ray, postpone_lanes)
                                     : wide_trace<false>(scene, ray, postpone_lanes);
        hits[i].t = best.t;
        hits[i].u = best.u;
        hits[i].v = best.v;
        hits[i].prim = best.prim;
    }
}

}  // namespace

extern "C" {

// Traces rays[0..count) through the wide BVH (nodes: 5 float4 per node; triangles: 3 float4
// per reference), closest hit unless `any_hit`; writes one GpuHit per ray as the kernels do.
// `postpone_lanes` as the persistent kernels take it: on the host's one-lane warps, 32 postpones
// every triangle group the stack has room for (the postponing path), 0 none.
void warpath_lockstep_wide_trace(const float4* nodes, const float4* triangles, const GpuRay* rays, size_t count,
                                 int any_hit, int postpone_lanes, GpuHit* hits) {
    const WideTraversalScene scene = {nodes, triangles};
    trace_batch(scene, rays, count, any_hit, postpone_lanes, hits);
}

// The same with Woop's rows (3 float4 per reference) and the references' triangle ids.
void warpath_lockstep_wide_woop_trace(const float4* nodes, const float4* rows, const unsigned int* triangle_ids,
                                      const GpuRay* rays, size_t count, int any_hit, int postpone_lanes,
                                      GpuHit* hits) {
    const WideWoopScene scene = {nodes, rows, triangle_ids};
    trace_batch(scene, rays, count, any_hit, postpone_lanes, hits);
}
}
