// sgemm_tiled reference (bench/SPEC.md): C (m x n) = A (m x k) * B (k x n), row-major f32.
// Classic shared-memory tiling: block (32, 32), one C element per thread, TILE = 32.
// m, n, k must be multiples of 32 (the launch covers C exactly).
#include <cstddef>

#define TILE 32

extern "C" __global__ void sgemm(float* __restrict__ c, size_t c_len,
                                 const float* __restrict__ a, size_t a_len,
                                 const float* __restrict__ b, size_t b_len,
                                 unsigned m, unsigned n, unsigned k) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    unsigned tx = threadIdx.x;
    unsigned ty = threadIdx.y;
    size_t row = (size_t)blockIdx.y * TILE + ty;
    size_t col = (size_t)blockIdx.x * TILE + tx;

    float acc = 0.0f;
    for (unsigned t = 0; t < k / TILE; ++t) {
        As[ty][tx] = a[row * k + (size_t)t * TILE + tx];
        Bs[ty][tx] = b[((size_t)t * TILE + ty) * n + col];
        __syncthreads();
        for (int kk = 0; kk < TILE; ++kk) {
            acc += As[ty][kk] * Bs[kk][tx];
        }
        __syncthreads();
    }
    c[row * n + col] = acc;
}
