#!/usr/bin/env bash
# The dense-tile tensor-core SpMM's first GPU call: its tests (and the other tensor-core tests),
# memcheck and racecheck on its raw-kernel test, then tc_bench's SpMM on the generated V x 1
# matrices (4096 x 4096, V = 2, 4, 8 at 50-98% sparsity, K = 64, 128, 256) with tc_tiles beside
# the other contenders. Run with carry [".carry"]; returns summary.txt and tc_bench's files.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat .carry/commit; } | tee "$o/summary.txt"
timeout 120 $bin/fk_kernel_tests --gtest_brief=1 --gtest_filter='TcVector.*:TcTiles.*' > "$o/tests.txt" 2>&1
echo "tests: rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$o/tests.txt" | tr '\n' ' ')" | tee -a "$o/summary.txt"
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 3 $bin/fk_kernel_tests --gtest_brief=1 \
    --gtest_filter='TcVector.RawTilesKernel' > /tmp/$tool.txt 2>&1
  echo "$tool RawTilesKernel: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)' /tmp/$tool.txt | tr '\n' ' ')" |
    tee -a "$o/summary.txt"
  grep -q "rc=0" <(tail -1 "$o/summary.txt") || head -c 20000 /tmp/$tool.txt > "$o/$tool.txt"
done
m=""
for v in 2 4 8; do for sp in 0.5 0.7 0.8 0.9 0.95 0.98; do
  nnz=$(awk "BEGIN{printf \"%d\", int((1-$sp)*4096*4096/$v+0.5)*$v}")
  m="$m${m:+,}vector:rows=4096,cols=4096,nnz=$nnz,param=$v,seed=1"
done; done
FK_COMMIT=$(cat .carry/commit) timeout 360 bash scripts/bench_tc.sh $bin/tc_bench "$o/bench" -- --ops spmm --matrices "$m" > /tmp/bench.txt 2>&1
echo "bench: rc=$?" | tee -a "$o/summary.txt"
true
