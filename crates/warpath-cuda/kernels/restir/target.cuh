// restir/target.cuh — ReSTIR's target functions p̂ = t(c) of a sample's unshadowed
// contribution c (warpath_core::restir::TargetFunction, issue 29), in the CPU's order of
// rounded operations, so both resample alike bit for bit. Its own header so that
// warpath-lockstep compiles it as host C++ and compares it with the Rust twin.
#pragma once

#define RESTIR_TARGET_LUMINANCE 0u
#define RESTIR_TARGET_L2 1u
#define RESTIR_TARGET_SUM 2u
#define RESTIR_TARGET_MAX 3u
// One reservoir per colour channel (TargetFunction::Channels): initial RIS, the visibility pass
// and shading handle the three reservoirs; each reuse launch resamples one channel's reservoirs
// with that channel's target, RESTIR_TARGET_RED + channel.
#define RESTIR_TARGET_CHANNELS 4u
#define RESTIR_TARGET_RED 5u
#define RESTIR_TARGET_GREEN 6u
#define RESTIR_TARGET_BLUE 7u

// warpath_core::color::luminance.
__device__ __forceinline__ float restir_luminance(float3 c) {
    return __fadd_rn(__fadd_rn(__fmul_rn(0.212671f, c.x), __fmul_rn(0.715160f, c.y)), __fmul_rn(0.072169f, c.z));
}

// TargetFunction::of: `kind` is TargetFunction::code (RESTIR_TARGET_*).
__device__ __forceinline__ float restir_target_value(unsigned int kind, float3 c) {
    switch (kind) {
        case RESTIR_TARGET_L2:
            return __fsqrt_rn(__fadd_rn(__fadd_rn(__fmul_rn(c.x, c.x), __fmul_rn(c.y, c.y)), __fmul_rn(c.z, c.z)));
        case RESTIR_TARGET_SUM:
        case RESTIR_TARGET_CHANNELS:  // (no resampling uses it: TargetFunction::of's channel sum)
            return __fadd_rn(__fadd_rn(c.x, c.y), c.z);
        case RESTIR_TARGET_MAX:
            return fmaxf(fmaxf(c.x, c.y), c.z);
        case RESTIR_TARGET_RED:
            return c.x;
        case RESTIR_TARGET_GREEN:
            return c.y;
        case RESTIR_TARGET_BLUE:
            return c.z;
        default:
            return restir_luminance(c);
    }
}
