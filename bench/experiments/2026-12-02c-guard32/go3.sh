#!/bin/bash
# guard32 run 3: laplace's fast copy alone against nvcc, with nvcc's load order / base address.
cd "$(dirname "$0")/.."
D=.dev-guard32; t0=$(date +%s)
VARIANTS=fastonly,swap,nvbase,new_u timeout 40 python3 $D/laplace_variants.py 80 > $OUT/variants3.txt 2>&1; echo "variants rc=$? $(( $(date +%s) - t0 ))s"
cat $OUT/variants3.txt
