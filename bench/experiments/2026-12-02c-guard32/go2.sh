#!/bin/bash
# guard32 run 2: laplace PTX variants (CuPy), then transpose_coalesced main/new again.
cd "$(dirname "$0")/.."
D=.dev-guard32; t0=$(date +%s)
python3 -c "import numpy; numpy.row_stack = numpy.vstack" 2>/dev/null
timeout 60 python3 $D/laplace_variants.py 60 > $OUT/variants.txt 2>&1; echo "variants rc=$? $(( $(date +%s) - t0 ))s"
cat $OUT/variants.txt
mkdir -p /tmp/nopy && printf '#!/bin/sh\nexit 1\n' > /tmp/nopy/python3 && chmod +x /tmp/nopy/python3
export CUPRUM_DEVICE=gpu
for b in new main new main; do
  BENCH_ONLY=transpose_coalesced PATH=/tmp/nopy:$PATH timeout 20 $D/bench-$b 15 > $OUT/tc-$b-$(( $(date +%s) - t0 )).txt 2>&1
  echo "tc bench-$b rc=$? $(( $(date +%s) - t0 ))s"
done
grep -H "^| transpose_coalesced | Cuprum " $OUT/tc-*.txt
