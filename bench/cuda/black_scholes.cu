// black_scholes reference (bench/SPEC.md): European call and put prices, one option per
// thread, in the formulation of NVIDIA's BlackScholes sample (polynomial CND), with the
// accurate logf / expf / sqrtf and IEEE division (no fast-math intrinsics).
#include <cstddef>

__device__ float cnd(float d) {
    const float A1 = 0.31938153f;
    const float A2 = -0.356563782f;
    const float A3 = 1.781477937f;
    const float A4 = -1.821255978f;
    const float A5 = 1.330274429f;
    const float RSQRT2PI = 0.3989422804f;
    float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float c = RSQRT2PI * expf(-0.5f * d * d) * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
    return d > 0.0f ? 1.0f - c : c;
}

extern "C" __global__ void black_scholes(float* __restrict__ call, size_t call_len,
                                         float* __restrict__ put, size_t put_len,
                                         const float* __restrict__ s, size_t s_len,
                                         const float* __restrict__ x, size_t x_len,
                                         const float* __restrict__ t, size_t t_len,
                                         float r, float v) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < call_len) {
        float S = s[i];
        float X = x[i];
        float T = t[i];
        float sqrt_t = sqrtf(T);
        float d1 = (logf(S / X) + (r + 0.5f * v * v) * T) / (v * sqrt_t);
        float d2 = d1 - v * sqrt_t;
        float cnd_d1 = cnd(d1);
        float cnd_d2 = cnd(d2);
        float exp_rt = expf(-r * T);
        call[i] = S * cnd_d1 - X * exp_rt * cnd_d2;
        put[i] = X * exp_rt * (1.0f - cnd_d2) - S * (1.0f - cnd_d1);
    }
}
