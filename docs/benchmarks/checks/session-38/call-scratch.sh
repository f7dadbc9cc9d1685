#!/usr/bin/env bash
# After the plans' run scratch moved into the context (GpuResources::run_scratch): every test
# binary; memcheck on the fused ratio SpMM's conformance and the plan memory tests; the
# lda-nytimes and gap-nytimes configs' peaks and plan lines (--verbose).
# Run with carry [".carry"]; returns summary.txt and plans.txt.gz.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
call_tests 260
call_memcheck "fused ratio conformance, shared run scratch" 100 fk_kernel_tests 'CudaPlanMemory.PlansOfOne*:Registered/RatioSpmmConformance.*cuda*'
for run in "fk-lda lda-nytimes" "fk-gap gap-nytimes"; do
  set -- $run
  timeout 60 $bin/$1 --config configs/$2.ini --device gpu --iters 1 --verbose --out "/tmp/run-$2" \
    > /tmp/$2.out 2> /tmp/$2.err
  echo "== $2 rc=$? $(grep -E -o '[0-9]+ MiB on the GPU|peak memory: .*' /tmp/$2.err | tr '\n' ' ')" | tee -a "$o/summary.txt"
  { echo "== $2"; grep -E "plan .* holds|transposed pattern|fused ratio SpMM:|data:" /tmp/$2.err | grep -v sddmm | head -300; } >> /tmp/plans.txt
done
gzip -9c /tmp/plans.txt > "$o/plans.txt.gz"
true
