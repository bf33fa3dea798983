// histogram reference (bench/SPEC.md): bins[d & 255] += 1 for every d in data.
// Block 256, grid 1024: a per-block histogram in shared memory (shared atomics over a
// grid-stride loop), then one global atomic per non-empty bin.
#include <cstddef>

extern "C" __global__ void histogram(unsigned* __restrict__ bins, size_t bins_len,
                                     const unsigned* __restrict__ data, size_t data_len) {
    __shared__ unsigned s[256];
    unsigned t = threadIdx.x;
    s[t] = 0;
    __syncthreads();
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + t; i < data_len; i += stride) {
        atomicAdd(&s[data[i] & 255u], 1u);
    }
    __syncthreads();
    if (s[t] != 0) {
        atomicAdd(&bins[t], s[t]);
    }
}
