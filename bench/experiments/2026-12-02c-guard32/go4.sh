#!/bin/bash
# guard32 run 4: JIT against offline ptxas, for nvcc's laplace PTX and this branch's fast copy.
cd "$(dirname "$0")/.."
D=.dev-guard32; t0=$(date +%s)
P=$(dirname $(which nvcc))/ptxas; $P --version | tail -1
$P -O3 -arch=sm_90 -o $D/nvccptx.cubin $D/laplace.nvccptx.ptx && $P -O3 -arch=sm_90 -o $D/fastonly.cubin $D/laplace.fastonly.ptx || echo "ptxas failed"
VARIANTS=nvccptx,nvccptx.cubin,fastonly,fastonly.cubin timeout 40 python3 $D/laplace_variants.py 80 > $OUT/variants4.txt 2>&1; echo "variants rc=$? $(( $(date +%s) - t0 ))s"
cat $OUT/variants4.txt
