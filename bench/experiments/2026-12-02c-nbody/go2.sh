#!/bin/bash
# Branch `nbody` run 2: gpu_memory alone (it failed in run 1 next to 5 other test binaries:
# free device memory is device-wide), then bench B (branch + -unroll-max-count=4
# -unroll-partial-threshold=150) / main / B on the kernels whose PTX B changes.
cd "$(dirname "$0")/.." || exit 1
D=.dev-nbody
R=$OUT/2026-12-02c-nbody-2.txt
t0=$(date +%s)
{
  date -u
  [ -f $D/t/gpu_memory ] || (cd $D && tar xJf tests.tar.xz t/gpu_memory)
  echo "-- gpu_memory alone"; CUPRUM_DEVICE=gpu timeout 10 $D/t/gpu_memory 2>&1 | grep -E "^test |test result|panicked|assert"
  mkdir -p /tmp/nopy && printf '#!/bin/sh\nexit 1\n' > /tmp/nopy/python3 && chmod +x /tmp/nopy/python3
  for b in B main B; do
    echo "-- bench-$b"
    PATH=/tmp/nopy:$PATH BENCH_ONLY=histogram,reduce_sum,nbody,convolve_cols timeout 12 $D/bench-$b 3 2>&1 | grep -E '^\| [a-z_0-9]+ \| (Cuprum|nvcc)'
    echo "bench-$b done $(( $(date +%s) - t0 ))s"
  done
} > $R 2>&1
cat $R
