// isosurface/caster.cuh — the isosurface ray caster of warpath_isosurface::caster::cast_bvh on
// the device (issue 14, seed 001), written like its Rust twin: the ray clipped to the
// lattice box, the condensed brick tree walked near child first with a per-thread stack, the
// cells of each valid brick marched with the exact first root of the trilinear cubic
// (warpath_isosurface::cell). The arithmetic is a template over the real type R: double
// (the CPU's f64, what every pipeline and the path tracer's shapes use, hit for hit with the
// CPU) or float (iso_render_single_f32, the `caster-f32` pipeline: the speed experiment of
// docs/benchmarks/isosurface.md, hits within a tolerance). Layouts (IsoNode, IsoRay, IsoHit,
// IsoArgs) are owned by Rust (crates/warpath-cuda/src/isosurface/mod.rs) and checked against
// Rust by the generated layout checks (end of file).
#pragma once
#include "common/layout.cuh"

#define ISO_NO_NODE 0xffffffffu
#define ISO_STACK 64
#define DBL_EPSILON_ISO 2.220446049250313e-16
#define ISO_INF __longlong_as_double(0x7ff0000000000000ll)

// A node of the condensed tree: cells lo..hi of the lattice; left == ISO_NO_NODE for a
// leaf (a brick whose cells are lo..hi).
struct IsoNode {
    unsigned int lo[3];
    unsigned int hi[3];
    unsigned int left;
    unsigned int right;
};

struct IsoRay {
    double origin[3];
    double direction[3];
};

struct IsoHit {
    double t;
    unsigned int cell[3];
    unsigned int hit;  // 1: a hit, 0: none
};

struct IsoArgs {
    const float* values;      // the lattice's samples, x fastest
    const IsoNode* nodes;     // the condensed tree of the isovalue
    const IsoRay* rays;
    IsoHit* hits;
    unsigned int samples[3];
    unsigned int root;        // ISO_NO_NODE: an empty tree
    unsigned int ray_count;
    float isovalue;
    const unsigned int* root_slot;  // non-null: the root is *root_slot (the GPU tree update's)
};

// The constants of the real type R.
template <typename R>
struct IsoReal;
template <>
struct IsoReal<double> {
    __device__ static double epsilon() { return DBL_EPSILON_ISO; }
    __device__ static double infinity() { return ISO_INF; }
    __device__ static double tiny() { return 1e-300; }  // below this a cubic's leading coefficient is zero
};
template <>
struct IsoReal<float> {
    __device__ static float epsilon() { return 1.1920929e-7f; }
    __device__ static float infinity() { return __int_as_float(0x7f800000); }
    __device__ static float tiny() { return 1e-30f; }
};

// The caster's arguments for rays cast one by one (no ray or hit buffers; the root already
// resolved): a frame's (render.cuh) and a path-tracer shape's (shapes.cuh).
__device__ __forceinline__ IsoArgs iso_caster_args(const float* values, const IsoNode* nodes,
                                                   const unsigned int* samples, unsigned int root, float isovalue) {
    IsoArgs g;
    g.values = values;
    g.nodes = nodes;
    g.rays = nullptr;
    g.hits = nullptr;
    g.samples[0] = samples[0];
    g.samples[1] = samples[1];
    g.samples[2] = samples[2];
    g.root = root;
    g.ray_count = 0u;
    g.isovalue = isovalue;
    g.root_slot = nullptr;
    return g;
}

// caster.rs slab: the t range of the ray inside lo..hi, clipped to [t_min, t_max].
template <typename R>
__device__ __forceinline__ bool iso_slab(const R* o, const R* d, const R* lo, const R* hi, R t_min, R t_max, R& t0,
                                         R& t1) {
    t0 = t_min;
    t1 = t_max;
    for (int a = 0; a < 3; ++a) {
        if (d[a] == R(0)) {
            if (o[a] < lo[a] || o[a] > hi[a]) return false;
            continue;
        }
        const R inv = R(1) / d[a];
        R near_t = (lo[a] - o[a]) * inv, far_t = (hi[a] - o[a]) * inv;
        if (near_t > far_t) {
            const R s = near_t;
            near_t = far_t;
            far_t = s;
        }
        t0 = fmax(t0, near_t);
        t1 = fmin(t1, far_t);
    }
    return t0 <= t1;
}

