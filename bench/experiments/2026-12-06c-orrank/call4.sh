#!/usr/bin/env bash
# Lead 2026-12-06 (fourth session): call1's steps in the order of what decides most, so a call
# cut short still answers the first questions: the atomic-or A/B (bench_cub checks every sort
# against CUB's), issue 17's table (bench_cub 5 28), issue 15's table (bench-bench 3), every
# GPU test and example on main, a second A/B round, the reduce6 A/B.
here=$(dirname "$0")
cd "$here/.."
. "$here/common.sh"
cub_lib
ab_or 1
timeout 200 $B/bench-bench_cub 5 28 > $OUT/bench_cub.txt 2>&1; log "bench_cub rc=$?"
grep -E "^sort|^x sort u32 keys, (tile|wide)|^sum|^exclusive|^histogram|^block" $OUT/bench_cub.txt
[ $(el) -lt 330 ] && { timeout 150 $B/bench-bench 3 > $OUT/bench.txt 2>&1; log "bench rc=$?"; }
[ $(el) -lt 420 ] && LIMIT=120 verify
ab_or 2 500
[ $(el) -lt 530 ] && ab_r6 1
log end
