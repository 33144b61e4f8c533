// isosurface/persistent.cuh — the f32 caster as persistent threads that refill their warps
// (issue 14; the `caster-f32-persistent` pipeline). Nsight Compute finds the one-thread-per-
// pixel caster running 6 of a warp's 32 lanes per instruction: a warp lasts as long as its
// slowest ray, and rays through an isosurface's gaps differ in length by orders of magnitude.
// Here a grid that just fills the GPU loops until the image is done; each iteration every lane
// takes one step of its ray — one node of the tree (a pop, and its children pushed) or one
// cell of a brick's march — and lanes whose ray is finished take the next pixels from a
// counter shared by the grid (warp-aggregated, 8×4-pixel warp tiles in order), so a warp's
// lanes stay busy until the image runs out (Aila and Laine's persistent threads with ray
// replacement). The steps are caster.cuh's, in the same order, so every pixel gets
// iso_render_single_f32's hit and colour bit for bit (the GPU test asks for that). A shadow
// ray (ISO_LIGHT_SHADOWS) is cast whole, by caster.cuh, when its pixel is shaded.
#pragma once
#include "isosurface/render.cuh"

#define ISO_PHASE_IDLE 0u      // no ray: take a pixel
#define ISO_PHASE_TRAVERSE 1u  // pop the stack
#define ISO_PHASE_MARCH 2u     // march the current brick's cells
#define ISO_PHASE_DONE 3u      // no pixels left
#define ISO_REFILL_LANES 8u    // refill when at least this many lanes are idle (or all are)

// The k-th pixel of the frame's order: 16×16-pixel tiles row by row, in each tile eight
// 8×4-pixel warp tiles (iso_block_pixel's order); false past the image's edge.
__device__ __forceinline__ bool iso_ordered_pixel(const IsoRenderArgs& a, unsigned int k, unsigned int& x,
                                                  unsigned int& y) {
    const unsigned int tiles_x = (a.width + 15u) / 16u;
    const unsigned int tile = k / 256u, within = k % 256u, warp = within / 32u, lane = within % 32u;
    x = (tile % tiles_x) * 16u + (warp % 2u) * 8u + lane % 8u;
    y = (tile / tiles_x) * 16u + (warp / 2u) * 4u + lane / 8u;
    return x < a.width && y < a.height;
}

