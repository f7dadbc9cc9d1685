#!/usr/bin/env bash
# The GPU check of this session's changes (tighter tests, plan validation, the tensor-core
# applicability check, the repeatable fallback): every test binary on the GPU, memcheck on the
# kernel conformance tests of the cuSPARSE and tensor-core variants and on the LDA GPU tests, and
# a bad FK_SDDMM_L2_SLICE_FRACTION warning instead of silently disabling slicing.
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
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_kernel_tests --gtest_brief=1 \
  --gtest_filter='*Conformance.AwkwardProblems/cuda_*cusparse*:*Conformance.AwkwardProblems/cuda_*tc_v4*:Registry.*' \
  > /tmp/logs/memcheck-kernels.log 2>&1
echo "memcheck kernels rc=$? $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED)' /tmp/logs/memcheck-kernels.log | tr '\n' ' ')" | tee -a "$o/summary.txt"
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_app_tests --gtest_brief=1 \
  --gtest_filter='LdaTrain.Gpu*' > /tmp/logs/memcheck-lda.log 2>&1
echo "memcheck lda rc=$? $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED)' /tmp/logs/memcheck-lda.log | tr '\n' ' ')" | tee -a "$o/summary.txt"
FK_SDDMM_L2_SLICE_FRACTION=lots $bin/fk-bench sddmm --gen uniform:rows=20000,cols=20000,nnz=200000 \
  --k 64 --variants cuda.sddmm.shared --runs 2 2>&1 | grep -E "warning|error" | head -3 | tee -a "$o/summary.txt"
$bin/fk-als --input gen:ml-100k --iters 2 --precision bf16 --repeatable --device gpu --out /tmp/p1 2>&1 | grep kernels | tee -a "$o/summary.txt"
