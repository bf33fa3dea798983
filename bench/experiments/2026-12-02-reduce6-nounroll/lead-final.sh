#!/usr/bin/env bash
# Lead's merged-main check: every gpu test binary (in parallel, 4 at a time), every example,
# then bench_cub and bench. Output under $OUT.
cd "$(dirname "$0")/.."
t0=$(date +%s)
[ -d .gpu ] || tar xJf .gpuz/gpu.tar.xz
export CUPRUM_DEVICE=gpu RUST_BACKTRACE=1
B=.gpu/bin; L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
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
ls $B/test-gpu* | grep -v "${SKIP:-^$}" | xargs -P 4 -I{} bash -c 'one {}' > $OUT/verify.txt
ls $B/example-* | xargs -P 3 -I{} bash -c 'one {}' >> $OUT/verify.txt
for f in $(grep -v ^PASS $OUT/verify.txt | awk '{print $2}'); do echo "rerun alone: $(one $B/$f)"; done >> $OUT/verify.txt
sort $OUT/verify.txt; echo "verify: $(grep -c ^PASS $OUT/verify.txt) pass, $(grep -vc ^PASS $OUT/verify.txt) fail, $(( $(date +%s) - t0 ))s"
$B/bench-bench_cub ${CUB_ROUNDS:-5} 28 > $OUT/bench_cub.txt 2>&1; echo "bench_cub rc=$? $(( $(date +%s) - t0 ))s"
$B/bench-bench ${BENCH_ROUNDS:-3} > $OUT/bench.txt 2>&1; echo "bench rc=$? $(( $(date +%s) - t0 ))s"

grep -E "vs CUB|^\| " $OUT/bench_cub.txt | head -40
