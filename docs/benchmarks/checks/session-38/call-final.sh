#!/usr/bin/env bash
# Session 38's last GPU call, on the session's final code: every test binary; memcheck on the plan
# memory test (every CUDA plan prepared and run once); and the device memory each plan of the
# lda-nytimes and gap-nytimes configs keeps (--verbose's "plan ... holds" lines) with the runs'
# peaks. Run with carry [".carry"]; returns summary.txt, plans.txt.gz and the logs of what failed.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat .carry/commit; } | tee "$o/summary.txt"
OUT=/tmp/logs timeout 330 bash scripts/device_run.sh tests > /tmp/tests.txt 2>&1
tee -a "$o/summary.txt" < /tmp/logs/tests-summary.txt
grep -q "rc=[1-9]" /tmp/tests.txt && cp /tmp/logs/*.log "$o/"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_kernel_tests --gtest_brief=1 \
  --gtest_filter='CudaPlanMemory.*' > /tmp/mem.txt 2>&1
echo "memcheck CudaPlanMemory: rc=$? $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED)' /tmp/mem.txt | tr '\n' ' ')" |
  tee -a "$o/summary.txt"
for run in "fk-lda lda-nytimes" "fk-gap gap-nytimes"; do
  set -- $run
  timeout 100 $bin/$1 --config configs/$2.ini --device gpu --iters 1 --verbose --out "/tmp/run-$2" \
    > /tmp/$2.out 2> /tmp/$2.err
  echo "== $2 rc=$? $(grep -E -o '[0-9]+ MiB on the GPU|peak memory: .*' /tmp/$2.err | tr '\n' ' ')" | tee -a "$o/summary.txt"
  { echo "== $2"; grep -E "plan .* holds|nonzeros|documents" /tmp/$2.err | head -400; } >> /tmp/plans.txt
done
gzip -9c /tmp/plans.txt > "$o/plans.txt.gz"
true
