// reduce_sum reference (bench/SPEC.md): out[0] += sum(x). Block 256, grid 1024.
// Grid-stride partial sum per thread, warp shuffle-down sum, one partial per warp in shared
// memory, warp 0 sums the 8 partials, thread 0 adds the block's sum to out[0] atomically.
#include <cstddef>

#define BLOCK 256
#define WARPS (BLOCK / 32)

extern "C" __global__ void reduce_sum(float* __restrict__ out, size_t out_len,
                                      const float* __restrict__ x, size_t x_len) {
    __shared__ float warp_sums[WARPS];
    unsigned tid = threadIdx.x;
    unsigned lane = tid & 31;
    unsigned warp = tid >> 5;

    float v = 0.0f;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + tid; i < x_len; i += stride) {
        v += x[i];
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    if (lane == 0) {
        warp_sums[warp] = v;
    }
    __syncthreads();
    if (warp == 0) {
        v = lane < WARPS ? warp_sums[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset >>= 1) {
            v += __shfl_down_sync(0xffffffffu, v, offset);
        }
        if (lane == 0) {
            atomicAdd(&out[0], v);
        }
    }
}
