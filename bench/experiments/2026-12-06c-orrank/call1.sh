#!/usr/bin/env bash
# Lead 2026-12-06 (third session), call 1: verify merged main, bench_cub 5 28, bench-bench 3,
# reduce6 copy-again A/B, ncu of the sorts (ours: bench_cub parts 28; CUB: bench_cub 1 28 sort).
cd "$(dirname "$0")/.."
t0=$(date +%s)
S=$OUT/summary.txt
log() { echo "[t+$(( $(date +%s) - t0 ))s] $*" | tee -a $S; }
tar xJf .gpuz/gpu.tar.xz
export CUPRUM_DEVICE=gpu RUST_BACKTRACE=1
B=.gpu/bin; L=/tmp/logs; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader | tee -a $S
( nvcc -O3 -arch=sm_90 -shared -Xcompiler -fPIC -o /tmp/libcub.so bench/cuda/cub/cub_bench.cu > /tmp/nvcc.log 2>&1; echo "nvcc rc=$?" >> /tmp/nvcc.log ) &
NV=$!
one() {
  local b=$1 name=$(basename $1) args=()
  [[ $name == test-* ]] && args=(--include-ignored --test-threads=${THREADS:-2})
  [[ $name == test-gpu_algorithms ]] && args=(--include-ignored --test-threads=4)
  local wrap=(); [[ $name =~ nccl|multi ]] && wrap=(scripts/nccl-run)
  local s=$(date +%s)
  timeout --kill-after=5 ${LIMIT:-200} "${wrap[@]}" $b "${args[@]}" > $L/$name.log 2>&1
  local rc=$?
  echo "$( [ $rc = 0 ] && echo PASS || echo "FAIL($rc)") $name $(( $(date +%s) - s ))s $(grep -E '^test result' $L/$name.log | tail -1)"
}
export -f one; export B L
ls $B/test-gpu* | grep -v gpu_memory | xargs -P 4 -I{} bash -c 'one {}' > $OUT/verify.txt
one $B/test-gpu_memory >> $OUT/verify.txt
ls $B/example-* | xargs -P 3 -I{} bash -c 'one {}' >> $OUT/verify.txt
for f in $(grep -v ^PASS $OUT/verify.txt | awk '{print $2}'); do echo "rerun alone: $(one $B/$f)"; done >> $OUT/verify.txt
log "verify: $(grep -c ^PASS $OUT/verify.txt) pass, $(grep -vc ^PASS $OUT/verify.txt) not pass"
for f in $(grep -v ^PASS $OUT/verify.txt | awk '{print $2}' | sort -u); do echo "=== $f"; grep -E "^test .*FAILED|panicked|Error|failed:" $L/$f.log | head -20; done > $OUT/failures.txt
head -30 $OUT/failures.txt
wait $NV; cat /tmp/nvcc.log | tail -3 | tee -a $S
grep -q "rc=0" /tmp/nvcc.log && export CUPRUM_CUB_LIB=/tmp/libcub.so
timeout 200 $B/bench-bench_cub 5 28 > $OUT/bench_cub.txt 2>&1; log "bench_cub rc=$?"
grep -E "^sort|^x sort u32 keys, (tile|wide)|^sum|^exclusive|^histogram|^block" $OUT/bench_cub.txt
for r in 1; do for v in main or orwide orpairs; do
  [ $r = 2 ] && [ $(( $(date +%s) - t0 )) -gt 500 ] && break 2
  bin=$B/bench-bench_cub; [ $v = main ] || bin=.dev-lead/$v-bench_cub
  echo "## round $r $v" >> $OUT/ab_or.txt
  timeout 60 $bin 7 28 sort >> $OUT/ab_or.txt 2>&1
done; done
log "ab or 1 done"
if [ $(( $(date +%s) - t0 )) -lt 420 ]; then
timeout 200 $B/bench-bench 3 > $OUT/bench.txt 2>&1; log "bench rc=$?"
fi
if [ $(( $(date +%s) - t0 )) -lt 500 ]; then
for r in 1 2; do for v in main r6; do
  bin=$B/bench-bench; [ $v = r6 ] && bin=.dev-lead/r6-bench
  echo "## round $r $v" >> $OUT/ab_r6.txt
  BENCH_ONLY=reduce6 timeout 60 $bin 7 2>&1 | grep -E "^\| reduce6" >> $OUT/ab_r6.txt
done; done
log "ab r6 done"
fi
for r in 2; do for v in main or orwide orpairs; do
  [ $(( $(date +%s) - t0 )) -gt 510 ] && break 2
  bin=$B/bench-bench_cub; [ $v = main ] || bin=.dev-lead/$v-bench_cub
  echo "## round $r $v" >> $OUT/ab_or.txt
  timeout 60 $bin 7 28 sort >> $OUT/ab_or.txt 2>&1
done; done
log "ab or done"
[ -n "$NCU" ] || { log end; exit 0; }
M=gpu__time_duration.sum,smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__grid_size,launch__block_size
timeout 100 ncu --clock-control none --metrics $M --csv $B/bench-bench_cub parts 28 > /tmp/ncu_ours.csv 2>/tmp/ncu_ours.err; log "ncu ours rc=$?"
timeout 100 ncu --clock-control none --kernel-name regex:'Onesweep|Histogram|ExclusiveSum|Radix' --launch-count 40 --metrics $M --csv $B/bench-bench_cub 1 28 sort > /tmp/ncu_cub.csv 2>/tmp/ncu_cub.err; log "ncu cub rc=$?"
{ grep -v '^==' /tmp/ncu_ours.csv; echo; grep -v '^==' /tmp/ncu_cub.csv; tail -3 /tmp/ncu_ours.err /tmp/ncu_cub.err; } > $OUT/ncu.txt
log "end"