// cell.rs CellCubic.
template <typename R>
struct IsoCubic {
    R a, b, c, d;
    __device__ __forceinline__ R eval(R t) const { return ((a * t + b) * t + c) * t + d; }
};

template <typename R>
__device__ __forceinline__ IsoCubic<R> iso_cubic(const float* corners, const R* o, const R* dir, R iso) {
    IsoCubic<R> q{R(0), R(0), R(0), R(0)};
    for (int corner = 0; corner < 8; ++corner) {
        R u[3], v[3];
        for (int axis = 0; axis < 3; ++axis) {
            const int offset = (corner >> axis) & 1;
            u[axis] = offset == 0 ? R(1) - o[axis] : o[axis];
            v[axis] = offset == 0 ? -dir[axis] : dir[axis];
        }
        const R value = (R)corners[corner];
        q.d += value * u[0] * u[1] * u[2];
        q.c += value * (v[0] * u[1] * u[2] + u[0] * v[1] * u[2] + u[0] * u[1] * v[2]);
        q.b += value * (v[0] * v[1] * u[2] + v[0] * u[1] * v[2] + u[0] * v[1] * v[2]);
        q.a += value * v[0] * v[1] * v[2];
    }
    q.d -= iso;
    return q;
}

// CellCubic::refine.
template <typename R>
__device__ __forceinline__ R iso_refine(const IsoCubic<R>& q, R a, R ga, R b, R gb) {
    const R eps = IsoReal<R>::epsilon();
    if (gb == R(0) && ga == R(0)) return a;
    for (int i = 0; i < 200; ++i) {
        if (gb == R(0) && fabs(b - a) <= eps * fmax(fabs(b), R(1))) return b;
        const R secant = gb != ga ? b - gb * (b - a) / (gb - ga) : R(0.5) * (a + b);
        const R mid = R(0.5) * (a + b);
        const R t = (secant > a + R(0.01) * (b - a) && secant < b - R(0.01) * (b - a)) ? secant : mid;
        if (t <= a || t >= b) break;
        const R gt = q.eval(t);
        if (gt == R(0)) {
            b = t;
            gb = R(0);
            continue;
        }
        if ((ga < R(0)) != (gt < R(0))) {
            b = t;
            gb = gt;
        } else {
            a = t;
            ga = gt;
        }
        if (fabs(b - a) <= R(4) * eps * fmax(fabs(b), R(1))) break;
    }
    return gb == R(0) ? b : R(0.5) * (a + b);
}

// CellCubic::first_root.
template <typename R>
__device__ __forceinline__ bool iso_first_root(const IsoCubic<R>& q, R t0, R t1, R& root) {
    if (t1 < t0) return false;
    // The extrema in scalars, not an array indexed by a running count (that would live in
    // local memory).
    R e0 = R(0), e1 = R(0);
    int n = 0;
    const R qa = R(3) * q.a, qb = R(2) * q.b, qc = q.c;
    if (fabs(qa) <= IsoReal<R>::tiny()) {
        if (qb != R(0)) {
            const R t = -qc / qb;
            if (t > t0 && t < t1) {
                e0 = t;
                n = 1;
            }
        }
    } else {
        const R disc = qb * qb - R(4) * qa * qc;
        if (disc >= R(0)) {
            const R sign = qb > R(0) ? R(1) : (qb < R(0) ? R(-1) : R(0));
            const R qq = R(-0.5) * (qb + sign * sqrt(disc));
            R r1 = R(0), r2 = R(0);
            if (qq != R(0)) {
                r1 = qq / qa;
                r2 = qc / qq;
            }
            const R lo = r1 < r2 ? r1 : r2, hi = r1 < r2 ? r2 : r1;
            if (lo > t0 && lo < t1) {
                e0 = lo;
                n = 1;
            }
            if (hi != lo && hi > t0 && hi < t1) {
                if (n == 0) e0 = hi;
                else e1 = hi;
                ++n;
            }
        }
    }
    R a = t0, ga = q.eval(a);
    if (ga == R(0)) {
        root = a;
        return true;
    }
#pragma unroll
    for (int i = 0; i < 3; ++i) {
        if (i > n) break;
        const R b = i < n ? (i == 0 ? e0 : e1) : t1;
        const R gb = q.eval(b);
        if (gb == R(0) || (ga < R(0)) != (gb < R(0))) {
            root = iso_refine(q, a, ga, b, gb);
            return true;
        }
        a = b;
        ga = gb;
    }
    return false;
}

