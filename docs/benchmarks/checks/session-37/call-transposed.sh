#!/usr/bin/env bash
# Session 37's third GPU call, after the GPU transposed plans stopped transposing values (the
# pattern only, as on the CPU): every test binary; memcheck on the transposed products of a few
# GPU variants (the fused ratio SpMM's conformance, row_split's and cuSPARSE's SpMM conformance,
# whose awkward problems run Sᵀ·B through the cached transpose); and the four large configs'
# device memory again (the kernels line's note and the peak).
# Run with carry [".carry"]; returns summary.txt, memory.txt and the logs of what failed.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start $bin/fk-als --version
call_tests
call_memcheck "transposed conformance" 240 fk_kernel_tests \
  'Registered/RatioSpmmConformance.*cuda*:Registered/SpmmConformance.*cuda_spmm_row_split*:Registered/SpmmConformance.*cuda_spmm_cusparse*'
for run in "fk-lda lda-nytimes" "fk-gap gap-nytimes" "fk-als als-netflix" "fk-sfa sfa-netflix"; do
  set -- $run
  timeout 200 $bin/$1 --config configs/$2.ini --device gpu --iters 1 --out "/tmp/run-$2" \
    > /tmp/$2.out 2> /tmp/$2.err
  echo "== $2 rc=$? $(grep -E -o '[0-9]+ MiB on the GPU|peak memory: .*' /tmp/$2.err | tr '\n' ' ')" |
    tee -a "$o/memory.txt"
done
true
