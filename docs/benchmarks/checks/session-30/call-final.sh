#!/usr/bin/env bash
# The last GPU check at the binaries' commit: every test binary, and compute-sanitizer memcheck on
# the --repeatable test (kernels/registry.cpp times candidate plans on scratch operands).
# Run with carry [".carry"]; returns device.txt and summary.txt.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o" /tmp/logs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$o/device.txt"
cat .carry/commit | tee -a "$o/device.txt"
for t in $bin/fk_*tests; do
  n=$(basename "$t")
  timeout 250 "$t" --gtest_brief=1 > "/tmp/logs/$n.log" 2>&1
  echo "$n rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' /tmp/logs/$n.log | tr '\n' ' ')" | tee -a "$o/summary.txt"
  grep -E "^\[  FAILED  \]" "/tmp/logs/$n.log" | head -20 | tee -a "$o/summary.txt"
done
timeout 250 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_kernel_tests --gtest_brief=1 \
  --gtest_filter='CudaRepeatability.RepeatableOnlyAutoReplacesUnrepeatablePicks' > /tmp/logs/memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED)' /tmp/logs/memcheck.log | tr '\n' ' ')" | tee -a "$o/summary.txt"
