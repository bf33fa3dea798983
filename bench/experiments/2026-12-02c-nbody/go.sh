#!/bin/bash
# Branch `nbody` (issue 15) run 1: gpu tests (branch, debug build), nbody unroll PTX variants,
# then bench main/branch alternating (Numba off). Output under $OUT.
cd "$(dirname "$0")/.." || exit 1
D=.dev-nbody
R=$OUT/2026-12-02c-nbody-1.txt
t0=$(date +%s)
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  [ -d $D/t ] || (cd $D && tar xJf tests.tar.xz)
  echo "== gpu tests, branch (CUPRUM_DEVICE=gpu)"
  export CUPRUM_DEVICE=gpu
  one() { local b=$1 n=$(basename $1) s=$(date +%s) th=2; [[ $n == gpu_algorithms ]] && th=8
    timeout -k 5 100 $b --include-ignored --test-threads=$th --skip sort_u32_2_pow_28 > $OUT/log-$n.txt 2>&1; local rc=$?
    echo "$( [ $rc = 0 ] && echo PASS || echo "FAIL($rc)") $n $(( $(date +%s) - s ))s $(grep -E '^test result' $OUT/log-$n.txt | tail -1)"; }
  export -f one; export OUT
  ls $D/t/gpu_* | xargs -P 6 -I{} bash -c 'one {}' | sort
  echo "tests done $(( $(date +%s) - t0 ))s"
  echo "== nbody_unchecked PTX variants, 30 rounds"
  timeout 60 python3 $D/nbody_unroll.py 30 $D main,u2,u4,u8
  echo "variants done $(( $(date +%s) - t0 ))s"
  unset CUPRUM_DEVICE
  mkdir -p /tmp/nopy && printf '#!/bin/sh\nexit 1\n' > /tmp/nopy/python3 && chmod +x /tmp/nopy/python3
  echo "== bench (Numba off), BENCH_ONLY=$ONLY, $ROUNDS rounds, alternating"
  for b in main nbody main nbody; do
    echo "-- bench-$b"
    PATH=/tmp/nopy:$PATH BENCH_ONLY=$ONLY timeout 90 $D/bench-$b $ROUNDS 2>&1 | grep -v '^$' | grep -E 'bench |GPU|^\| [a-z_0-9]+ \| (Cuprum|nvcc)'
    echo "bench-$b done $(( $(date +%s) - t0 ))s"
  done
  date -u
} > $R 2>&1
tail -40 $R
