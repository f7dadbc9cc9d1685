#!/usr/bin/env bash
# fk-bench's changes of session 32 on the GPU (compulsory bytes of SDDMM and the ratio SpMM, the
# CSV's measurement columns, the flush size recorded): its CLI tests and one GPU run of each op on
# hep-th with --csv. Run with carry [".carry"]; returns summary.txt and bench.csv.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat .carry/commit; } | tee "$o/summary.txt"
timeout 200 $bin/fk_app_tests --gtest_brief=1 --gtest_filter='BenchCli.*' 2>&1 | tail -3 | tee -a "$o/summary.txt"
m=.carry/data/suitesparse/hep-th.mtx
for op in sddmm spmm ratio-spmm; do
  $bin/fk-bench $op --input $m --device gpu --k 32,128 --runs 5 --warmup 1 --csv "$o/bench.csv" \
    > /tmp/$op.log 2>&1
  echo "$op rc=$? $(grep -E 'cache flush|compulsory' /tmp/$op.log | head -2 | tr '\n' ' ')" | tee -a "$o/summary.txt"
done
