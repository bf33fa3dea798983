#!/usr/bin/env bash
# Lead 2026-12-06 (third session), last short call: the atomic-or A/B only
# (bench_cub 7 28 sort of main, orwide, or, orpairs), CUB's library built first.
cd "$(dirname "$0")/.."
t0=$(date +%s)
S=$OUT/summary.txt
log() { echo "[t+$(( $(date +%s) - t0 ))s] $*" | tee -a $S; }
tar xJf .gpuz/gpu.tar.xz .gpu/bin/bench-bench_cub
export CUPRUM_DEVICE=gpu
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader | tee -a $S
nvcc -O3 -arch=sm_90 -shared -Xcompiler -fPIC -o /tmp/libcub.so bench/cuda/cub/cub_bench.cu > /tmp/nvcc.log 2>&1 && export CUPRUM_CUB_LIB=/tmp/libcub.so
log "nvcc done"
for v in main orwide or orpairs; do
  bin=.gpu/bin/bench-bench_cub; [ $v = main ] || bin=.dev-lead/$v-bench_cub
  echo "## $v" >> $OUT/ab_or.txt
  timeout 40 $bin 7 28 sort >> $OUT/ab_or.txt 2>&1
  log "$v rc=$?"
done
grep -E "^## |^sort|^x sort u32 keys, 256" $OUT/ab_or.txt
