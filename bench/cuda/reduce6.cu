// reduce6 reference (bench/SPEC.md): reduction #6 of CUDA's reduction sample with warp
// shuffles for the last warp, block size a template parameter (256 here); one partial sum
// per block.
#include <cstddef>

template <unsigned blockSize>
__device__ void reduce6_body(float* __restrict__ g_odata, const float* __restrict__ g_idata,
                             unsigned n) {
    __shared__ float sdata[blockSize];
    unsigned tid = threadIdx.x;
    unsigned gridSize = blockSize * 2 * gridDim.x;
    unsigned i = blockIdx.x * blockSize * 2 + threadIdx.x;
    float mySum = 0.0f;
    while (i < n) {
        mySum += g_idata[i];
        if (i + blockSize < n) mySum += g_idata[i + blockSize];
        i += gridSize;
    }
    sdata[tid] = mySum;
    __syncthreads();
    for (unsigned s = blockSize / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] = mySum = mySum + sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        mySum += sdata[tid + 32];
        for (int offset = 16; offset > 0; offset /= 2) {
            mySum += __shfl_down_sync(0xffffffff, mySum, offset);
        }
    }
    if (tid == 0) g_odata[blockIdx.x] = mySum;
}

extern "C" __global__ void reduce6(float* __restrict__ out, size_t out_len,
                                   const float* __restrict__ x, size_t x_len) {
    reduce6_body<256>(out, x, (unsigned)x_len);
}
