#!/usr/bin/env bash
# The GPU check of this session's changes (the rules read the device's L2 through
# KernelProblem::gpu_l2_bytes, plan timing from the features on, --compare's per-run config.ini,
# CPU splits by processors): the device's L2 as the plans read it (l2q, built from l2.cu beside
# this script and carried in .carry/), every test binary on the GPU (scripts/device_run.sh's
# `tests` stage), and memcheck on the kernel tests of the sliced and cached-transpose plans.
# Run with carry [".carry"]; returns summary.txt and the logs of what failed.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat .carry/commit; .carry/l2q; } |
  tee "$o/summary.txt"
OUT=/tmp/logs bash scripts/device_run.sh tests > /tmp/tests.txt 2>&1
for log in /tmp/logs/fk_*tests.log; do
  echo "$(basename "$log" .log): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]' "$log" | head -20
done | tee -a "$o/summary.txt"
grep -q "rc=[1-9]" /tmp/tests.txt && cp /tmp/logs/*.log "$o/"
FK_SANITIZE_FILTER='CudaSpmmSpecific.Sliced*:CudaSpmmSpecific.Auto*:*Conformance.AwkwardProblems/cuda_spmm_nnz_vsr:Registry.*' \
  OUT=/tmp/logs bash scripts/device_run.sh memcheck > /tmp/memcheck.txt 2>&1
echo "memcheck: $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED)|rc=' /tmp/memcheck.txt /tmp/logs/memcheck.log | tr '\n' ' ')" |
  tee -a "$o/summary.txt"
