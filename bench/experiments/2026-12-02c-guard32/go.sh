#!/bin/bash
# guard32: main's bench and this branch's, alternating processes, then the gpu tests.
cd "$(dirname "$0")/.."
D=.dev-guard32; t0=$(date +%s)
date; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/nopy && printf '#!/bin/sh\nexit 1\n' > /tmp/nopy/python3 && chmod +x /tmp/nopy/python3
export CUPRUM_DEVICE=gpu RUST_BACKTRACE=1
K=jacobi_2d,laplace,black_scholes,block_scan,convolve_cols,convolve_rows,fast_matmul,transpose,transpose_coalesced,vector_add
for b in main new; do
  BENCH_ONLY=$K PATH=/tmp/nopy:$PATH timeout 60 $D/bench-$b 10 > $OUT/bench-$b-1.txt 2>&1
  echo "bench-$b run 1 rc=$? $(( $(date +%s) - t0 ))s"
done
timeout 30 $D/gpu_bce --include-ignored --test-threads=4 > $OUT/gpu_bce.txt 2>&1; echo "gpu_bce rc=$? $(grep '^test result' $OUT/gpu_bce.txt) $(( $(date +%s) - t0 ))s"
timeout 40 $D/gpu_differential --include-ignored --test-threads=4 > $OUT/gpu_differential.txt 2>&1; echo "gpu_differential rc=$? $(grep '^test result' $OUT/gpu_differential.txt) $(( $(date +%s) - t0 ))s"
for b in new main; do
  BENCH_ONLY=jacobi_2d,laplace PATH=/tmp/nopy:$PATH timeout 25 $D/bench-$b 15 > $OUT/bench-$b-2.txt 2>&1
  echo "bench-$b run 2 rc=$? $(( $(date +%s) - t0 ))s"
done
grep -h "^| \(jacobi_2d\|laplace\) " $OUT/bench-*-2.txt
