#!/usr/bin/env bash
# This session's GPU call, part 3, after fk-lda's GPU ops took their launch shapes, warp_sum and
# fill kernel from apps/common/device_ops.cuh (and the dead-code audit's host-side merges): every
# test binary on the GPU, and memcheck on the LDA GPU tests (fk_app_tests' Lda*Gpu*, *Stream*).
# Run with carry [".carry"]; returns summary.txt and the logs of what failed.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $bin/fk-lda --version; } |
  tee "$o/summary.txt"
OUT=/tmp/logs bash scripts/device_run.sh tests > /tmp/tests.txt 2>&1
for log in /tmp/logs/fk_*tests.log; do
  echo "$(basename "$log" .log): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]' "$log" | head -20
done | tee -a "$o/summary.txt"
grep -q "rc=[1-9]" /tmp/tests.txt && cp /tmp/logs/*.log "$o/"
timeout 400 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_app_tests --gtest_brief=1 \
  --gtest_filter='Lda*Gpu*:Lda*Stream*' > /tmp/memcheck.log 2>&1
echo "memcheck rc=$?: $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED)' /tmp/memcheck.log | tr '\n' ' ')" |
  tee -a "$o/summary.txt"
