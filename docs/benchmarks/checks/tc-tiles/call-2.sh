#!/usr/bin/env bash
# The dense-tile SpMM after call 1 (shared-memory carveout set to the maximum; tile offsets read a
# chunk ahead): its tests, tc_bench's SpMM on the generated matrices again, and an ncu profile of
# the kernel on V = 4, 70%, K = 64 and 256 (occupancy, launch and warp-state sections).
# Run with carry [".carry"]; returns summary.txt, tc_bench's files and ncu.txt.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
source docs/benchmarks/checks/tc-tiles/common.sh
call_start
tiles_tests
tiles_bench 300
timeout 200 ncu --kernel-name regex:tiles_kernel --launch-count 2 --section LaunchStats --section Occupancy \
  --section WarpStateStats --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  $bin/tc_bench --ops spmm --matrices vector:rows=4096,cols=4096,nnz=5033164,param=4,seed=1 --k 64,256 --runs 1 --warmup 0 \
  > "$o/ncu.txt" 2>&1
echo "ncu: rc=$?" | tee -a "$o/summary.txt"
true
