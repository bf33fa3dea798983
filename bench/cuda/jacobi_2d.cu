// jacobi_2d reference (bench/SPEC.md): one 5-point Jacobi step on an n x n row-major grid.
// Interior: out = 0.25 * ((north + south) + (west + east)), in exactly this order;
// boundary points are copied. Block (32, 8), grid (n / 32, n / 8), one point per thread.
#include <cstddef>

extern "C" __global__ void jacobi(float* __restrict__ out, size_t out_len,
                                  const float* __restrict__ in, size_t in_len, unsigned n) {
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;  // column
    unsigned i = blockIdx.y * blockDim.y + threadIdx.y;  // row
    if (i < n && j < n) {
        size_t idx = (size_t)i * n + j;
        if (i == 0 || j == 0 || i == n - 1 || j == n - 1) {
            out[idx] = in[idx];
        } else {
            out[idx] = 0.25f * ((in[idx - n] + in[idx + n]) + (in[idx - 1] + in[idx + 1]));
        }
    }
}
