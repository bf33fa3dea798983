// fast_matmul reference (bench/SPEC.md): Numba's documented fast_matmul written in CUDA C++
// (int indices): 16x16 shared tiles, zero-filled where they overhang A or B.
#include <cstddef>

#define TPB 16

extern "C" __global__ void fast_matmul(float* __restrict__ C, size_t C_len,
                                       const float* __restrict__ A, size_t A_len,
                                       const float* __restrict__ B, size_t B_len,
                                       int m, int n, int k) {
    __shared__ float sA[TPB][TPB];
    __shared__ float sB[TPB][TPB];
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    float tmp = 0.0f;
    for (int i = 0; i < (k + TPB - 1) / TPB; i++) {
        sA[ty][tx] = 0.0f;
        sB[ty][tx] = 0.0f;
        if (y < m && tx + i * TPB < k) sA[ty][tx] = A[y * k + tx + i * TPB];
        if (x < n && ty + i * TPB < k) sB[ty][tx] = B[(ty + i * TPB) * n + x];
        __syncthreads();
        for (int j = 0; j < TPB; j++) tmp += sA[ty][j] * sB[j][tx];
        __syncthreads();
    }
    if (y < m && x < n) C[y * n + x] = tmp;
}
