// convolve_rows and convolve_cols references (bench/SPEC.md): the two passes of a separable
// 17-tap convolution, after CUDA's convolutionSeparable sample (int indices, the filter in
// constant memory, zero outside the image).
#include <cstddef>

#define RADIUS 8
#define TAPS (2 * RADIUS + 1)
#define TILE 128   // row pass: outputs (threads) per block
#define COLS_X 16  // column pass: block (COLS_X, COLS_Y), STEPS outputs per thread
#define COLS_Y 8
#define STEPS 8

#define NORM (1.0f / 65536.0f)
__constant__ float c_filter[TAPS] = {
    1.0f * NORM,     16.0f * NORM,   120.0f * NORM,  560.0f * NORM,  1820.0f * NORM, 4368.0f * NORM,
    8008.0f * NORM,  11440.0f * NORM, 12870.0f * NORM, 11440.0f * NORM, 8008.0f * NORM, 4368.0f * NORM,
    1820.0f * NORM,  560.0f * NORM,  120.0f * NORM,  16.0f * NORM,   1.0f * NORM};

extern "C" __global__ void convolve_rows(float* __restrict__ out, size_t out_len,
                                         const float* __restrict__ in, size_t in_len,
                                         unsigned width) {
    __shared__ float tile[TILE + 2 * RADIUS];
    int t = threadIdx.x;
    int row = blockIdx.y;
    int w = width;
    int x0 = blockIdx.x * TILE;
    for (int j = t; j < TILE + 2 * RADIUS; j += TILE) {
        int x = x0 + j - RADIUS;
        tile[j] = (x >= 0 && x < w) ? in[row * w + x] : 0.0f;
    }
    __syncthreads();
    int x = x0 + t;
    if (x < w) {
        float acc = 0.0f;
        for (int k = 0; k < TAPS; k++) {
            acc += c_filter[k] * tile[t + k];
        }
        out[row * w + x] = acc;
    }
}

extern "C" __global__ void convolve_cols(float* __restrict__ out, size_t out_len,
                                         const float* __restrict__ in, size_t in_len,
                                         unsigned width, unsigned height) {
    __shared__ float tile[COLS_X][(STEPS + 2) * COLS_Y + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int w = width, h = height;
    int x = blockIdx.x * COLS_X + tx;
    int y0 = blockIdx.y * STEPS * COLS_Y;  // tile row r holds image row y0 + r - COLS_Y
    for (int i = 1; i <= STEPS; i++) {
        tile[tx][ty + i * COLS_Y] = in[(y0 + ty + (i - 1) * COLS_Y) * w + x];
    }
    tile[tx][ty] = y0 > 0 ? in[(y0 + ty - COLS_Y) * w + x] : 0.0f;
    int below = y0 + STEPS * COLS_Y + ty;
    tile[tx][ty + (STEPS + 1) * COLS_Y] = below < h ? in[below * w + x] : 0.0f;
    __syncthreads();
    for (int i = 1; i <= STEPS; i++) {
        int r = ty + i * COLS_Y;
        float acc = 0.0f;
        for (int k = 0; k < TAPS; k++) {
            acc += c_filter[k] * tile[tx][r + k - RADIUS];
        }
        out[(y0 + r - COLS_Y) * w + x] = acc;
    }
}
