// Reference saxpy for the benchmark: the same algorithm and launch shape as Cuprum's.
#include <cstddef>

extern "C" __global__ void saxpy(float* __restrict__ y, const float* __restrict__ x, float a, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}
