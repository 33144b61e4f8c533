// cub_select.cu — the CUB peer of `warpath-bench compaction` (issue 4): times
// cub::DeviceSelect::If (predicate on the data) and cub::DeviceSelect::Flagged (a flag
// array + the data) on the same input the warpath benchmark makes (the same keys, the same
// hash predicate, so the same kept counts), beside cudaMemcpyAsync device to device, with
// CUDA events after warm-up runs, and prints one JSON object per line.
//
// Effective bytes as in warpath: n × size read (+ n flag bytes for Flagged) plus kept × size
// written; memcpy 2 × n × size. The timed interval holds the DeviceSelect call alone (its
// temporary storage is allocated once, before timing).
//
// Build: crates/warpath-bench/cub/build.sh (nvcc -O3 -arch=sm_90). Run:
//   cub_select [--sizes 16,20,24,28] [--selectivity 1,10,50,90,100]
//              [--elements u32,elem16,path64] [--runs 10] [--warmup 3] [--max-buffer-gib 4]
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../kernels/compaction/compaction.cuh"

#define CHECK(call)                                                                                   \
    do {                                                                                              \
        cudaError_t status_ = (call);                                                                 \
        if (status_ != cudaSuccess) {                                                                 \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(status_)); \
            std::exit(1);                                                                             \
        }                                                                                             \
    } while (0)

// The benchmark's seed (DATA_SEED in crates/warpath-bench/src/compaction.rs); data seed = SEED ^ n.
static const unsigned int SEED = 0x2545f491u;

__device__ void make_element(unsigned int& out, unsigned int, unsigned int key) { out = key; }
__device__ void make_element(CompactElem16& out, unsigned int index, unsigned int key) {
    out.key = key;
    out.payload[0] = index;
    out.payload[1] = ~index;
    out.payload[2] = key ^ 0x5bd1e995u;
}
__device__ void make_element(CompactPathState& out, unsigned int index, unsigned int key) {
    out.key = key;
    out.pixel = index;
    out.depth = index & 7u;
    out.rng = compaction_hash(key);
    for (int c = 0; c < 3; ++c) {
        out.origin[c] = (float)(index + c);
        out.direction[c] = (float)c - 1.0f;
        out.throughput[c] = 0.5f;
    }
    out.pdf = 1.0f;
    out.t_max = 1e30f;
    out.flags = ~index;
}

// The same data as compaction_fill_* in compaction.cu.
template <typename T>
__global__ void fill(T* out, unsigned int n, unsigned int seed) {
    const unsigned int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= n) return;
    T value;
    make_element(value, index, compaction_hash(index ^ compaction_hash(seed)));
    out[index] = value;
}

template <typename T>
__global__ void write_flags(const T* in, unsigned char* flags, unsigned int n, unsigned long long threshold) {
    const unsigned int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index < n) flags[index] = KeepHashBelow{threshold}(in[index]) ? 1 : 0;
}

static std::vector<double> parse_list(const char* text) {
    std::vector<double> values;
    std::string s(text);
    size_t start = 0;
    while (start <= s.size()) {
        size_t end = s.find(',', start);
        if (end == std::string::npos) end = s.size();
        if (end > start) values.push_back(std::atof(s.substr(start, end - start).c_str()));
        start = end + 1;
    }
    return values;
}

struct Options {
    std::vector<double> sizes{16, 20, 24, 28};
    std::vector<double> selectivity{1, 10, 50, 90, 100};
    std::string elements = "u32,elem16,path64";
    int runs = 10;
    int warmup = 3;
    double max_buffer_gib = 4.0;
};

template <typename F>
static float median_ms(const Options& options, F run) {
    cudaEvent_t start, end;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&end));
    for (int i = 0; i < options.warmup; ++i) run();
    CHECK(cudaDeviceSynchronize());
    std::vector<float> times;
    for (int i = 0; i < options.runs; ++i) {
        CHECK(cudaEventRecord(start));
        run();
        CHECK(cudaEventRecord(end));
        CHECK(cudaEventSynchronize(end));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, end));
        times.push_back(ms);
    }
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(end));
    std::sort(times.begin(), times.end());
    const size_t m = times.size();
    return m % 2 ? times[m / 2] : 0.5f * (times[m / 2 - 1] + times[m / 2]);
}

static void print_row(const char* element, size_t size, unsigned int n, double selectivity, const char* method,
                      unsigned long long kept, unsigned long long bytes, float ms) {
    std::printf(
        "{\"element\":\"%s\",\"element_bytes\":%zu,\"elements\":%u,\"selectivity_percent\":%g,\"method\":\"%s\","
        "\"kept\":%llu,\"effective_bytes\":%llu,\"median_ms\":%.5f,\"gigabytes_per_second\":%.2f}\n",
        element, size, n, selectivity, method, kept, bytes, ms, ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0.0);
    std::fflush(stdout);
}

