#!/usr/bin/env bash
# This session's GPU call, part 4, after the API-misuse mends (kernels refuse null operands and an
# output sharing memory with an input, the GPU SpMM and fused ratio SpMM included; Sᵀ·B shape
# errors in S's terms): every test binary on the GPU (the apps' GPU paths must pass no aliased
# buffers), and memcheck on the new ApiMisuse tests and the fused ratio SpMM's conformance.
# Run with carry [".carry"]; returns summary.txt and the logs of what failed.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $bin/fk-bench --version; } |
  tee "$o/summary.txt"
OUT=/tmp/logs bash scripts/device_run.sh tests > /tmp/tests.txt 2>&1
for log in /tmp/logs/fk_*tests.log; do
  echo "$(basename "$log" .log): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]' "$log" | head -20
done | tee -a "$o/summary.txt"
grep -q "rc=[1-9]" /tmp/tests.txt && cp /tmp/logs/*.log "$o/"
FK_SANITIZE_FILTER='ApiMisuse.*:*RatioSpmmConformance*cuda*' OUT=/tmp/logs \
  bash scripts/device_run.sh memcheck > /tmp/memcheck.txt 2>&1
echo "memcheck: $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED)|rc=' /tmp/logs/memcheck.log | tr '\n' ' ')" |
  tee -a "$o/summary.txt"
