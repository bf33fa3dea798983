#!/usr/bin/env bash
# Lead 2026-12-06 (third session), short call: verify merged main, the atomic-or A/B
# (bench_cub 7 28 sort of main, or, orwide, orpairs), then bench_cub 5 28 if time allows.
cd "$(dirname "$0")/.."
t0=$(date +%s)
S=$OUT/summary.txt
el() { echo $(( $(date +%s) - t0 )); }
log() { echo "[t+$(el)s] $*" | tee -a $S; }
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
  timeout --kill-after=5 ${LIMIT:-150} "${wrap[@]}" $b "${args[@]}" > $L/$name.log 2>&1
  local rc=$?
  echo "$( [ $rc = 0 ] && echo PASS || echo "FAIL($rc)") $name $(( $(date +%s) - s ))s $(grep -E '^test result' $L/$name.log | tail -1)"
}
export -f one; export B L
ls $B/test-gpu* | grep -v gpu_memory | xargs -P 4 -I{} bash -c 'one {}' > $OUT/verify.txt
one $B/test-gpu_memory >> $OUT/verify.txt
ls $B/example-* | xargs -P 4 -I{} bash -c 'one {}' >> $OUT/verify.txt
log "verify: $(grep -c ^PASS $OUT/verify.txt) pass, $(grep -vc ^PASS $OUT/verify.txt) not pass"
for f in $(grep -v ^PASS $OUT/verify.txt | awk '{print $2}' | sort -u); do echo "=== $f"; grep -E "^test .*FAILED|panicked|Error|failed:" $L/$f.log | head -20; done > $OUT/failures.txt
head -20 $OUT/failures.txt
wait $NV; tail -2 /tmp/nvcc.log | tee -a $S
grep -q "rc=0" /tmp/nvcc.log && export CUPRUM_CUB_LIB=/tmp/libcub.so
for v in main or orwide orpairs; do
  bin=$B/bench-bench_cub; [ $v = main ] || bin=.dev-lead/$v-bench_cub
  echo "## round 1 $v" >> $OUT/ab_or.txt
  timeout 50 $bin 7 28 sort >> $OUT/ab_or.txt 2>&1
done
log "ab or 1 done"
grep -E "^## |^sort|^x sort u32 keys, 256" $OUT/ab_or.txt
[ $(el) -lt ${CUB_BEFORE:-230} ] && { timeout 90 $B/bench-bench_cub 5 28 > $OUT/bench_cub.txt 2>&1; log "bench_cub rc=$?"; grep -E "^sort|^sum|^exclusive|^histogram|^block" $OUT/bench_cub.txt; }
[ $(el) -lt ${R6_BEFORE:-270} ] && { for v in main r6 main r6; do
  bin=$B/bench-bench; [ $v = r6 ] && bin=.dev-lead/r6-bench
  echo "## $v" >> $OUT/ab_r6.txt
  BENCH_ONLY=reduce6 timeout 30 $bin 7 2>&1 | grep -E "^\| reduce6" >> $OUT/ab_r6.txt
done; log "ab r6 done"; }
log end
