#!/usr/bin/env bash
# unroll branch (issue 15): gpu tests of the changed kernels, then main's bench and this
# branch's bench in alternating processes (A B B A A B), same kernels, Numba on.
cd "$(dirname "$0")/.."
D=.dev-unroll; t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
export CUPRUM_DEVICE=gpu RUST_BACKTRACE=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for t in gpu_control_flow gpu_differential; do
  timeout 30 $D/$t --include-ignored --test-threads=2 > $OUT/$t.log 2>&1
  echo "$t rc=$? $(grep -E '^test result' $OUT/$t.log | tail -1) t=$(el)s"
done
timeout 45 $D/gpu_algorithms histogram --include-ignored --test-threads=4 > $OUT/gpu_algorithms.log 2>&1
echo "gpu_algorithms histogram rc=$? $(grep -E '^test result' $OUT/gpu_algorithms.log | tail -1) t=$(el)s"
export BENCH_ONLY=${ONLY:-reduce6,reduce_sum,histogram,saxpy}
for side in main unroll unroll main main unroll; do
  [ $(el) -gt ${STOP:-125} ] && { echo "stopping at $(el)s"; break; }
  echo "== $side $(date +%T) t=$(el)s" | tee -a $OUT/bench.txt
  timeout 40 $D/bench-$side ${ROUNDS:-15} >> $OUT/bench.txt 2>&1; echo "rc=$?" >> $OUT/bench.txt
done
echo "done t=$(el)s"
grep -E "^== |^\| (reduce6|reduce_sum|histogram|saxpy) " $OUT/bench.txt
