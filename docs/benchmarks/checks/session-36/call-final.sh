#!/usr/bin/env bash
# This session's third GPU call, after the review's mends (fk-sfa's centred ratings through
# make_csr(pattern, values) on the GPU ops too; one CSR builder; the CPU transposed plans' 32-bit
# permutation): every test binary on the GPU, and fk-sfa's GPU tests under memcheck.
# Run with carry [".carry"]; returns summary.txt and the logs of what failed.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $bin/fk-als --version; } |
  tee "$o/summary.txt"
OUT=/tmp/logs bash scripts/device_run.sh tests > /tmp/tests.txt 2>&1
tee -a "$o/summary.txt" < /tmp/logs/tests-summary.txt
grep -q "rc=[1-9]" /tmp/tests.txt && cp /tmp/logs/*.log "$o/"
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_sfa_tests --gtest_brief=1 \
  --gtest_filter='*Gpu*' > /tmp/sfa-mem.txt 2>&1
echo "memcheck fk_sfa_tests *Gpu*: rc=$? $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED|SKIPPED)' /tmp/sfa-mem.txt | tr '\n' ' ')" |
  tee -a "$o/summary.txt"
true
