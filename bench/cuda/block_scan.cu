// block_scan reference (bench/SPEC.md): inclusive scan (wrapping u32 sums) of each block's
// 1024 elements, no carry between blocks. Block 512, grid in_len / 1024, 4096 bytes of
// dynamic shared memory. Blelloch work-efficient scan (up-sweep, clear, down-sweep) as in
// GPU Gems 3 ch. 39, without bank-conflict padding; exclusive + input gives inclusive.
#include <cstddef>

#define ELEMS 1024

extern "C" __global__ void block_scan(unsigned* __restrict__ out, size_t out_len,
                                      const unsigned* __restrict__ in, size_t in_len) {
    extern __shared__ unsigned temp[];
    unsigned t = threadIdx.x;
    size_t base = (size_t)blockIdx.x * ELEMS;

    unsigned v0 = in[base + 2 * t];
    unsigned v1 = in[base + 2 * t + 1];
    temp[2 * t] = v0;
    temp[2 * t + 1] = v1;

    unsigned offset = 1;
    for (unsigned d = ELEMS >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            unsigned ai = offset * (2 * t + 1) - 1;
            unsigned bi = offset * (2 * t + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }
    if (t == 0) {
        temp[ELEMS - 1] = 0;
    }
    for (unsigned d = 1; d < ELEMS; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            unsigned ai = offset * (2 * t + 1) - 1;
            unsigned bi = offset * (2 * t + 2) - 1;
            unsigned a = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += a;
        }
    }
    __syncthreads();
    out[base + 2 * t] = temp[2 * t] + v0;
    out[base + 2 * t + 1] = temp[2 * t + 1] + v1;
}