__device__ __forceinline__ float iso_sample(const IsoArgs& g, unsigned int i, unsigned int j, unsigned int k) {
    return __ldg(g.values + ((size_t)k * g.samples[1] + j) * g.samples[0] + i);
}

// A hit with the interpolant's gradient there, normalised (zero where it vanishes): what
// caster.rs's IsoHit holds; the device's IsoHit (Rust's layout) keeps only t and the cell.
struct IsoCastResult {
    IsoHit hit;
    double normal[3];
};

// cell.rs gradient: the interpolant's gradient at cell-local point p.
template <typename R>
__device__ __forceinline__ void iso_gradient(const float* c8, const R* p, R* g) {
    auto c = [&](int i) { return (R)c8[i]; };
    auto lerp = [](R a, R b, R t) { return a + (b - a) * t; };
    const R x = p[0], y = p[1], z = p[2];
    g[0] = lerp(lerp(c(1) - c(0), c(3) - c(2), y), lerp(c(5) - c(4), c(7) - c(6), y), z);
    g[1] = lerp(lerp(c(2) - c(0), c(3) - c(1), x), lerp(c(6) - c(4), c(7) - c(5), x), z);
    g[2] = lerp(lerp(c(4) - c(0), c(5) - c(1), x), lerp(c(6) - c(2), c(7) - c(3), x), y);
}

// caster.rs intersect_cell: the first root in cell `cell` (lower corner clo) over the ray's
// [t0, t1] inside it, with the gradient there.
template <typename R>
__device__ __forceinline__ bool iso_intersect_cell(const IsoArgs& g, const unsigned int* cell, const R* clo,
                                                   const R* o, const R* d, R t0, R t1, IsoCastResult& result) {
    float corners[8];
    for (int c = 0; c < 8; ++c)
        corners[c] = iso_sample(g, cell[0] + (c & 1), cell[1] + ((c >> 1) & 1), cell[2] + ((c >> 2) & 1));
    // cell.rs may_cross: the interpolant stays within its corners' range, so a cell whose range
    // excludes the isovalue has no root (exact; the cubic is spared).
    float lo_value = corners[0], hi_value = corners[0];
    for (int c = 1; c < 8; ++c) {
        lo_value = fminf(lo_value, corners[c]);
        hi_value = fmaxf(hi_value, corners[c]);
    }
    if (!(lo_value <= g.isovalue && g.isovalue <= hi_value)) return false;
    // In s = t − t0 from the cell entry (well conditioned).
    const R local[3] = {o[0] + t0 * d[0] - clo[0], o[1] + t0 * d[1] - clo[1], o[2] + t0 * d[2] - clo[2]};
    const IsoCubic<R> q = iso_cubic(corners, local, d, (R)g.isovalue);
    R root;
    if (!iso_first_root(q, R(0), t1 - t0, root)) return false;
    // The gradient at the root, inside the cell.
    R p[3], grad[3];
    for (int a = 0; a < 3; ++a) p[a] = fmin(fmax(local[a] + root * d[a], R(0)), R(1));
    iso_gradient(corners, p, grad);
    const R length = sqrt(grad[0] * grad[0] + grad[1] * grad[1] + grad[2] * grad[2]);
    for (int a = 0; a < 3; ++a) result.normal[a] = length > R(0) ? (double)(grad[a] / length) : 0.0;
    IsoHit& out = result.hit;
    out.t = (double)(t0 + root);
    out.cell[0] = cell[0];
    out.cell[1] = cell[1];
    out.cell[2] = cell[2];
    out.hit = 1u;
    return true;
}

