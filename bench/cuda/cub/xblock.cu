// Exploration (branch blockprim): variants of bench_cub's block-primitive kernels, each
// changing one thing against CUB's, to find what Cuprum's extra ~500 cycles per tile are.
// Every kernel walks tiles of 256 values (one per thread) in 256-thread blocks, as
// bench_cub's `block_reduce_tiles` / `block_scan_tiles` do.
#include <cub/cub.cuh>

#define LOOP for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x)

template <bool NC>
__device__ __forceinline__ int load(const int* x, size_t i) {
    if (NC) return __ldg(x + i);
    return x[i];
}

// 0: CUB BlockReduce (bench_cub's). 1: the same with __ldg (ld.global.nc) loads.
template <bool NC>
__global__ void __launch_bounds__(256) r_cub(const int* x, int* out, size_t tiles) {
    using Reduce = cub::BlockReduce<int, 256>;
    __shared__ typename Reduce::TempStorage storage;
    LOOP {
        int v = load<NC>(x, tile * 256 + threadIdx.x);
        int s = Reduce(storage).Sum(v);
        if (threadIdx.x == 0) out[tile] = s;
        __syncthreads();
    }
}

// 2/3: CUB's structure (result in thread 0, trailing barrier), the warp reduced by five
// shuffles instead of redux.sync.
template <bool NC>
__global__ void __launch_bounds__(256) r_shfl(const int* x, int* out, size_t tiles) {
    __shared__ int partial[8];
    LOOP {
        int v = load<NC>(x, tile * 256 + threadIdx.x);
        for (int d = 1; d < 32; d *= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
        if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
        __syncthreads();
        if (threadIdx.x == 0) {
            int s = partial[0];
            for (int i = 1; i < 8; i++) s += partial[i];
            out[tile] = s;
        }
        __syncthreads();
    }
}

// 4/5: Cuprum's structure (gpu::block::reduce): shuffles, warp 0 combines, the total stored
// in partial[8] for every thread, read after the second barrier.
template <bool NC, bool REDUX>
__global__ void __launch_bounds__(256) r_cuprum(const int* x, int* out, size_t tiles) {
    __shared__ int partial[9];
    LOOP {
        int v = load<NC>(x, tile * 256 + threadIdx.x);
        if (REDUX) {
            v = __reduce_add_sync(0xffffffffu, v);
        } else {
            for (int d = 1; d < 32; d *= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
        }
        if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
        __syncthreads();
        if (threadIdx.x < 32) {
            int s = partial[0];
            for (int i = 1; i < 8; i++) s += partial[i];
            if (threadIdx.x == 0) partial[8] = s;
        }
        __syncthreads();
        int s = partial[8];
        if (threadIdx.x == 0) out[tile] = s;
    }
}

// 8/9: every thread combines the eight warp values after the first barrier (no publish of
// the total, no third shared access), the second barrier keeping them until all have read.
template <bool REDUX>
__global__ void __launch_bounds__(256) r_all(const int* x, int* out, size_t tiles) {
    __shared__ int partial[8];
    LOOP {
        int v = x[tile * 256 + threadIdx.x];
        if (REDUX) {
            v = __reduce_add_sync(0xffffffffu, v);
        } else {
            for (int d = 1; d < 32; d *= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
        }
        if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
        __syncthreads();
        int s = partial[0];
        for (int i = 1; i < 8; i++) s += partial[i];
        __syncthreads();
        if (threadIdx.x == 0) out[tile] = s;
    }
}

// 0/1: CUB BlockScan (raking, bench_cub's), plain / __ldg loads.
template <bool NC, cub::BlockScanAlgorithm ALG>
__global__ void __launch_bounds__(256) s_cub(const int* x, int* y, size_t tiles) {
    using Scan = cub::BlockScan<int, 256, ALG>;
    __shared__ typename Scan::TempStorage storage;
    LOOP {
        int v = load<NC>(x, tile * 256 + threadIdx.x);
        int s;
        Scan(storage).InclusiveSum(v, s);
        y[tile * 256 + threadIdx.x] = s;
        __syncthreads();
    }
}

// Cuprum's structure (gpu::block::inclusive_scan): every warp scans by shuffles, lane 31
// stores, one barrier, each warp adds the partials of the warps before it, second barrier.
template <bool NC>
__global__ void __launch_bounds__(256) s_cuprum(const int* x, int* y, size_t tiles) {
    __shared__ int partial[8];
    LOOP {
        int v = load<NC>(x, tile * 256 + threadIdx.x);
        unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
        for (int d = 1; d < 32; d *= 2) {
            int u = __shfl_up_sync(0xffffffffu, v, d);
            if (lane >= d) v += u;
        }
        if (lane == 31) partial[warp] = v;
        __syncthreads();
        int r = 0;
        for (int i = 0; i < 8; i++) r += (i < warp) ? partial[i] : 0;
        __syncthreads();
        y[tile * 256 + threadIdx.x] = r + v;
    }
}

extern "C" {

// Reductions: 0 CUB, 1 CUB nc, 2 shfl, 3 shfl nc, 4 cuprum-like, 5 cuprum-like nc,
// 6 cuprum-like with redux, 7 the same nc.
int xb_reduce(int which, const int* x, int* out, size_t tiles, unsigned blocks, cudaStream_t s) {
    switch (which) {
        case 0: r_cub<false><<<blocks, 256, 0, s>>>(x, out, tiles); break;
        case 1: r_cub<true><<<blocks, 256, 0, s>>>(x, out, tiles); break;
        case 2: r_shfl<false><<<blocks, 256, 0, s>>>(x, out, tiles); break;
        case 3: r_shfl<true><<<blocks, 256, 0, s>>>(x, out, tiles); break;
        case 4: r_cuprum<false, false><<<blocks, 256, 0, s>>>(x, out, tiles); break;
        case 5: r_cuprum<true, false><<<blocks, 256, 0, s>>>(x, out, tiles); break;
        case 6: r_cuprum<false, true><<<blocks, 256, 0, s>>>(x, out, tiles); break;
        case 7: r_cuprum<true, true><<<blocks, 256, 0, s>>>(x, out, tiles); break;
        case 8: r_all<false><<<blocks, 256, 0, s>>>(x, out, tiles); break;
        case 9: r_all<true><<<blocks, 256, 0, s>>>(x, out, tiles); break;
        default: return -1;
    }
    return cudaGetLastError();
}

// Scans: 0 CUB raking, 1 CUB raking nc, 2 CUB warp scans, 3 CUB warp scans nc,
// 4 cuprum-like, 5 cuprum-like nc.
int xb_scan(int which, const int* x, int* y, size_t tiles, unsigned blocks, cudaStream_t s) {
    switch (which) {
        case 0: s_cub<false, cub::BLOCK_SCAN_RAKING><<<blocks, 256, 0, s>>>(x, y, tiles); break;
        case 1: s_cub<true, cub::BLOCK_SCAN_RAKING><<<blocks, 256, 0, s>>>(x, y, tiles); break;
        case 2: s_cub<false, cub::BLOCK_SCAN_WARP_SCANS><<<blocks, 256, 0, s>>>(x, y, tiles); break;
        case 3: s_cub<true, cub::BLOCK_SCAN_WARP_SCANS><<<blocks, 256, 0, s>>>(x, y, tiles); break;
        case 4: s_cuprum<false><<<blocks, 256, 0, s>>>(x, y, tiles); break;
        case 5: s_cuprum<true><<<blocks, 256, 0, s>>>(x, y, tiles); break;
        default: return -1;
    }
    return cudaGetLastError();
}

}  // extern "C"
