#!/usr/bin/env bash
# Device call for the wide3 experiment (the wide keys-alone passes at three blocks of 384 per
# multiprocessor, 56 registers, instead of two at 80): the patched gpu_algorithms tests, then
# main against wide3 `bench_cub 7 28 sort` in interleaved rounds, then ncu of wide3's passes.
cd "$(dirname "$0")/.."
t0=$(date +%s); S=$OUT/summary.txt
el() { echo $(( $(date +%s) - t0 )); }
log() { echo "[t+$(el)s] $*" | tee -a $S; }
export CUPRUM_DEVICE=gpu
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee -a $S
( nvcc -O3 -arch=sm_90 -shared -Xcompiler -fPIC -o /tmp/libcub.so bench/cuda/cub/cub_bench.cu > /tmp/nvcc.log 2>&1 ) &
NV=$!
timeout 170 .dev-w3/w3-test-gpu_algorithms --include-ignored --test-threads=6 > /tmp/t.log 2>&1; log "w3 tests rc=$?"
{ echo "ok lines: $(grep -c " ok$" /tmp/t.log)"; grep -E "^test result|FAILED|panicked" /tmp/t.log | head -20; } | tee -a $S
wait $NV; export CUPRUM_CUB_LIB=/tmp/libcub.so; log nvcc
for r in 1 2 3; do for v in main w3; do
  [ $(el) -gt ${UNTIL:-420} ] && break 2
  echo "## round $r $v" >> $OUT/ab.txt
  timeout 50 .dev-w3/$v-bench_cub 7 28 sort >> $OUT/ab.txt 2>&1
done; log "round $r"; done
grep -E "^## |^sort|^x sort u32 keys, (old|256)" $OUT/ab.txt
M=gpu__time_duration.sum,smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size
[ $(el) -lt 500 ] && { timeout 60 ncu --clock-control none --kernel-name regex:'pass_keys|counts_int' --launch-count 3 --metrics $M --csv .dev-w3/w3-bench_cub parts 28 > $OUT/ncu_w3.csv 2>/tmp/ncu.err; log "ncu rc=$?"; }
log end
