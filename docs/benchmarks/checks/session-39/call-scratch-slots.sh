#!/usr/bin/env bash
# After the transposed plans' gathered values moved into the context's run scratch (a slot of
# Context::run_scratch, as the kernels' long-row sums) and the tensor-core plans' source map went
# to 32 bits: every test binary; memcheck on the plan memory tests, the repeatability tests (their
# giant row runs the row kernels' LongRows path), the Sᵀ·B and ratio conformance of the CUDA
# variants and the tensor-core tests; racecheck on the row kernels' and fused ratio SpMM's
# conformance; the four big configs' peaks (one iteration each).
# Run with carry [".carry"]; returns summary.txt, plan-memory.txt and the failed tests' logs.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
call_tests 240
$bin/fk_kernel_tests --gtest_filter='CudaPlanMemory.*' > "$o/plan-memory.txt" 2>&1
call_memcheck "plan memory, repeatability, transposed and ratio conformance, tensor cores" 240 fk_kernel_tests \
  'CudaPlanMemory.*:CudaRepeatability.*:Registered/SpmmConformance.AwkwardProblems/cuda*:Registered/RatioSpmmConformance.*cuda*:TcVector.*'
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 3 $bin/fk_kernel_tests --gtest_brief=1 \
  --gtest_filter='Registered/SpmmConformance.AwkwardProblems/cuda_spmm_row*:Registered/RatioSpmmConformance.*cuda*' \
  > /tmp/racecheck.txt 2>&1
echo "racecheck row kernels and fused ratio: rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|^\[  (PASSED|FAILED)' /tmp/racecheck.txt | tr '\n' ' ')" |
  tee -a "$o/summary.txt"
for run in "fk-lda lda-nytimes 60" "fk-gap gap-nytimes 60" "fk-als als-netflix 150" "fk-sfa sfa-netflix 150"; do
  set -- $run
  timeout $3 $bin/$1 --config configs/$2.ini --device gpu --iters 1 --out "/tmp/run-$2" > /tmp/$2.out 2> /tmp/$2.err
  echo "== $2 rc=$? $(grep -E -o '[0-9]+ MiB on the GPU|peak memory: .*' /tmp/$2.err | tr '\n' ' ')" | tee -a "$o/summary.txt"
done
true
