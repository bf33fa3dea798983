#!/bin/bash
# convcols: main's bench and this branch's, alternating processes, then the gpu tests.
cd "$(dirname "$0")/.."
D=.dev-convcols; t0=$(date +%s)
mkdir -p /tmp/nopy && printf '#!/bin/sh\nexit 1\n' > /tmp/nopy/python3 && chmod +x /tmp/nopy/python3
export CUPRUM_DEVICE=gpu RUST_BACKTRACE=1
K=convolve_cols,convolve_rows,black_scholes,jacobi_2d,laplace,softmax_rows,transpose,transpose_coalesced,vector_add
for r in 1 2; do
  for b in main new; do
    BENCH_ONLY=$K PATH=/tmp/nopy:$PATH timeout 120 $D/bench-$b ${ROUNDS:-10} > $OUT/bench-$b-$r.txt 2>&1
    echo "bench-$b run $r rc=$? $(( $(date +%s) - t0 ))s"
  done
done
timeout 120 $D/gpu_bce --include-ignored --test-threads=2 > $OUT/gpu_bce.txt 2>&1; echo "gpu_bce rc=$? $(grep '^test result' $OUT/gpu_bce.txt) $(( $(date +%s) - t0 ))s"
timeout 150 $D/gpu_differential --include-ignored --test-threads=2 > $OUT/gpu_differential.txt 2>&1; echo "gpu_differential rc=$? $(grep '^test result' $OUT/gpu_differential.txt) $(( $(date +%s) - t0 ))s"
grep -hE "convolve|black_scholes|jacobi|laplace|softmax|transpose|vector_add" $OUT/bench-*-1.txt | head -5
