#!/usr/bin/env bash
# The session's GPU validation at the binaries' commit: every test binary, the kernel
# repeatability test (now asserting), and compute-sanitizer memcheck and racecheck on the CUDA
# SpMM tests that reach LongRows (changed) (the repeatability test itself is too slow under the sanitizers).
#   call-validate.sh tests|sanitize   (two calls: each stays under the device tool's 10 minutes)
# Run with carry [".carry"]; returns device.txt, summary.txt and logs.tgz.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o" /tmp/logs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$o/device.txt"
cat .carry/commit | tee -a "$o/device.txt"
[[ ${1:-tests} == tests ]] && for t in $bin/fk_*tests; do
  n=$(basename "$t")
  timeout 300 "$t" --gtest_brief=1 > "/tmp/logs/$n.log" 2>&1
  echo "$n rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' /tmp/logs/$n.log | tr '\n' ' ')" | tee -a "$o/summary.txt"
  grep -E "^\[  FAILED  \]" "/tmp/logs/$n.log" | head -20 | tee -a "$o/summary.txt"
done
f='CudaSpmmSpecific.GiantRow:CudaSpmmSpecific.EveryWidthOnSkewedRows:CudaSpmmSpecific.ZipfColumnsFillAsptTiles'
[[ ${1:-tests} == sanitize ]] && for tool in memcheck racecheck; do
  timeout 400 compute-sanitizer --tool $tool --error-exitcode 3 $bin/fk_kernel_tests --gtest_brief=1 \
    --gtest_filter="$f" > "/tmp/logs/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)' /tmp/logs/$tool.log | tr '\n' ' ')" | tee -a "$o/summary.txt"
done
tar czf "$o/logs.tgz" -C /tmp logs
