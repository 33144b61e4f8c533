// cuda_host_shim.h — what the CUDA estimator headers (crates/warpath-cuda/kernels/) need
// from CUDA, defined for a host C++ compiler, so that the very same headers compile with
// g++ and the lockstep tests can compare them with their Rust twins without a GPU.
//
// * The qualifiers (__device__, __forceinline__, ...) become plain inline functions.
// * float2/3/4 and int2 have CUDA's sizes and alignments (float2 and int2 8 bytes,
//   float4 16), so the headers' static_asserts on the layouts Rust owns hold here too.
// * The rounded intrinsics (__fadd_rn, __fmul_rn, __fdiv_rn, __fsqrt_rn, ...) are the host's
//   IEEE operations: exactly rounded to nearest even, as on the GPU, provided the compiler
//   neither fuses nor reassociates them. build.rs compiles with -ffp-contract=off,
//   -fno-fast-math and SSE arithmetic (-mfpmath=sse), and with -fno-builtin, so that no
//   libm call is folded or replaced.
// * The headers call no transcendental of libm or CUDA (common/detmath.cuh builds sine,
//   atan2, exp, ln, pow, ... from rounded operations); the libm functions they do call
//   (sqrtf, floorf, fmodf, fminf, fmaxf, fabsf) are exact, on the host as on the GPU.
// * Warp intrinsics and atomics are their one-thread versions: a host "warp" is one lane,
//   its active mask 1, every lane its own leader; clock64 reads 0.
#pragma once

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define __device__
#define __host__
#define __global__
#define __shared__
#define __constant__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))

// ---- vector types ---------------------------------------------------------------------------

struct alignas(8) float2 {
    float x, y;
};
struct float3 {
    float x, y, z;
};
struct alignas(16) float4 {
    float x, y, z, w;
};
struct alignas(8) int2 {
    int x, y;
};
struct alignas(8) uint2 {
    unsigned int x, y;
};
static_assert(sizeof(float2) == 8 && alignof(float2) == 8, "CUDA's float2");
static_assert(sizeof(float3) == 12 && alignof(float3) == 4, "CUDA's float3");
static_assert(sizeof(float4) == 16 && alignof(float4) == 16, "CUDA's float4");
static_assert(sizeof(int2) == 8 && alignof(int2) == 8, "CUDA's int2");
static_assert(sizeof(uint2) == 8 && alignof(uint2) == 8, "CUDA's uint2");

inline float2 make_float2(float x, float y) { return float2{x, y}; }
inline float3 make_float3(float x, float y, float z) { return float3{x, y, z}; }
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
inline int2 make_int2(int x, int y) { return int2{x, y}; }
inline uint2 make_uint2(unsigned int x, unsigned int y) { return uint2{x, y}; }

// ---- exactly rounded arithmetic ------------------------------------------------------------

inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __frcp_rn(float a) { return 1.0f / a; }
inline float __fsqrt_rn(float a) { return sqrtf(a); }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __ddiv_rn(double a, double b) { return a / b; }

// ---- bits -----------------------------------------------------------------------------------

inline unsigned int __float_as_uint(float f) {
    unsigned int u;
    memcpy(&u, &f, sizeof u);
    return u;
}
inline float __uint_as_float(unsigned int u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
inline int __float_as_int(float f) { return (int)__float_as_uint(f); }
inline float __int_as_float(int i) { return __uint_as_float((unsigned int)i); }
// PRMT: byte n of the result is byte (s >> 4n) & 7 of the 8 bytes {y, x} (x the low four).
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
    const unsigned long long both = ((unsigned long long)y << 32) | x;
    unsigned int result = 0;
    for (int n = 0; n < 4; ++n) result |= (unsigned int)((both >> (8 * ((s >> (4 * n)) & 7u))) & 0xffu) << (8 * n);
    return result;
}
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
inline unsigned int __brev(unsigned int x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
    return (x >> 16) | (x << 16);
}
inline unsigned int __umulhi(unsigned int a, unsigned int b) {
    return (unsigned int)(((unsigned long long)a * b) >> 32);
}

// CUDA's integer min/max overloads (the float ones are fminf/fmaxf).
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned int min(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int max(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

// ---- memory and one-lane warps ----------------------------------------------------------------

template <typename T>
inline T __ldg(const T* p) {
    return *p;
}
inline unsigned int __activemask() { return 1u; }
template <typename T>
inline unsigned int __match_any_sync(unsigned int mask, T) {
    return mask & 1u;
}
template <typename T>
inline T __shfl_sync(unsigned int, T value, int) {
    return value;
}
inline unsigned int __ballot_sync(unsigned int mask, int predicate) { return predicate ? (mask & 1u) : 0u; }
inline unsigned int __reduce_max_sync(unsigned int, unsigned int value) { return value; }
inline unsigned int __reduce_add_sync(unsigned int, unsigned int value) { return value; }
inline void __syncwarp(unsigned int = 0xffffffffu) {}
inline void __syncthreads() {}
inline long long clock64() { return 0; }
template <typename T>
inline T atomicAdd(T* address, T value) {
    const T old = *address;
    *address = old + value;
    return old;
}
