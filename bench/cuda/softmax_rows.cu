// softmax_rows reference (bench/SPEC.md): out[r][c] = exp(x[r][c] - max_r) / sum_r, row-major,
// cols = 1024. One block of 256 threads per row; each thread holds 4 elements of the row.
// Row max and row sum: warp butterfly (shfl_xor 16..1), one partial per warp in shared
// memory, then every thread combines the 8 partials in order. Accurate expf (no fast-math).
#include <cstddef>

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define PER_THREAD 4

extern "C" __global__ void softmax(float* __restrict__ out, size_t out_len,
                                   const float* __restrict__ x, size_t x_len, unsigned cols) {
    __shared__ float red[WARPS];
    unsigned tid = threadIdx.x;
    unsigned lane = tid & 31;
    unsigned warp = tid >> 5;
    size_t base = (size_t)blockIdx.x * cols;

    float v[PER_THREAD];
    for (int j = 0; j < PER_THREAD; ++j) {
        v[j] = x[base + tid + BLOCK * j];
    }

    float m = v[0];
    for (int j = 1; j < PER_THREAD; ++j) {
        m = fmaxf(m, v[j]);
    }
    for (int mask = 16; mask > 0; mask >>= 1) {
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, mask));
    }
    if (lane == 0) {
        red[warp] = m;
    }
    __syncthreads();
    m = red[0];
    for (int w = 1; w < WARPS; ++w) {
        m = fmaxf(m, red[w]);
    }
    __syncthreads();  // every thread has read red before it is reused for the sums

    float e[PER_THREAD];
    float s = 0.0f;
    for (int j = 0; j < PER_THREAD; ++j) {
        e[j] = expf(v[j] - m);
        s += e[j];
    }
    for (int mask = 16; mask > 0; mask >>= 1) {
        s += __shfl_xor_sync(0xffffffffu, s, mask);
    }
    if (lane == 0) {
        red[warp] = s;
    }
    __syncthreads();
    s = red[0];
    for (int w = 1; w < WARPS; ++w) {
        s += red[w];
    }

    for (int j = 0; j < PER_THREAD; ++j) {
        out[base + tid + BLOCK * j] = e[j] / s;
    }
}
