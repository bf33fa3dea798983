#!/usr/bin/env bash
# Lead 2026-12-06: A/B (base 90419ec vs 8ccd347+) interleaved, then verify every gpu test/example, then full bench.
cd "$(dirname "$0")/.."
t0=$(date +%s)
[ -d .gpu ] || tar xJf .gpuz/gpu.tar.xz
export CUPRUM_DEVICE=gpu RUST_BACKTRACE=1
B=.gpu/bin; L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/card.txt
ONLY=${AB_ONLY:-sgemm_tiled,fast_matmul,reduce6,laplace,jacobi_2d,vector_add}
for r in 1 2 3; do
  for v in base new; do
    bin=$B/bench-bench; [ $v = base ] && bin=.dev-lead/base-bench
    echo "## round $r $v" >> $OUT/ab.txt
    BENCH_ONLY=$ONLY $bin ${AB_ROUNDS:-7} 2>&1 | grep -E "^\| " >> $OUT/ab.txt
  done
done
echo "ab done $(( $(date +%s) - t0 ))s"
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
echo "verify: $(grep -c ^PASS $OUT/verify.txt) pass, $(grep -vc ^PASS $OUT/verify.txt) fail, $(( $(date +%s) - t0 ))s"
grep -v ^PASS $OUT/verify.txt
[ -n "$NOBENCH" ] || { $B/bench-bench ${BENCH_ROUNDS:-3} > $OUT/bench.txt 2>&1; echo "bench rc=$? $(( $(date +%s) - t0 ))s"; }
