#!/bin/bash
# Branch sortkeys run 2: ranges of tiles per block without look-back. Tests, then bench_cub.
D="$(cd "$(dirname "$0")" && pwd)"
cd "$D/.."
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
start=$(date +%s)
L="$OUT/log.txt"
t() { echo "[t+$(( $(date +%s) - start ))s] $*" >> "$L"; }
t start
chmod +x "$D"/bench_cub "$D"/gpu_algorithms
( $NVCC -O3 -arch=sm_90 -shared -Xcompiler -fPIC -o /tmp/libcub.so bench/cuda/cub/cub_bench.cu > "$OUT/nvcc.txt" 2>&1; echo "nvcc rc=$?" >> "$OUT/nvcc.txt" ) &
NV=$!
CUPRUM_DEVICE=gpu timeout 120 "$D/gpu_algorithms" --include-ignored --test-threads=8 sort compaction_example_sequence > "$OUT/tests.txt" 2>&1
t "gpu_algorithms sort rc=$?"
wait $NV
t "nvcc done"
export CUPRUM_CUB_LIB=/tmp/libcub.so
timeout 80 "$D/bench_cub" 7 28 sort > "$OUT/bench_branch.txt" 2>&1; t "bench_cub branch rc=$?"
t end
