// compaction/bulk_copy.cuh — Hopper (sm_90+) bulk asynchronous copies from global to shared memory
// (the 1-D form of the tensor memory accelerator, `cp.async.bulk`), completed through a
// shared-memory transaction barrier (`mbarrier`), as inline PTX so that NVRTC needs no
// CCCL headers. A block-wide pattern:
//
//   one thread:   bulk_barrier_init(&full, 1) ... bulk_barrier_init_fence(); then barrier
//   producer:     bulk_arrive_expect_bytes(&full, bytes); bulk_copy_to_shared(dst, src, bytes, &full)
//                 (or bulk_arrive(&full) for a phase with no copy)
//   consumers:    bulk_wait(&full, phase_parity), then read dst with ordinary loads
//   reuse of dst: every consumer's reads pass a block barrier, then the producer calls
//                 bulk_fence_shared_before_async() before the next copy into dst
//
// `WARPATH_HAS_BULK_COPY` is 1 where the instructions exist (device code for sm_90 and
// newer); callers fall back to ordinary loads elsewhere.
#pragma once

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define WARPATH_HAS_BULK_COPY 1
#else
#define WARPATH_HAS_BULK_COPY 0
#endif

__device__ __forceinline__ unsigned int bulk_shared_address(const void* pointer) {
    return (unsigned int)__cvta_generic_to_shared(pointer);
}

#if WARPATH_HAS_BULK_COPY

// Initializes a barrier expecting `arrivals` arrivals per phase.
__device__ __forceinline__ void bulk_barrier_init(unsigned long long* barrier, unsigned int arrivals) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bulk_shared_address(barrier)), "r"(arrivals)
                 : "memory");
}

// Makes initialized barriers visible to the async proxy (the copy engine); a block barrier
// must follow before other threads use them.
__device__ __forceinline__ void bulk_barrier_init_fence() {
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// One arrival that also tells the barrier to expect `bytes` more bytes of copies this phase.
__device__ __forceinline__ void bulk_arrive_expect_bytes(unsigned long long* barrier, unsigned int bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bulk_shared_address(barrier)),
                 "r"(bytes)
                 : "memory");
}

// One plain arrival (a phase with nothing to copy).
__device__ __forceinline__ void bulk_arrive(unsigned long long* barrier) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bulk_shared_address(barrier)) : "memory");
}

// Copies `bytes` (a multiple of 16; both addresses 16-byte aligned) from global `source` to
// shared `destination`; the barrier's phase completes when the bytes have landed.
__device__ __forceinline__ void bulk_copy_to_shared(void* destination, const void* source, unsigned int bytes,
                                                    unsigned long long* barrier) {
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
            bulk_shared_address(destination)),
        "l"(source), "r"(bytes), "r"(bulk_shared_address(barrier))
        : "memory");
}

// Orders this block's earlier generic-proxy accesses of shared memory (reads of a buffer)
// before later async-proxy writes into it (the next copy).
__device__ __forceinline__ void bulk_fence_shared_before_async() {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// Waits until the phase with parity `parity` of the barrier has completed.
__device__ __forceinline__ void bulk_wait(unsigned long long* barrier, unsigned int parity) {
    const unsigned int address = bulk_shared_address(barrier);
    unsigned int done = 0;
    do {
        asm volatile(
            "{\n\t.reg .pred ready;\n\t"
            "mbarrier.try_wait.parity.shared::cta.b64 ready, [%1], %2;\n\t"
            "selp.u32 %0, 1, 0, ready;\n\t}"
            : "=r"(done)
            : "r"(address), "r"(parity)
            : "memory");
    } while (!done);
}

#endif  // WARPATH_HAS_BULK_COPY
