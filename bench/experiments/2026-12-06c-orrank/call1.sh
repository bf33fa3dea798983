#!/usr/bin/env bash
# Lead 2026-12-06 (third session), call 1: verify merged main, bench_cub 5 28, the atomic-or
# A/B, bench-bench 3, the reduce6 copy-again A/B; with NCU set, ncu of the sorts (ours:
# bench_cub parts 28; CUB: bench_cub 1 28 sort).
here=$(dirname "$0")
cd "$here/.."
. "$here/common.sh"
verify
cub_lib
timeout 200 $B/bench-bench_cub 5 28 > $OUT/bench_cub.txt 2>&1; log "bench_cub rc=$?"
grep -E "^sort|^x sort u32 keys, (tile|wide)|^sum|^exclusive|^histogram|^block" $OUT/bench_cub.txt
ab_or 1
[ $(el) -lt 300 ] && { timeout 200 $B/bench-bench 3 > $OUT/bench.txt 2>&1; log "bench rc=$?"; }
[ $(el) -lt 390 ] && ab_r6 2
ab_or 2 390
[ -n "$NCU" ] || { log end; exit 0; }
M=gpu__time_duration.sum,smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__grid_size,launch__block_size
timeout 100 ncu --clock-control none --metrics $M --csv $B/bench-bench_cub parts 28 > /tmp/ncu_ours.csv 2>/tmp/ncu_ours.err; log "ncu ours rc=$?"
timeout 100 ncu --clock-control none --kernel-name regex:'Onesweep|Histogram|ExclusiveSum|Radix' --launch-count 40 --metrics $M --csv $B/bench-bench_cub 1 28 sort > /tmp/ncu_cub.csv 2>/tmp/ncu_cub.err; log "ncu cub rc=$?"
{ grep -v '^==' /tmp/ncu_ours.csv; echo; grep -v '^==' /tmp/ncu_cub.csv; tail -3 /tmp/ncu_ours.err /tmp/ncu_cub.err; } > $OUT/ncu.txt
log "end"