// caster.rs march: the cells of lo..hi from where the ray is at t_start. Every array here is
// indexed by constants only (the stepped axis is chosen by selects, not by `cell[axis]`), so the
// cell, the brick's bounds, the direction and the faces' distances stay in registers: an index
// known only at run time puts an array in local memory, and each step then waited on several
// round trips to L1 (docs/benchmarks/isosurface.md, "The march in registers"). Same arithmetic.
template <typename R>
__device__ __forceinline__ bool iso_march(const IsoArgs& g, const unsigned int* lo_in, const unsigned int* hi_in,
                                          const R* o, const R* d, R seg0, R seg1, R t_start, IsoCastResult& result) {
    unsigned int cell[3], exit_cell[3];
#pragma unroll
    for (int a = 0; a < 3; ++a) {
        const unsigned int lo = lo_in[a], hi = hi_in[a];
        const R p = o[a] + t_start * d[a];
        const R f = floor(p);
        unsigned int c = f > R(0) ? (unsigned int)f : 0u;
        c = c < lo ? lo : (c > hi - 1u ? hi - 1u : c);
        cell[a] = c;
        // The cell in which a step along a leaves the brick (the cell stays within lo..hi − 1,
        // so "c + 1 ≥ hi" going up and "c = lo" going down both read "c = exit_cell").
        exit_cell[a] = d[a] > R(0) ? hi - 1u : lo;
    }
    const unsigned int limit = (hi_in[0] - lo_in[0]) + (hi_in[1] - lo_in[1]) + (hi_in[2] - lo_in[2]) + 3u;
    R inv[3];
#pragma unroll
    for (int a = 0; a < 3; ++a) inv[a] = R(1) / d[a];
    for (unsigned int step = 0; step < limit; ++step) {
        const R clo[3] = {(R)cell[0], (R)cell[1], (R)cell[2]};
        const R chi[3] = {clo[0] + R(1), clo[1] + R(1), clo[2] + R(1)};
        R t0, t1;
        if (iso_slab(o, d, clo, chi, seg0, seg1, t0, t1) && iso_intersect_cell(g, cell, clo, o, d, t0, t1, result))
            return true;
        R far_t[3];
#pragma unroll
        for (int a = 0; a < 3; ++a) {
            const R face = d[a] > R(0) ? (R)(cell[a] + 1u) : (R)cell[a];
            far_t[a] = d[a] == R(0) ? IsoReal<R>::infinity() : (face - o[a]) * inv[a];
        }
        const int axis = (far_t[0] <= far_t[1] && far_t[0] <= far_t[2]) ? 0 : (far_t[1] <= far_t[2] ? 1 : 2);
        const R far_axis = axis == 0 ? far_t[0] : (axis == 1 ? far_t[1] : far_t[2]);
        if (far_axis >= seg1) return false;
        const unsigned int c_axis = axis == 0 ? cell[0] : (axis == 1 ? cell[1] : cell[2]);
        if (c_axis == (axis == 0 ? exit_cell[0] : (axis == 1 ? exit_cell[1] : exit_cell[2]))) return false;
        const bool up = axis == 0 ? d[0] > R(0) : (axis == 1 ? d[1] > R(0) : d[2] > R(0));
        const unsigned int next = up ? c_axis + 1u : c_axis - 1u;
#pragma unroll
        for (int a = 0; a < 3; ++a) cell[a] = a == axis ? next : cell[a];
    }
    return false;
}

// A node from its two 16-byte halves (the layout above).
__device__ __forceinline__ IsoNode iso_node_from_halves(uint4 a, uint4 b) {
    IsoNode n;
    n.lo[0] = a.x;
    n.lo[1] = a.y;
    n.lo[2] = a.z;
    n.hi[0] = a.w;
    n.hi[1] = b.x;
    n.hi[2] = b.y;
    n.left = b.z;
    n.right = b.w;
    return n;
}

// A node of the condensed tree in two 16-byte loads (the buffer is a device allocation, so
// each 32-byte node is 16-byte aligned), its fields in registers.
__device__ __forceinline__ IsoNode iso_load_node(const IsoNode* nodes, unsigned int index) {
    const uint4* p = reinterpret_cast<const uint4*>(nodes + index);
    return iso_node_from_halves(__ldg(p), __ldg(p + 1));
}

