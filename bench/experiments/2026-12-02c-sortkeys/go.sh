#!/bin/bash
# Branch sortkeys (issue 17): one device run. Everything goes under $OUT.
D="$(cd "$(dirname "$0")" && pwd)"
R="$D/.."
cd "$R"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
start=$(date +%s)
L="$OUT/log.txt"
t() { echo "[t+$(( $(date +%s) - start ))s] $*" >> "$L"; }
t start
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> "$L" 2>&1
for b in bench_cub bench_cub_main gpu_algorithms; do [ -f "$D/$b.xz" ] && xz -d "$D/$b.xz"; chmod +x "$D/$b"; done
( $NVCC -O3 -arch=sm_90 -shared -Xcompiler -fPIC -o /tmp/libcub.so bench/cuda/cub/cub_bench.cu > "$OUT/nvcc.txt" 2>&1; echo "nvcc rc=$?" >> "$OUT/nvcc.txt" ) &
NV=$!
t unpacked
CUPRUM_DEVICE=gpu timeout 150 "$D/gpu_algorithms" --include-ignored --test-threads=6 sort compaction_example_sequence > "$OUT/tests.txt" 2>&1
t "gpu_algorithms sort rc=$?"
wait $NV
t "nvcc done"
export CUPRUM_CUB_LIB=/tmp/libcub.so
timeout 90 "$D/bench_cub" 7 28 sort > "$OUT/bench_branch.txt" 2>&1; t "bench_cub branch rc=$?"
timeout 60 "$D/bench_cub_main" 7 28 sort > "$OUT/bench_main.txt" 2>&1; t "bench_cub main rc=$?"
if command -v ncu > /dev/null; then
  timeout 60 ncu --section SpeedOfLight -k 'regex:pass|counts|clear|scan|digit' "$D/bench_cub" parts 28 > "$OUT/ncu_branch.txt" 2>&1; t "ncu rc=$?"
fi
t end
