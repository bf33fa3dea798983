# Sourced by call1.sh and call2.sh, from the repository root on the device: the setup (the
# packed binaries unpacked, CUB's library started building), the test runner and the steps the
# two calls share. Scripts and A/B binaries are in .dev-lead/ (prepare.sh puts them there).
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
# One test or example binary, its log in /tmp/logs (the device returns only a few files).
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
# Every GPU test (gpu_memory alone: it reads the free memory) and example, failures run again
# alone; the failing tests' lines in failures.txt.
verify() {
  ls $B/test-gpu* | grep -v gpu_memory | xargs -P 4 -I{} bash -c 'one {}' > $OUT/verify.txt
  one $B/test-gpu_memory >> $OUT/verify.txt
  ls $B/example-* | xargs -P 4 -I{} bash -c 'one {}' >> $OUT/verify.txt
  local failed=$(grep ^FAIL $OUT/verify.txt | awk '{print $2}')
  for f in $failed; do echo "rerun alone: $(one $B/$f)"; done >> $OUT/verify.txt
  log "verify: $(grep -c ^PASS $OUT/verify.txt) pass, $(echo $failed | wc -w) failed, $(grep -c '^rerun alone: PASS' $OUT/verify.txt) of them passed alone"
  for f in $failed; do echo "=== $f"; grep -E "^test .*FAILED|panicked|Error|failed:" $L/$f.log | head -20; done > $OUT/failures.txt
  head -20 $OUT/failures.txt
}
# CUB's library, built once for every bench_cub run.
cub_lib() {
  wait $NV; tail -2 /tmp/nvcc.log | tee -a $S
  grep -q "rc=0" /tmp/nvcc.log && export CUPRUM_CUB_LIB=/tmp/libcub.so
}
# One round of the atomic-or A/B (`bench_cub 7 28 sort` of main and each variant); a variant
# is skipped once the call has run $2 seconds.
ab_or() {
  for v in main or orwide orpairs; do
    [ $(el) -gt ${2:-100000} ] && break
    local bin=$B/bench-bench_cub; [ $v = main ] || bin=.dev-lead/$v-bench_cub
    echo "## round $1 $v" >> $OUT/ab_or.txt
    timeout 50 $bin 7 28 sort >> $OUT/ab_or.txt 2>&1
  done
  log "ab or round $1 done"
  grep -E "^## |^sort|^x sort u32 keys, 256" $OUT/ab_or.txt
}
# $1 rounds of reduce6, main against the copy-again build.
ab_r6() {
  for r in $(seq $1); do for v in main r6; do
    local bin=$B/bench-bench; [ $v = r6 ] && bin=.dev-lead/r6-bench
    echo "## round $r $v" >> $OUT/ab_r6.txt
    BENCH_ONLY=reduce6 timeout 30 $bin 7 2>&1 | grep -E "^\| reduce6" >> $OUT/ab_r6.txt
  done; done
  log "ab r6 done"
}