template <typename T>
static void bench(const Options& options, const char* element) {
    for (double log2 : options.sizes) {
        const unsigned int n = 1u << (int)log2;
        const size_t bytes = (size_t)n * sizeof(T);
        if (bytes > options.max_buffer_gib * (double)(1ull << 30)) {
            std::fprintf(stderr, "skipped %s x 2^%d: %zu MiB per buffer exceeds the cap\n", element, (int)log2,
                         bytes >> 20);
            continue;
        }
        T *in, *out;
        unsigned char* flags;
        int* selected;
        CHECK(cudaMalloc(&in, bytes));
        CHECK(cudaMalloc(&out, bytes));
        CHECK(cudaMalloc(&flags, n));
        CHECK(cudaMalloc(&selected, sizeof(int)));
        fill<T><<<(n + 255) / 256, 256>>>(in, n, SEED ^ n);
        CHECK(cudaGetLastError());
        const float copy_ms =
            median_ms(options, [&] { CHECK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice)); });
        print_row(element, sizeof(T), n, 100, "memcpy", n, 2ull * bytes, copy_ms);
        for (double selectivity : options.selectivity) {
            const unsigned long long threshold =
                (unsigned long long)std::llround(std::min(std::max(selectivity / 100.0, 0.0), 1.0) * 4294967296.0);
            const KeepHashBelow predicate{threshold};
            write_flags<T><<<(n + 255) / 256, 256>>>(in, flags, n, threshold);
            CHECK(cudaGetLastError());
            size_t temp_if = 0, temp_flagged = 0;
            CHECK(cub::DeviceSelect::If(nullptr, temp_if, in, out, selected, (int)n, predicate));
            CHECK(cub::DeviceSelect::Flagged(nullptr, temp_flagged, in, flags, out, selected, (int)n));
            void* temp;
            const size_t temp_bytes = std::max(temp_if, temp_flagged);
            CHECK(cudaMalloc(&temp, temp_bytes));
            int kept = 0;
            size_t t = temp_bytes;
            const float if_ms = median_ms(
                options, [&] { CHECK(cub::DeviceSelect::If(temp, t, in, out, selected, (int)n, predicate)); });
            CHECK(cudaMemcpy(&kept, selected, sizeof(int), cudaMemcpyDeviceToHost));
            print_row(element, sizeof(T), n, selectivity, "cub-if", kept, bytes + (size_t)kept * sizeof(T), if_ms);
            const float flagged_ms = median_ms(
                options, [&] { CHECK(cub::DeviceSelect::Flagged(temp, t, in, flags, out, selected, (int)n)); });
            CHECK(cudaMemcpy(&kept, selected, sizeof(int), cudaMemcpyDeviceToHost));
            print_row(element, sizeof(T), n, selectivity, "cub-flagged", kept,
                      bytes + n + (size_t)kept * sizeof(T), flagged_ms);
            CHECK(cudaFree(temp));
        }
        CHECK(cudaFree(in));
        CHECK(cudaFree(out));
        CHECK(cudaFree(flags));
        CHECK(cudaFree(selected));
    }
}

int main(int argc, char** argv) {
    Options options;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--sizes") options.sizes = parse_list(argv[i + 1]);
        else if (flag == "--selectivity") options.selectivity = parse_list(argv[i + 1]);
        else if (flag == "--elements") options.elements = argv[i + 1];
        else if (flag == "--runs") options.runs = std::max(1, std::atoi(argv[i + 1]));
        else if (flag == "--warmup") options.warmup = std::max(0, std::atoi(argv[i + 1]));
        else if (flag == "--max-buffer-gib") options.max_buffer_gib = std::atof(argv[i + 1]);
        else {
            std::fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
    }
    cudaDeviceProp properties;
    CHECK(cudaGetDeviceProperties(&properties, 0));
    int driver = 0;
    CHECK(cudaDriverGetVersion(&driver));
    std::fprintf(stderr, "cub_select: %s, CUB %d, driver %d\n", properties.name, CUB_VERSION, driver);
    const std::string& e = options.elements;
    if (e.find("u32") != std::string::npos) bench<unsigned int>(options, "u32");
    if (e.find("elem16") != std::string::npos) bench<CompactElem16>(options, "elem16");
    if (e.find("path64") != std::string::npos) bench<CompactPathState>(options, "path64");
    return 0;
}
