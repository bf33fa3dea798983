// saxpy reference (bench/SPEC.md): y[i] = a*x[i] + y[i], one thread per element.
// Slices are (pointer, length) pairs, as Cuprum passes `&[T]` / `&mut [T]`.
#include <cstddef>

extern "C" __global__ void saxpy(float* __restrict__ y, size_t y_len,
                                 const float* __restrict__ x, size_t x_len, float a) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < y_len) {
        y[i] = a * x[i] + y[i];
    }
}
