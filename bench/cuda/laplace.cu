// laplace reference (bench/SPEC.md): one Jacobi sweep of a Laplace solver as Numba's
// documentation writes the stencil, in CUDA C++ (int indices); the boundary is not written.
#include <cstddef>

extern "C" __global__ void laplace(float* __restrict__ out, size_t out_len,
                                   const float* __restrict__ in, size_t in_len, int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= 1 && j >= 1 && i + 1 < nx && j + 1 < ny) {
        out[j * nx + i] = 0.25f * (in[j * nx + i - 1] + in[j * nx + i + 1] +
                                   in[(j - 1) * nx + i] + in[(j + 1) * nx + i]);
    }
}