// caster.rs cast_bvh_within: one ray through the condensed tree, t in [t_min, t_max], in the
// real type R (the ray's f64 origin and direction rounded to R first).
template <typename R>
__device__ __forceinline__ IsoCastResult iso_cast_within(const IsoArgs& g, const IsoRay& ray, double t_min,
                                                         double t_max) {
    IsoCastResult result;
    IsoHit& best = result.hit;
    best.t = 0.0;
    best.cell[0] = best.cell[1] = best.cell[2] = 0u;
    best.hit = 0u;
    result.normal[0] = result.normal[1] = result.normal[2] = 0.0;
    if (g.root == ISO_NO_NODE) return result;
    const R o[3] = {(R)ray.origin[0], (R)ray.origin[1], (R)ray.origin[2]};
    const R d[3] = {(R)ray.direction[0], (R)ray.direction[1], (R)ray.direction[2]};
    const R zero[3] = {R(0), R(0), R(0)};
    const R upper[3] = {(R)(g.samples[0] - 1u), (R)(g.samples[1] - 1u), (R)(g.samples[2] - 1u)};
    const R inf = IsoReal<R>::infinity();
    R seg0, seg1;
    if (!iso_slab(o, d, zero, upper, (R)t_min, (R)t_max, seg0, seg1)) return result;
    unsigned int stack_node[ISO_STACK];
    R stack_entry[ISO_STACK];
    int top = 0;
    auto node_range = [&](unsigned int index, R limit, R& t0) {
        const IsoNode n = iso_load_node(g.nodes, index);
        const R lo[3] = {(R)n.lo[0], (R)n.lo[1], (R)n.lo[2]};
        const R hi[3] = {(R)n.hi[0], (R)n.hi[1], (R)n.hi[2]};
        R t1;
        return iso_slab(o, d, lo, hi, seg0, fmin(seg1, limit), t0, t1);
    };
    R t0;
    if (node_range(g.root, inf, t0)) {
        stack_node[top] = g.root;
        stack_entry[top] = t0;
        ++top;
    }
    // Aila and Laine's "while-while": each lane walks inner nodes until it holds a leaf (or its
    // stack is empty), and only then do the lanes march their leaves' cells, together. With
    // one loop that did either a node or a whole leaf per pass, the lanes at an inner node
    // waited through their neighbours' marches and then marched while those walked nodes: the
    // warp ran the marches one after another. The nodes and leaves each lane visits, and in
    // what order, are the same.
    while (true) {
        bool have_leaf = false;
        unsigned int leaf_lo[3], leaf_hi[3];
        R leaf_entry = R(0);
        while (top > 0) {
            --top;
            const unsigned int index = stack_node[top];
            const R entry = stack_entry[top];
            if (best.hit && entry > (R)best.t) continue;
            const IsoNode n = iso_load_node(g.nodes, index);
            if (n.left == ISO_NO_NODE) {
                for (int a = 0; a < 3; ++a) {
                    leaf_lo[a] = n.lo[a];
                    leaf_hi[a] = n.hi[a];
                }
                leaf_entry = entry;
                have_leaf = true;
                break;
            }
            const R limit = best.hit ? (R)best.t : inf;
            R tl, tr;
            const bool l = node_range(n.left, limit, tl);
            const bool r = node_range(n.right, limit, tr);
            // The far child first: the near one is popped first (ties: the right one is
            // popped first, as after the Rust twin's stable descending sort of [left, right]).
            if (l && r) {
                const bool left_near = tl < tr;
                if (top + 2 > ISO_STACK) return result;
                stack_node[top] = left_near ? n.right : n.left;
                stack_entry[top] = left_near ? tr : tl;
                stack_node[top + 1] = left_near ? n.left : n.right;
                stack_entry[top + 1] = left_near ? tl : tr;
                top += 2;
            } else if (l || r) {
                if (top + 1 > ISO_STACK) return result;
                stack_node[top] = l ? n.left : n.right;
                stack_entry[top] = l ? tl : tr;
                ++top;
            }
        }
        if (!have_leaf) break;
        IsoCastResult hit;
        if (iso_march(g, leaf_lo, leaf_hi, o, d, seg0, seg1, leaf_entry, hit) && (!best.hit || hit.hit.t < best.t))
            result = hit;
    }
    return result;
}

// caster.rs cast_bvh: the whole ray (t ≥ 0), in f64.
__device__ __forceinline__ IsoCastResult iso_cast(const IsoArgs& g, const IsoRay& ray) {
    return iso_cast_within<double>(g, ray, 0.0, ISO_INF);
}

// The sizes and field offsets of this header's structs are Rust's (src/layout_registry.rs),
// checked by the generated header once the headers each struct needs are complete.
#define WARPATH_LAYOUT_ISOSURFACE_CASTER
#include "generated/layout_checks.cuh"
