// layout_check.cu — writes the device compiler's sizeof/offsetof of every GPU-shared
// struct into `out`, in the order of warpath_cuda::layout::layout_entries(); the GPU test
// `layout_matches` compares them with Rust's size_of/offset_of! (Rust owns the layouts: docs/architecture.md).
#include "common/layout.cuh"

// Writes one value if it fits; `count` always advances so the host sees the full count.
#define REPORT(value)                                                      \
    do {                                                                   \
        if (count < capacity) out[count] = (unsigned long long)(value);    \
        ++count;                                                           \
    } while (0)
#define REPORT_SIZE(type) REPORT(sizeof(type))
#define REPORT_FIELD(type, field) REPORT(WARPATH_OFFSETOF(type, field))

extern "C" __global__ void layout_report(unsigned long long* out, unsigned int capacity, unsigned int* written) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    unsigned int count = 0;

    REPORT_SIZE(AilaLaineNode);
    REPORT_FIELD(AilaLaineNode, child0_xy);
    REPORT_FIELD(AilaLaineNode, child1_xy);
    REPORT_FIELD(AilaLaineNode, children_z);
    REPORT_FIELD(AilaLaineNode, child_index);
    REPORT_FIELD(AilaLaineNode, _pad);

    REPORT_SIZE(GpuTriangle);
    REPORT_FIELD(GpuTriangle, v0);
    REPORT_FIELD(GpuTriangle, edge1);
    REPORT_FIELD(GpuTriangle, edge2);

    REPORT_SIZE(GpuRay);
    REPORT_FIELD(GpuRay, origin);
    REPORT_FIELD(GpuRay, t_min);
    REPORT_FIELD(GpuRay, direction);
    REPORT_FIELD(GpuRay, t_max);

    REPORT_SIZE(GpuHit);
    REPORT_FIELD(GpuHit, t);
    REPORT_FIELD(GpuHit, u);
    REPORT_FIELD(GpuHit, v);
    REPORT_FIELD(GpuHit, prim);

    REPORT_SIZE(Material);
    REPORT_FIELD(Material, kind);
    REPORT_FIELD(Material, base_color_texture);
    REPORT_FIELD(Material, roughness);
    REPORT_FIELD(Material, ior);
    REPORT_FIELD(Material, base_color);
    REPORT_FIELD(Material, exponent);
    REPORT_FIELD(Material, specular);
    REPORT_FIELD(Material, flags);
    REPORT_FIELD(Material, emission);
    REPORT_FIELD(Material, _pad);

    REPORT_SIZE(TriangleLight);
    REPORT_FIELD(TriangleLight, p0);
    REPORT_FIELD(TriangleLight, area);
    REPORT_FIELD(TriangleLight, e1);
    REPORT_FIELD(TriangleLight, two_sided);
    REPORT_FIELD(TriangleLight, e2);
    REPORT_FIELD(TriangleLight, triangle);
    REPORT_FIELD(TriangleLight, emission);
    REPORT_FIELD(TriangleLight, _pad);

    *written = count;
}
