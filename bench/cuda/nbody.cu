// nbody reference (bench/SPEC.md): the all-pairs force step of GPU Gems 3 ch. 31, bodies as
// runs of four floats [x, y, z, m], a tile of 256 bodies in shared memory per turn, accurate
// 1/sqrt (no rsqrtf, no fast math).
#include <cstddef>

#define TILE 256

extern "C" __global__ void nbody(float* __restrict__ accel, size_t accel_len,
                                 const float* __restrict__ body, size_t body_len, float eps2) {
    __shared__ float tile[4 * TILE];
    int n = body_len / 4;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    float px = 0.0f, py = 0.0f, pz = 0.0f;
    if (i < n) {
        px = body[4 * i];
        py = body[4 * i + 1];
        pz = body[4 * i + 2];
    }
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int start = 0; start < n; start += TILE) {
        int j = start + t;
        for (int c = 0; c < 4; c++) tile[4 * t + c] = j < n ? body[4 * j + c] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; k++) {
            float dx = tile[4 * k] - px;
            float dy = tile[4 * k + 1] - py;
            float dz = tile[4 * k + 2] - pz;
            float d2 = dx * dx + dy * dy + dz * dz + eps2;
            float inv = 1.0f / sqrtf(d2);
            float s = tile[4 * k + 3] * (inv * inv * inv);
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        __syncthreads();
    }
    if (i < n) {
        accel[3 * i] = ax;
        accel[3 * i + 1] = ay;
        accel[3 * i + 2] = az;
    }
}
