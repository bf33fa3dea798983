// vector_add reference (bench/SPEC.md), as CUDA's vectorAdd sample writes it: int index,
// C[i] = A[i] + B[i] under `if (i < numElements)`.
#include <cstddef>

extern "C" __global__ void vector_add(float* __restrict__ C, size_t C_len,
                                      const float* __restrict__ A, size_t A_len,
                                      const float* __restrict__ B, size_t B_len,
                                      int numElements) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < numElements) {
        C[i] = A[i] + B[i];
    }
}
