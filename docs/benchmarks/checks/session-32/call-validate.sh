#!/usr/bin/env bash
# The GPU check of this session's changes (host code and the SFA objective, which the GPU engine
# computes too): every test binary on the GPU, memcheck on the LDA and SFA GPU tests, and the
# apps' GPU runs printing their kernels line (--precision on the GPU keeps its plain note).
# Run with carry [".carry"]; returns device.txt, summary.txt and the logs of what failed.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o" /tmp/logs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$o/device.txt"
cat .carry/commit | tee -a "$o/device.txt"
for t in $bin/fk_*tests; do
  n=$(basename "$t")
  timeout 250 "$t" --gtest_brief=1 > "/tmp/logs/$n.log" 2>&1
  rc=$?
  echo "$n rc=$rc $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' /tmp/logs/$n.log | tr '\n' ' ')" | tee -a "$o/summary.txt"
  grep -E "^\[  FAILED  \]" "/tmp/logs/$n.log" | head -20 | tee -a "$o/summary.txt"
  [[ $rc == 0 ]] || cp "/tmp/logs/$n.log" "$o/"
done
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_app_tests --gtest_brief=1 \
  --gtest_filter='LdaTrain.Gpu*:LdaTrain.Infer*' > /tmp/logs/memcheck-lda.log 2>&1
echo "memcheck lda rc=$? $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED)' /tmp/logs/memcheck-lda.log | tr '\n' ' ')" | tee -a "$o/summary.txt"
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_sfa_tests --gtest_brief=1 \
  --gtest_filter='SfaGpu.*:SfaCli.*' > /tmp/logs/memcheck-sfa.log 2>&1
echo "memcheck sfa rc=$? $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED)' /tmp/logs/memcheck-sfa.log | tr '\n' ' ')" | tee -a "$o/summary.txt"
$bin/fk-als --input gen:ml-100k --iters 2 --precision bf16 --device gpu --out /tmp/p1 2>&1 | grep kernels | tee -a "$o/summary.txt"
$bin/fk-sfa --input gen:ml-100k --iters 2 --device gpu --out /tmp/p2 2>&1 | grep -E "pass 2/2" | tee -a "$o/summary.txt"
