#!/bin/bash
# Branch `stencil` run 2: the fast copy ends in its own `exit` (no tail shared with the checked
# body). Correctness on the H200, then the changed suite kernels + nbody (control), branch / main.
cd "$(dirname "$0")/.." || exit 1
D=.dev-stencil
R=$OUT/2026-12-02-stencil-2.txt
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "== correctness (CUPRUM_DEVICE=gpu)"
  for t in gpu_bce gpu_differential; do echo "-- $t"; CUPRUM_DEVICE=gpu timeout 60 $D/$t --include-ignored --test-threads=1 2>&1 | tail -6; done
  echo "== bench (Numba off), 10 rounds: branch, then main"
  mkdir -p /tmp/nopy && printf '#!/bin/sh\nexit 1\n' > /tmp/nopy/python3 && chmod +x /tmp/nopy/python3
  for b in stencil main; do
    echo "-- bench-$b"
    PATH=/tmp/nopy:$PATH BENCH_ONLY=black_scholes,convolve_cols,convolve_rows,jacobi_2d,laplace,softmax_rows,transpose,transpose_coalesced,vector_add,nbody timeout 60 $D/bench-$b 10 2>&1 | grep -v '^$' | grep -E 'bench |GPU|^\| [a-z_0-9]+ \| (Cuprum|nvcc)'
  done
  date -u
} > $R 2>&1
tail -75 $R
