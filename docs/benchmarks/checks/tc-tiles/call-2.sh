#!/usr/bin/env bash
# The dense-tile SpMM after call 1 (shared-memory carveout set to the maximum; tile offsets read a
# chunk ahead): its tests, tc_bench's SpMM on the generated matrices again, and an ncu profile of
# the kernel on V = 4, 70%, K = 64 and 256 (occupancy, launch and warp-state sections).
# Run with carry [".carry"]; returns summary.txt, tc_bench's files and ncu.txt.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat .carry/commit; } | tee "$o/summary.txt"
timeout 120 $bin/fk_kernel_tests --gtest_brief=1 --gtest_filter='TcVector.*:TcTiles.*' > "$o/tests.txt" 2>&1
echo "tests: rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$o/tests.txt" | tr '\n' ' ')" | tee -a "$o/summary.txt"
m=""
for v in 2 4 8; do for sp in 0.5 0.7 0.8 0.9 0.95 0.98; do
  nnz=$(awk "BEGIN{printf \"%d\", int((1-$sp)*4096*4096/$v+0.5)*$v}")
  m="$m${m:+,}vector:rows=4096,cols=4096,nnz=$nnz,param=$v,seed=1"
done; done
FK_COMMIT=$(cat .carry/commit) timeout 300 bash scripts/bench_tc.sh $bin/tc_bench "$o/bench" -- --ops spmm --matrices "$m" > /tmp/bench.txt 2>&1
echo "bench: rc=$?" | tee -a "$o/summary.txt"
timeout 200 ncu --kernel-name regex:tiles_kernel --launch-count 2 --section LaunchStats --section Occupancy \
  --section WarpStateStats --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  $bin/tc_bench --ops spmm --matrices vector:rows=4096,cols=4096,nnz=5033164,param=4,seed=1 --k 64,256 --runs 1 --warmup 0 \
  > "$o/ncu.txt" 2>&1
echo "ncu: rc=$?" | tee -a "$o/summary.txt"
true
