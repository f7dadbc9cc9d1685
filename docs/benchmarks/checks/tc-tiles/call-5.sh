#!/usr/bin/env bash
# The dense-tile SpMM with branch-free entry loads and B's pieces from running pointers: tests,
# tc_bench's SpMM on the generated matrices, ncu's instruction count and stalls at V = 4, 70%.
# Run with carry [".carry"].
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
s=smsp__average_warps_issue_stalled
met=""
for r in barrier long_scoreboard short_scoreboard mio_throttle math_pipe_throttle wait not_selected; do
  met="$met${met:+,}${s}_${r}_per_issue_active.ratio"
done
met="$met,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,gpu__time_duration.sum"
timeout 200 ncu --kernel-name regex:tiles_kernel --launch-count 4 --metrics "$met" \
  $bin/tc_bench --ops spmm --matrices vector:rows=4096,cols=4096,nnz=5033164,param=4,seed=1 --k 64,256 --runs 1 --warmup 0 \
  2>&1 | grep -v "^==PROF==" > "$o/ncu-stalls.txt"
echo "ncu: rc=$?" | tee -a "$o/summary.txt"
true
