#!/bin/bash
cd "$(dirname "$0")"
nvcc -cubin -arch=sm_90 -O3 -o conv.cubin convolution.cu || exit 1
python3 time_cols.py v 100 2>&1 | tee $OUT/time1.txt
NCU=1 timeout 200 ncu --section SpeedOfLight --section WarpStateStats --section LaunchStats --section Occupancy --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis -k regex:convolve_cols python3 time_cols.py v > $OUT/ncu.txt 2>&1
tail -3 $OUT/ncu.txt
