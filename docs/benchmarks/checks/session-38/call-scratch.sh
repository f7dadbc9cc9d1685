#!/usr/bin/env bash
# After the plans' run scratch moved into the context (GpuResources::run_scratch): every test
# binary; memcheck on the fused ratio SpMM's conformance and the plan memory tests; the
# lda-nytimes and gap-nytimes configs' peaks and plan lines (--verbose).
# Run with carry [".carry"]; returns summary.txt and plans.txt.gz.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat .carry/commit; } | tee "$o/summary.txt"
OUT=/tmp/logs timeout 260 bash scripts/device_run.sh tests > /tmp/tests.txt 2>&1
tee -a "$o/summary.txt" < /tmp/logs/tests-summary.txt
grep -q "rc=[1-9]" /tmp/tests.txt && cp /tmp/logs/*.log "$o/"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_kernel_tests --gtest_brief=1 \
  --gtest_filter='CudaPlanMemory.PlansOfOne*:Registered/RatioSpmmConformance.*cuda*' > /tmp/mem.txt 2>&1
echo "memcheck: rc=$? $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED)' /tmp/mem.txt | tr '\n' ' ')" | tee -a "$o/summary.txt"
for run in "fk-lda lda-nytimes" "fk-gap gap-nytimes"; do
  set -- $run
  timeout 60 $bin/$1 --config configs/$2.ini --device gpu --iters 1 --verbose --out "/tmp/run-$2" \
    > /tmp/$2.out 2> /tmp/$2.err
  echo "== $2 rc=$? $(grep -E -o '[0-9]+ MiB on the GPU|peak memory: .*' /tmp/$2.err | tr '\n' ' ')" | tee -a "$o/summary.txt"
  { echo "== $2"; grep -E "plan .* holds|transposed pattern|fused ratio SpMM:|data:" /tmp/$2.err | grep -v sddmm | head -300; } >> /tmp/plans.txt
done
gzip -9c /tmp/plans.txt > "$o/plans.txt.gz"
true
