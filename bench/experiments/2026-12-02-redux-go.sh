#!/bin/bash
# Branch redux (issue 17): one device run. Writes everything under $OUT.
D="$(cd "$(dirname "$0")" && pwd)"
R="$D/.."
cd "$D"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
start=$(date +%s)
t() { echo "[t+$(( $(date +%s) - start ))s] $*" >> "$OUT/log.txt"; }
t start
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> "$OUT/log.txt" 2>&1
for b in xredux bench_cub gpu_prims gpu_warp gpu_algorithms; do [ -f $b.xz ] && xz -d $b.xz; chmod +x $b; done
t unpacked
# CUB's block kernels exactly as bench/cuda/cub/cub_bench.cu has them (its block section,
# verbatim), with stubs for the device-wide functions bench_cub loads but `block` never calls.
{
  echo '#include <cub/cub.cuh>'
  echo '#include <cstddef>'
  echo 'extern "C" {'
  for f in cub_sum_i32 cub_exclusive_sum_u32 cub_sort_keys_u32 cub_sort_pairs_u32 cub_histogram_f32; do
    echo "int $f() { return 1; }"
  done
  echo '}'
  sed -n '/^\/\/ Block primitives inside one kernel/,$p' "$R/bench/cuda/cub/cub_bench.cu"
} > /tmp/cubblock.cu
$NVCC -O3 -arch=sm_90 -shared -Xcompiler -fPIC -o /tmp/libcubblock.so /tmp/cubblock.cu >> "$OUT/log.txt" 2>&1
t "nvcc done ($($NVCC --version | tail -1))"
export CUPRUM_CUB_LIB=/tmp/libcubblock.so
cd "$R"
"$D/xredux" 40 28 > "$OUT/xredux.txt" 2>&1; t "xredux rc=$?"
"$D/bench_cub" 30 28 block > "$OUT/bench_cub.txt" 2>&1; t "bench_cub rc=$?"
export CUPRUM_DEVICE=gpu
"$D/gpu_prims" --include-ignored --test-threads=1 > "$OUT/tests.txt" 2>&1; t "gpu_prims rc=$?"
"$D/gpu_warp" --include-ignored --test-threads=1 >> "$OUT/tests.txt" 2>&1; t "gpu_warp rc=$?"
"$D/gpu_algorithms" --include-ignored --test-threads=3 --exact reduce_and_scan_i32 reduce_and_scan_u32 reduce_and_scan_i16 sort_u32 sort_i32 sort_u8 sort_pairs_moves_every_value_type compaction_example_sequence reduce_starts_i32 reduce_starts_u32 >> "$OUT/tests.txt" 2>&1; t "gpu_algorithms rc=$?"

t end
