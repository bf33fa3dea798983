// CUB's side of bench_cub (bench/src/bin/bench_cub.rs): each function runs one CUB algorithm
// on the caller's stream and device memory, with temporary storage that is kept between
// calls (grown during the warm-up, never inside a timed call). Built by nvcc on the GPU host
// into a shared library that the benchmark loads, so CUB and Cuprum run in one process, on
// one context and stream, on the same buffers. Every function returns a cudaError_t.
// `-DCUB_BENCH_SUM_HISTOGRAM_ONLY` leaves the scan and the sorts out (they return 1): a library
// for `bench_cub R N sum,histogram` that nvcc builds in seconds instead of a minute.

#include <cub/cub.cuh>
#include <cstddef>

static void* g_temp = nullptr;
static size_t g_temp_bytes = 0;

// Temporary storage of at least `bytes`, kept for the next call.
static cudaError_t temp(size_t bytes, void** out) {
    if (bytes > g_temp_bytes) {
        if (g_temp) {
            cudaError_t e = cudaFree(g_temp);
            if (e != cudaSuccess) return e;
        }
        cudaError_t e = cudaMalloc(&g_temp, bytes);
        if (e != cudaSuccess) { g_temp = nullptr; g_temp_bytes = 0; return e; }
        g_temp_bytes = bytes;
    }
    *out = g_temp;
    return cudaSuccess;
}

#define CUB_CALL(call_with)                                                  \
    do {                                                                     \
        size_t bytes = 0;                                                    \
        void* t = nullptr;                                                   \
        cudaError_t e = call_with(nullptr, bytes);                           \
        if (e != cudaSuccess) return e;                                      \
        e = temp(bytes, &t);                                                 \
        if (e != cudaSuccess) return e;                                      \
        e = call_with(t, bytes);                                             \
        if (e != cudaSuccess) return e;                                      \
        return cudaGetLastError();                                           \
    } while (0)

extern "C" {

// The sum on the host, as `cuprum::algorithms::sum` returns it: DeviceReduce::Sum, a copy of
// the result and a stream synchronisation.
int cub_sum_i32(const int* in, int* out, size_t n, int* host, cudaStream_t s) {
    size_t bytes = 0;
    void* t = nullptr;
    cudaError_t e = cub::DeviceReduce::Sum(nullptr, bytes, in, out, (int64_t)n, s);
    if (e != cudaSuccess) return e;
    if ((e = temp(bytes, &t)) != cudaSuccess) return e;
    if ((e = cub::DeviceReduce::Sum(t, bytes, in, out, (int64_t)n, s)) != cudaSuccess) return e;
    if ((e = cudaMemcpyAsync(host, out, sizeof(int), cudaMemcpyDeviceToHost, s)) != cudaSuccess) return e;
    return cudaStreamSynchronize(s);
}

int cub_exclusive_sum_u32(const unsigned* in, unsigned* out, size_t n, cudaStream_t s) {
#ifdef CUB_BENCH_SUM_HISTOGRAM_ONLY
    return 1;
#else
#define CALL(t, b) cub::DeviceScan::ExclusiveSum(t, b, in, out, (int64_t)n, s)
    CUB_CALL(CALL);
#undef CALL
#endif
}

int cub_sort_keys_u32(const unsigned* in, unsigned* out, size_t n, cudaStream_t s) {
#ifdef CUB_BENCH_SUM_HISTOGRAM_ONLY
    return 1;
#else
#define CALL(t, b) cub::DeviceRadixSort::SortKeys(t, b, in, out, (int64_t)n, 0, 32, s)
    CUB_CALL(CALL);
#undef CALL
#endif
}

int cub_sort_pairs_u32(const unsigned* kin, unsigned* kout, const unsigned* vin, unsigned* vout,
                       size_t n, cudaStream_t s) {
#ifdef CUB_BENCH_SUM_HISTOGRAM_ONLY
    return 1;
#else
#define CALL(t, b) cub::DeviceRadixSort::SortPairs(t, b, kin, kout, vin, vout, (int64_t)n, 0, 32, s)
    CUB_CALL(CALL);
#undef CALL
#endif
}

// `bins` even bins over [lower, upper).
int cub_histogram_f32(const float* in, int* hist, int bins, float lower, float upper, size_t n,
                      cudaStream_t s) {
#define CALL(t, b) cub::DeviceHistogram::HistogramEven(t, b, in, hist, bins + 1, lower, upper, (int64_t)n, s)
    CUB_CALL(CALL);
#undef CALL
}

}  // extern "C"

// Block primitives inside one kernel: each 256-thread block walks tiles of 256 values, one
// per thread, and reduces (scans) each with BlockReduce (BlockScan), as bench_cub's Cuprum
// kernels do with gpu::block::sum (inclusive_sum).
__global__ void __launch_bounds__(256) block_reduce_tiles(const int* x, int* out, size_t tiles) {
    using Reduce = cub::BlockReduce<int, 256>;
    __shared__ typename Reduce::TempStorage storage;
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        int v = x[tile * 256 + threadIdx.x];
        int s = Reduce(storage).Sum(v);
        if (threadIdx.x == 0) out[tile] = s;
        __syncthreads();
    }
}

__global__ void __launch_bounds__(256) block_scan_tiles(const int* x, int* y, size_t tiles) {
    using Scan = cub::BlockScan<int, 256>;
    __shared__ typename Scan::TempStorage storage;
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        int v = x[tile * 256 + threadIdx.x];
        int s;
        Scan(storage).InclusiveSum(v, s);
        y[tile * 256 + threadIdx.x] = s;
        __syncthreads();
    }
}

extern "C" {

int cub_block_reduce(const int* x, int* out, size_t tiles, unsigned blocks, cudaStream_t s) {
    block_reduce_tiles<<<blocks, 256, 0, s>>>(x, out, tiles);
    return cudaGetLastError();
}

int cub_block_scan(const int* x, int* y, size_t tiles, unsigned blocks, cudaStream_t s) {
    block_scan_tiles<<<blocks, 256, 0, s>>>(x, y, tiles);
    return cudaGetLastError();
}

}  // extern "C"
