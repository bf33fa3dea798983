#!/usr/bin/env bash
cd "$(dirname "$0")/.."
t0=$(date +%s)
[ -d .gpu ] || tar xJf .gpuz/gpu.tar.xz
export CUPRUM_DEVICE=gpu RUST_BACKTRACE=1
B=.gpu/bin; L=/tmp/logs; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/card.txt
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
ls $B/test-gpu* | xargs -P 4 -I{} bash -c 'one {}' > $OUT/verify.txt
ls $B/example-* | xargs -P 3 -I{} bash -c 'one {}' >> $OUT/verify.txt
echo "verify: $(grep -c ^PASS $OUT/verify.txt) pass, $(grep -vc ^PASS $OUT/verify.txt) fail, $(( $(date +%s) - t0 ))s"
for f in $(grep -v ^PASS $OUT/verify.txt | awk '{print $2}'); do echo "=== $f"; grep -E "^test .*FAILED|panicked|Error|failed:" $L/$f.log | head -20; done > $OUT/failures.txt
cat $OUT/failures.txt | head -40
$B/bench-bench_cub 5 28 > $OUT/bench_cub.txt 2>&1; echo "bench_cub rc=$? $(( $(date +%s) - t0 ))s"
grep -E "^sort|^x sort u32 keys, (tile|wide)|^sum|^exclusive|^histogram|^block" $OUT/bench_cub.txt
