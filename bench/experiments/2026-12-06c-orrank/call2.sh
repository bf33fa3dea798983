#!/usr/bin/env bash
# Lead 2026-12-06 (third session), short call: verify merged main, the atomic-or A/B
# (bench_cub 7 28 sort of main, or, orwide, orpairs), then bench_cub 5 28 and the reduce6
# A/B if time allows.
here=$(dirname "$0")
cd "$here/.."
. "$here/common.sh"
verify
cub_lib
ab_or 1
[ $(el) -lt ${CUB_BEFORE:-230} ] && { timeout 90 $B/bench-bench_cub 5 28 > $OUT/bench_cub.txt 2>&1; log "bench_cub rc=$?"; grep -E "^sort|^sum|^exclusive|^histogram|^block" $OUT/bench_cub.txt; }
[ $(el) -lt ${R6_BEFORE:-270} ] && ab_r6 2
log end
