#!/usr/bin/env bash
# This session's GPU call, part 1: every test binary on the GPU (scripts/device_run.sh's `tests`
# stage: the tensor-core plan's staged_pays limit, top_words.csv, compare.ini, heldout.mtx,
# --version and fk-bench's new CSV columns all run there too), memcheck on the tensor-core tests,
# the device's L2 as the plans read it (.carry/l2q, built from ../session-34/l2.cu), and one GPU
# fk-bench row to see the CSV's build and bandwidth_gbs from a GPU run.
# Run with carry [".carry"]; returns summary.txt, bench-gpu.csv and the logs of what failed.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat .carry/commit; .carry/l2q
  $bin/fk-bench --version; } | tee "$o/summary.txt"
OUT=/tmp/logs bash scripts/device_run.sh tests > /tmp/tests.txt 2>&1
for log in /tmp/logs/fk_*tests.log; do
  echo "$(basename "$log" .log): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]' "$log" | head -20
done | tee -a "$o/summary.txt"
grep -q "rc=[1-9]" /tmp/tests.txt && cp /tmp/logs/*.log "$o/"
FK_SANITIZE_FILTER='TcVector.*' OUT=/tmp/logs bash scripts/device_run.sh memcheck > /tmp/memcheck.txt 2>&1
echo "memcheck: $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED)|rc=' /tmp/memcheck.txt /tmp/logs/memcheck.log | tr '\n' ' ')" |
  tee -a "$o/summary.txt"
$bin/fk-bench spmm --gen powerlaw:rows=100000,cols=50000,nnz=1000000 --k 32 --device gpu \
  --variants cuda.spmm.cusparse,auto --runs 10 --csv "$o/bench-gpu.csv" > /tmp/bench.txt 2>&1
tail -4 /tmp/bench.txt | tee -a "$o/summary.txt"
