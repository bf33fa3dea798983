// transpose reference (bench/SPEC.md): out (cols x rows) = in (rows x cols)^T, row-major.
// A 32x32 tile through shared memory padded to 33 columns (no bank conflicts on the
// column-wise read), block (32, 8): each thread moves 4 elements in and 4 out.
#include <cstddef>

#define TILE 32
#define ROWS_PER_PASS 8

extern "C" __global__ void transpose(float* __restrict__ out, size_t out_len,
                                     const float* __restrict__ in, size_t in_len,
                                     unsigned rows, unsigned cols) {
    __shared__ float tile[TILE][TILE + 1];
    unsigned tx = threadIdx.x;
    unsigned ty = threadIdx.y;
    unsigned bx = blockIdx.x;
    unsigned by = blockIdx.y;

    unsigned in_col = bx * TILE + tx;
    for (unsigned k = 0; k < TILE; k += ROWS_PER_PASS) {
        unsigned in_row = by * TILE + ty + k;
        if (in_row < rows && in_col < cols) {
            tile[ty + k][tx] = in[(size_t)in_row * cols + in_col];
        }
    }
    __syncthreads();
    unsigned out_col = by * TILE + tx;
    for (unsigned k = 0; k < TILE; k += ROWS_PER_PASS) {
        unsigned out_row = bx * TILE + ty + k;
        if (out_row < cols && out_col < rows) {
            out[(size_t)out_row * rows + out_col] = tile[tx][ty + k];
        }
    }
}