// work[0]: pixels handed out; work[1]: warps finished (the last one zeroes both for the next
// frame). Both are zero before the first launch.
__device__ __forceinline__ void iso_persistent_frame_f32(const IsoRenderArgs& a, unsigned int* work) {
    typedef float R;
    const unsigned int lane = threadIdx.x % 32u;
    const unsigned int slots = ((a.width + 15u) / 16u) * ((a.height + 15u) / 16u) * 256u;
    const IsoArgs g = iso_frame_caster(a);
    const R inf = IsoReal<R>::infinity();
    unsigned int phase = ISO_PHASE_IDLE;
    unsigned int x = 0u, y = 0u;
    R o[3], d[3], seg0 = R(0), seg1 = R(0);
    unsigned int stack_node[ISO_STACK];
    R stack_entry[ISO_STACK];
    int top = 0;
    // The best hit so far (iso_cast_within's `result`).
    bool found = false;
    R best_t = R(0), normal[3] = {R(0), R(0), R(0)};
    unsigned int best_cell[3] = {0u, 0u, 0u};
    // The brick being marched.
    unsigned int brick = 0u, cell[3] = {0u, 0u, 0u}, step = 0u, limit = 0u;
    bool exhausted = false;
    while (true) {
        // Refill: idle lanes take consecutive pixels, one atomic per warp.
        const unsigned int idle = __ballot_sync(0xffffffffu, phase == ISO_PHASE_IDLE);
        if (!exhausted && idle != 0u && (__popc(idle) >= ISO_REFILL_LANES || idle == 0xffffffffu)) {
            unsigned int base = 0u;
            if (lane == 0u) base = atomicAdd(work, (unsigned int)__popc(idle));
            base = __shfl_sync(0xffffffffu, base, 0);
            if (base + (unsigned int)__popc(idle) >= slots) exhausted = true;
            if (phase == ISO_PHASE_IDLE) {
                const unsigned int k = base + (unsigned int)__popc(idle & ((1u << lane) - 1u));
                if (k >= slots) {
                    phase = ISO_PHASE_DONE;
                } else if (iso_ordered_pixel(a, k, x, y)) {
                    // A new ray (iso_cast_within's set-up, in f32).
                    const IsoRay ray = iso_pixel_ray(a, x, y);
                    for (int k3 = 0; k3 < 3; ++k3) {
                        o[k3] = (R)ray.origin[k3];
                        d[k3] = (R)ray.direction[k3];
                    }
                    found = false;
                    best_t = R(0);
                    top = 0;
                    phase = ISO_PHASE_TRAVERSE;
                    const R zero[3] = {R(0), R(0), R(0)};
                    const R upper[3] = {(R)(g.samples[0] - 1u), (R)(g.samples[1] - 1u), (R)(g.samples[2] - 1u)};
                    R t0;
                    if (g.root != ISO_NO_NODE && iso_slab(o, d, zero, upper, R(0), inf, seg0, seg1) &&
                        iso_node_range(g, g.root, o, d, seg0, seg1, inf, t0)) {
                        stack_node[0] = g.root;
                        stack_entry[0] = t0;
                        top = 1;
                    }
                }
                // else: a slot past the image's edge; the lane stays idle.
            }
        }
        if (exhausted) {
            // No refills now: lanes without a ray are done; stop when all are.
            if (phase == ISO_PHASE_IDLE) phase = ISO_PHASE_DONE;
            if (__all_sync(0xffffffffu, phase == ISO_PHASE_DONE)) break;
        }
        if (phase == ISO_PHASE_TRAVERSE) {
            // One pop (iso_cast_within's loop body); a brick starts a march.
            bool finished = top == 0;
            if (!finished) {
                --top;
                const unsigned int index = stack_node[top];
                const R entry = stack_entry[top];
                if (!(found && entry > best_t)) {
                    const IsoNode& n = g.nodes[index];
                    if (n.left == ISO_NO_NODE) {
                        brick = index;
                        iso_first_cell(n.lo, n.hi, o, d, entry, cell);
                        step = 0u;
                        limit = iso_march_limit(n.lo, n.hi);
                        phase = ISO_PHASE_MARCH;
                    } else if (!iso_push_children(g, n, o, d, seg0, seg1, found ? best_t : inf, stack_node, stack_entry,
                                                  top)) {
                        finished = true;  // the stack would overflow: as iso_cast_within, stop here
                    }
                }
                if (phase == ISO_PHASE_TRAVERSE && top == 0) finished = true;
            }
            if (finished) {
                // The pixel (iso_render_pixel): shade the best hit, or the background.
                const IsoRay ray = iso_pixel_ray(a, x, y);
                const double n3[3] = {(double)normal[0], (double)normal[1], (double)normal[2]};
                const size_t pixel = (size_t)y * a.width + x;
                const bool blocked = iso_write_pixel<R>(a, g, pixel, found, ray, (double)best_t, n3);
                if (a.hits != nullptr) {
                    IsoHit hit;
                    hit.t = found ? (double)best_t : 0.0;
                    hit.cell[0] = found ? best_cell[0] : 0u;
                    hit.cell[1] = found ? best_cell[1] : 0u;
                    hit.cell[2] = found ? best_cell[2] : 0u;
                    hit.hit = found ? (blocked ? 1u | ISO_SHADOWED : 1u) : 0u;
                    a.hits[pixel] = hit;
                }
                phase = ISO_PHASE_IDLE;
            }
        } else if (phase == ISO_PHASE_MARCH) {
            // One cell of iso_march; a hit better than the best is kept (iso_cast_within).
            const IsoNode& n = g.nodes[brick];
            IsoCastResult hit;
            bool ends = true;
            if (iso_march_cell(g, cell, o, d, seg0, seg1, hit)) {
                if (!found || (R)hit.hit.t < best_t) {
                    found = true;
                    best_t = (R)hit.hit.t;
                    for (int k3 = 0; k3 < 3; ++k3) {
                        best_cell[k3] = hit.hit.cell[k3];
                        normal[k3] = (R)hit.normal[k3];
                    }
                }
            } else if (++step < limit && iso_next_cell(n.lo, n.hi, o, d, seg1, cell)) {
                ends = false;
            }
            if (ends) phase = ISO_PHASE_TRAVERSE;
        }
    }
    // The last warp to finish resets the counters for the next frame.
    if (lane == 0u) {
        __threadfence();
        if (atomicAdd(work + 1, 1u) == gridDim.x * (blockDim.x / 32u) - 1u) {
            work[0] = 0u;
            work[1] = 0u;
        }
    }
}
